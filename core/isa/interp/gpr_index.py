"""gfx9's VGPR index mode: s_set_gpr_idx_on/_off/_idx/_mode, and VALU operands relative to M0.

Holds these invariants:
- s_set_gpr_idx_on sets MODE.GPR_IDX_EN (bit 27) and writes the index to M0[7:0] and the
  operands it applies to (src0, src1, src2, vdst as bits 0-3) to M0[15:12]; _off clears the
  bit, _idx and _mode rewrite one part of M0 (the rest of M0 is kept);
- while a wave's bit is set, its VALU instructions read and write the enabled VGPR operands
  index registers further on (constants, SGPRs and memory instructions are unaffected);
  waves of a group with different indices run the instruction separately, each exactly as
  its own shifted instruction.
"""
import dataclasses

import numpy as np

from core.isa.interp.registry import handles, lookup
from core.isa.interp.state import M0

GPR_IDX_EN = np.uint32(1 << 27)
FIELDS = np.uint32(0xF0FF)              # M0: index [7:0], operand enables [15:12]


def _set_m0(step, value, keep):
    m0 = step.w.sgpr[step.idx, M0]
    step.w.sgpr[step.idx, M0] = m0 & np.uint32(keep) | np.asarray(value, np.uint32)


@handles("s_set_gpr_idx_on")
def _on(step, inst):
    index = step.ops.scalar(inst.src[0]) & np.uint32(0xFF)
    _set_m0(step, index | np.uint32((int(inst.src[1].value) & 0xF) << 12), ~FIELDS)
    step.w.mode[step.idx] |= GPR_IDX_EN


@handles("s_set_gpr_idx_off")
def _off(step, inst):
    step.w.mode[step.idx] &= ~GPR_IDX_EN


@handles("s_set_gpr_idx_idx")
def _idx(step, inst):
    _set_m0(step, step.ops.scalar(inst.src[0]) & np.uint32(0xFF), ~np.uint32(0xFF))


@handles("s_set_gpr_idx_mode")
def _mode(step, inst):
    _set_m0(step, np.uint32((int(inst.mods["simm16"]) & 0xF) << 12), ~np.uint32(0xF000))


def _shifted(inst, index, enabled):
    def shift(op, bit):
        if enabled >> bit & 1 and op.kind == "vgpr":
            return dataclasses.replace(op, index=op.index + index)
        return op
    src = tuple(shift(op, i) if i < 3 else op for i, op in enumerate(inst.src))
    dst = tuple(shift(op, 3) if i == 0 else op for i, op in enumerate(inst.dst))
    return dataclasses.replace(inst, src=src, dst=dst)


def indexed(handler):
    """A VALU instruction's handler that honours the index mode of each wave it runs for."""
    def run(step, inst):
        on = (step.w.mode[step.idx] & GPR_IDX_EN) != 0
        if not on.any():
            return handler(step, inst)
        keys = np.where(on, (step.w.sgpr[step.idx, M0] & FIELDS).astype(np.int64), -1)
        waves = step.wave_indices()
        redirected = False
        for key in np.unique(keys):
            part = waves[keys == key]
            sub = type(step)(step.dispatch, step.chunk, part, part.size, step.inst, step.pc)
            if key < 0:
                redirected |= bool(handler(sub, inst))
            else:
                shifted = _shifted(inst, int(key) & 0xFF, int(key) >> 12)
                redirected |= bool(lookup(shifted)(sub, shifted))
        return redirected
    return run
