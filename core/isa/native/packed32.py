"""gfx90a's packed f32 VALU ops in translated code: v_pk_fma_f32, v_pk_mul_f32, v_pk_add_f32
and v_pk_mov_b32 on 64-bit register pairs (the interpreter's core/isa/interp/packed32.py,
translated).

Holds these invariants:
- result dword 0 comes from the source dwords op_sel picks, dword 1 from those op_sel_hi
  picks, neg / neg_hi negating the sources of each half, and each half is the scalar op's
  emitter (v_fma_f32, v_mul_f32, v_add_f32: MODE, clamp), as the interpreter computes it;
- a 32-bit constant (inline or literal) stands for both dwords of its 64-bit source.
"""
from core.isa.native import operands as O
from core.isa.native.families import handles
from core.isa.native.ir_types import I64, const
from core.isa.semantics.valu import PACKED_F32


def _dwords(k, operand):
    """The two dwords of a packed source, each <lanes x i32>."""
    if operand.kind in ("inline_int", "inline_float", "literal"):
        value = O.vector(k, operand, "b32")
        return value, value
    b = k.builder
    pair = O.vector(k, operand, "b64")
    return b.trunc(pair, k.V), b.trunc(b.lshr(pair, k.splat(const(I64, 32))), k.V)


def _pick(dwords, select):
    return [d[select >> i & 1] for i, d in enumerate(dwords)]


def _write(k, inst, lo, hi):
    b = k.builder
    value = b.or_(b.zext(lo, k.V64), b.shl(b.zext(hi, k.V64), k.splat(const(I64, 32))))
    O.write_vector(k, inst.dst[0], value, "b64")


def _packed(k, inst):
    from core.isa.native.alu import emitter
    em = emitter(PACKED_F32[inst.mnemonic])
    mods = inst.mods
    dwords = [_dwords(k, src) for src in inst.src]
    clamp = bool(mods["clamp"])
    lo, = em.emit(k.builder, _pick(dwords, int(mods["op_sel"])), neg=int(mods["neg"]),
                  clamp=clamp, mode=k.mode)
    hi, = em.emit(k.builder, _pick(dwords, int(mods["op_sel_hi"])),
                  neg=int(mods["neg_hi"]), clamp=clamp, mode=k.mode)
    _write(k, inst, lo, hi)


handles(*PACKED_F32)(_packed)


@handles("v_pk_mov_b32")
def _pk_mov(k, inst):
    # dword 0 from src0 (its high dword if op_sel bit 0), dword 1 from src1 (op_sel bit 1).
    first, second = (_dwords(k, src) for src in inst.src)
    select = int(inst.mods["op_sel"])
    _write(k, inst, first[select & 1], second[select >> 1 & 1])
