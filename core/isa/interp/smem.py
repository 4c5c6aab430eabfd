"""Scalar memory: s_load_dword* and s_buffer_load_dword* (gfx12's sub-dword loads too)
through the arena, s_memtime, s_memrealtime and its gfx11+ form s_sendmsg_rtn
MSG_RTN_GET_REALTIME (core.isa.clocks, core.isa.messages).

Holds this invariant: a scalar load reads from a checked address (aligned to its element, as
hardware ignores the low bits) and faults naming the wave when it lies outside every live
allocation; s_buffer_load reads 0 past the V#'s num_records.
"""
import numpy as np

from core.isa import clocks, messages
from core.isa.interp.access import Lanes
from core.isa.interp.memory import gather, fault_on_invalid
from core.isa.interp.registry import HANDLERS, handles
from core.isa.alu.intmath import sext
from core.isa.semantics.smem import BUFFER_OFFSET_MASK, SMEM_LOADS


def _offset(step, inst):
    """Immediate offset plus soffset (an SGPR or constant operand after the base)."""
    total = np.full(step.n, int(inst.mods.get("offset", 0)), np.int64)
    for soffset in inst.src[1:]:
        total += step.ops.scalar(soffset).astype(np.int64)
    return total


def _load(record):
    count, buffer, size = record.dwords, record.buffer, record.size

    def run(step, inst):
        ops = step.ops
        if buffer:
            rsrc = ops.scalar_regs(inst.src[0], 4).astype(np.uint64)
            base = rsrc[:, 0] | ((rsrc[:, 1] & np.uint64(0xFFFF)) << np.uint64(32))
            records = rsrc[:, 2]
        else:
            base = ops.scalar(inst.src[0], "b64")
            records = None
        offset = _offset(step, inst).astype(np.uint64)
        if buffer:
            offset &= np.uint64(BUFFER_OFFSET_MASK)
        start = (base + offset) & np.uint64(record.align)
        steps = np.arange(count, dtype=np.uint64) * np.uint64(size)
        addresses = start[:, None] + steps[None, :]
        inside = np.ones(addresses.shape, np.bool_)
        if records is not None:
            inside = (offset[:, None] + steps) < records[:, None]
        memory = step.dispatch.memory
        check = addresses[inside]
        if check.size:
            wave = np.repeat(np.arange(step.n), count).reshape(step.n, count)[inside]
            fault_on_invalid(step, memory, check[:, None], size, Lanes((step.n, 1), (wave, np.zeros_like(wave))))
        values = np.zeros(addresses.shape, np.uint32)
        if check.size:
            values[inside] = gather(memory, check, size)
        if record.signed:
            values = sext(values, 8 * size)
        slot = ops._slot(inst.dst[0])
        step.w.sgpr[step.idx, slot:slot + count] = values
    return run


for _mnemonic, _record in SMEM_LOADS.items():
    HANDLERS[_mnemonic] = _load(_record)


@handles("s_memtime")
def _memtime(step, inst):
    cycles = clocks.shader_cycles(step.dispatch.plan.clock_mhz)
    step.ops.write_scalar(inst.dst[0], np.full(step.n, cycles, np.uint64), "b64")


@handles("s_memrealtime")
def _memrealtime(step, inst):
    step.ops.write_scalar(inst.dst[0], np.full(step.n, clocks.realtime_ticks(), np.uint64), "b64")


@handles("s_sendmsg_rtn_b32", "s_sendmsg_rtn_b64")
def _sendmsg_rtn(step, inst):
    _, fault = messages.asks_realtime(step.dispatch.plan.desc.target, inst)
    if fault is not None:
        raise step.illegal(fault)
    ticks = np.full(step.n, clocks.realtime_ticks(), np.uint64)
    if inst.mnemonic.endswith("b64"):
        step.ops.write_scalar(inst.dst[0], ticks, "b64")
    else:
        step.ops.write_scalar(inst.dst[0], ticks.astype(np.uint32), "b32")
