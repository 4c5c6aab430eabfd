"""gfx90a's packed f32 VALU ops: v_pk_fma_f32, v_pk_mul_f32, v_pk_add_f32 and v_pk_mov_b32,
each on 64-bit register pairs holding two f32 lanes of data.

Holds these invariants:
- result dword 0 comes from the source dwords op_sel picks (bit i: source i's high dword),
  dword 1 from those op_sel_hi picks, with neg_lo / neg_hi negating the sources of each
  half; each half is exactly the scalar op (v_fma_f32, v_mul_f32, v_add_f32 of core.isa.alu:
  MODE's rounding and denormals, clamp), so packed and scalar code agree bit for bit;
- a 32-bit constant (inline or literal) stands for both dwords of its 64-bit source.
"""
import numpy as np

from core.isa import alu
from core.isa.interp.registry import handles
from core.isa.semantics.valu import PACKED_F32

LOW = np.uint64(0xFFFFFFFF)


def _dwords(step, operand):
    """The two dwords of a 64-bit packed source, each uint32 [n, lanes] (or [n, 1])."""
    if operand.kind in ("inline_int", "inline_float", "literal"):
        value = step.ops.vector(operand, "b32")
        return value, value
    pair = step.ops.vector(operand, "b64")
    return (pair & LOW).astype(np.uint32), (pair >> np.uint64(32)).astype(np.uint32)


def _pick(dwords, select):
    return [d[select >> i & 1] for i, d in enumerate(dwords)]


def _write(step, inst, lo, hi):
    value = np.asarray(lo, np.uint64) | np.asarray(hi, np.uint64) << np.uint64(32)
    step.ops.write_vector(inst.dst[0], value, "b64")


@handles(*PACKED_F32)
def _packed(step, inst):
    op = alu.lookup(PACKED_F32[inst.mnemonic])
    mods = inst.mods
    dwords = [_dwords(step, src) for src in inst.src]
    mode = int(step.w.mode[step.idx][0]) if step.n else 0
    clamp = bool(mods["clamp"])
    lo, = op(*_pick(dwords, int(mods["op_sel"])), neg=int(mods["neg"]), clamp=clamp, mode=mode)
    hi, = op(*_pick(dwords, int(mods["op_sel_hi"])), neg=int(mods["neg_hi"]), clamp=clamp,
             mode=mode)
    _write(step, inst, lo, hi)


@handles("v_pk_mov_b32")
def _pk_mov(step, inst):
    # dword 0 from src0 (its high dword if op_sel bit 0), dword 1 from src1 (op_sel bit 1).
    first, second = (_dwords(step, src) for src in inst.src)
    select = int(inst.mods["op_sel"])
    _write(step, inst, first[select & 1], second[select >> 1 & 1])
