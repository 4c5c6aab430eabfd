"""Scalar memory in translated code: s_load_dword*, s_buffer_load_dword* (gfx12's sub-dword
loads too), s_memtime, s_memrealtime and its gfx11+ form s_sendmsg_rtn MSG_RTN_GET_REALTIME.

Holds these invariants (the interpreter's core/isa/interp/smem.py):
- a scalar load reads elements from a checked address aligned to their size and faults
  naming the wave (lane 0) and the first bad element when it lies outside every live
  allocation; a sub-dword element is extended into its SGPR as the load says;
  s_buffer_load reads 0 past the V#'s num_records and checks nothing there;
- the counters are core.isa.clocks': s_memtime counts the agent's shader clock (the
  dispatch's env.clock_mhz), s_memrealtime the reference clock, both from CLOCK_MONOTONIC.
"""
from llvmlite import ir

from core.isa import clocks, messages
from core.isa.native import operands as O
from core.isa.native.runner_layout import ENV
from core.isa.native.families import HANDLERS, handles
from core.isa.native.memory import check_scalar, value_unless
from core.isa.native.ir_types import I32, I64, PTR, const
from core.isa.semantics.smem import BUFFER_OFFSET_MASK, SMEM_LOADS


def _offset(k, inst):
    b = k.builder
    total = const(I64, int(inst.mods.get("offset", 0)) & 0xFFFFFFFFFFFFFFFF)
    for soffset in inst.src[1:]:
        total = b.add(total, b.zext(O.scalar(k, soffset), I64))
    return total


def _check_if(k, address, inside, size):
    """The checked host address of the element at `address` where `inside` holds (else 0):
    past a buffer's records a scalar load neither checks nor reads."""
    outside = k.builder.not_(inside)
    return value_unless(k, outside, const(I64, 0), ("smem_check", "smem_checked"),
                        lambda: check_scalar(k, address, 1, size))


def _element(k, host, record):
    """The SGPR value of the element at host address `host`."""
    b = k.builder
    typ = ir.IntType(8 * record.size)
    value = b.load(b.inttoptr(host, PTR), typ=typ)
    value.align = record.size
    if record.size == 4:
        return value
    return b.sext(value, I32) if record.signed else b.zext(value, I32)


def _load(record):
    count, buffer, size = record.dwords, record.buffer, record.size

    def run(k, inst):
        b = k.builder
        slot = O.slot_of(k, inst.dst[0])
        if buffer:
            rsrc = O.slot_of(k, inst.src[0])
            words = [b.zext(b.load(k.sgpr_slot(rsrc + i)), I64) for i in range(3)]
            base = b.or_(words[0], b.shl(b.and_(words[1], const(I64, 0xFFFF)), const(I64, 32)))
            offset = b.and_(_offset(k, inst), const(I64, BUFFER_OFFSET_MASK))
            start = b.and_(b.add(base, offset), const(I64, record.align))
            values = []
            for j in range(count):
                inside = b.icmp_unsigned("<", b.add(offset, const(I64, size * j)), words[2])
                host = _check_if(k, b.add(start, const(I64, size * j)), inside, size)
                values.append((host, inside))
            for j, (host, inside) in enumerate(values):
                if slot + j < 128:
                    b.store(_load_if(k, host, inside, record), k.sgpr_slot(slot + j))
            return
        base = O.scalar(k, inst.src[0], "b64")
        start = b.and_(b.add(base, _offset(k, inst)), const(I64, record.align))
        host = check_scalar(k, start, count, size)
        for j in range(count):
            if slot + j < 128:
                b.store(_element(k, b.add(host, const(I64, size * j)), record), k.sgpr_slot(slot + j))
    return run


def _load_if(k, host, inside, record):
    return value_unless(k, k.builder.not_(inside), const(I32, 0), ("smem_read", "smem_done"),
                        lambda: _element(k, host, record))


for _mnemonic, _record in SMEM_LOADS.items():
    HANDLERS[_mnemonic] = _load(_record)


@handles("s_memtime")
def _memtime(k, inst):
    b = k.builder
    now = b.call(k.intrinsic("sg_now_ns", I64, []), [])
    mhz = b.load(b.gep(k.env, [const(I64, ENV["clock_mhz"])], source_etype=ir.IntType(8)), typ=I64)
    O.write_scalar(k, inst.dst[0], b.udiv(b.mul(now, mhz), const(I64, 1000)), "b64")


def _realtime(k):
    b = k.builder
    now = b.call(k.intrinsic("sg_now_ns", I64, []), [])
    return b.udiv(now, const(I64, 1_000_000_000 // clocks.REFERENCE_CLOCK_HZ))


@handles("s_memrealtime")
def _memrealtime(k, inst):
    O.write_scalar(k, inst.dst[0], _realtime(k), "b64")


@handles("s_sendmsg_rtn_b32", "s_sendmsg_rtn_b64")
def _sendmsg_rtn(k, inst):
    _, fault = messages.asks_realtime(k.program.target, inst)
    if fault is not None:
        k.illegal(fault)
        return
    ticks = _realtime(k)
    if inst.mnemonic.endswith("b64"):
        O.write_scalar(k, inst.dst[0], ticks, "b64")
    else:
        O.write_scalar(k, inst.dst[0], k.builder.trunc(ticks, I32), "b32")
