"""Scalar memory in translated code: s_load_dword*, s_buffer_load_dword*, s_memtime and
s_memrealtime.

Holds these invariants (the interpreter's core/isa/interp/smem.py):
- a scalar load reads dwords from a checked, dword-aligned address and faults naming the
  wave (lane 0) and the first bad dword when it lies outside every live allocation;
  s_buffer_load reads 0 past the V#'s num_records and checks nothing there;
- the counters are core.isa.clocks': s_memtime counts the agent's shader clock (the
  dispatch's env.clock_mhz), s_memrealtime the reference clock, both from CLOCK_MONOTONIC.
"""
from llvmlite import ir

from core.isa import clocks
from core.isa.native import operands as O
from core.isa.native.runner_layout import ENV
from core.isa.native.families import HANDLERS, handles
from core.isa.native.memory import check_scalar
from core.isa.native.ir_types import I32, I64, PTR, const
from core.isa.semantics.smem import BUFFER_OFFSET_MASK, DWORD_ALIGN, SMEM_LOADS

def _offset(k, inst):
    b = k.builder
    total = const(I64, int(inst.mods.get("offset", 0)) & 0xFFFFFFFFFFFFFFFF)
    for soffset in inst.src[1:]:
        total = b.add(total, b.zext(O.scalar(k, soffset), I64))
    return total


def _check_if(k, address, inside):
    """The checked host address of the dword at `address` where `inside` holds (else 0)."""
    b = k.builder
    before = b.block
    check = k.new_block("smem_check")
    done = k.new_block("smem_checked")
    b.cbranch(inside, check, done)
    b.position_at_end(check)
    host = check_scalar(k, address, 1)
    end = b.block
    b.branch(done)
    b.position_at_end(done)
    phi = b.phi(I64)
    phi.add_incoming(const(I64, 0), before)
    phi.add_incoming(host, end)
    return phi


def _load(count, buffer):
    def run(k, inst):
        b = k.builder
        slot = O.slot_of(k, inst.dst[0])
        if buffer:
            rsrc = O.slot_of(k, inst.src[0])
            words = [b.zext(b.load(k.sgpr_slot(rsrc + i)), I64) for i in range(3)]
            base = b.or_(words[0], b.shl(b.and_(words[1], const(I64, 0xFFFF)), const(I64, 32)))
            offset = b.and_(_offset(k, inst), const(I64, BUFFER_OFFSET_MASK))
            start = b.and_(b.add(base, offset), const(I64, DWORD_ALIGN))
            values = []
            for j in range(count):
                inside = b.icmp_unsigned("<", b.add(offset, const(I64, 4 * j)), words[2])
                host = _check_if(k, b.add(start, const(I64, 4 * j)), inside)
                values.append((host, inside))
            for j, (host, inside) in enumerate(values):
                if slot + j < 128:
                    b.store(_load_if(k, host, inside), k.sgpr_slot(slot + j))
            return
        base = O.scalar(k, inst.src[0], "b64")
        start = b.and_(b.add(base, _offset(k, inst)), const(I64, DWORD_ALIGN))
        host = check_scalar(k, start, count)
        for j in range(count):
            if slot + j < 128:
                load = b.load(b.inttoptr(b.add(host, const(I64, 4 * j)), PTR), typ=I32)
                load.align = 4
                b.store(load, k.sgpr_slot(slot + j))
    return run


def _load_if(k, host, inside):
    b = k.builder
    before = b.block
    read = k.new_block("smem_read")
    done = k.new_block("smem_done")
    b.cbranch(inside, read, done)
    b.position_at_end(read)
    value = b.load(b.inttoptr(host, PTR), typ=I32)
    value.align = 4
    b.branch(done)
    b.position_at_end(done)
    phi = b.phi(I32)
    phi.add_incoming(const(I32, 0), before)
    phi.add_incoming(value, read)
    return phi


for _mnemonic, _record in SMEM_LOADS.items():
    HANDLERS[_mnemonic] = _load(*_record)


@handles("s_memtime")
def _memtime(k, inst):
    b = k.builder
    now = b.call(k.intrinsic("sg_now_ns", I64, []), [])
    mhz = b.load(b.gep(k.env, [const(I64, ENV["clock_mhz"])], source_etype=ir.IntType(8)), typ=I64)
    O.write_scalar(k, inst.dst[0], b.udiv(b.mul(now, mhz), const(I64, 1000)), "b64")


@handles("s_memrealtime")
def _memrealtime(k, inst):
    b = k.builder
    now = b.call(k.intrinsic("sg_now_ns", I64, []), [])
    ticks = b.udiv(now, const(I64, 1_000_000_000 // clocks.REFERENCE_CLOCK_HZ))
    O.write_scalar(k, inst.dst[0], ticks, "b64")
