"""VOP3P packed 16-bit ops (v_pk_*), mixed-precision fma (v_fma_mix*) and dot products in IR
(core/isa/alu/packed.py's emitters).

Invariants (as the numpy family's):
- a v_pk_* op is its scalar 16-bit op's body applied to two halves; the pipeline in table.py
  picks and modifies the halves, so each packed op here is registered with its scalar twin's
  body, exactly as numpy registers its function;
- v_fma_mix*: one exact fma of the (converted) f32 sources, rounded once to f32 or f16;
- dot products accumulate exactly and round once (float) or wrap/saturate (integer, clamp),
  the iu forms' sources signed as neg_lo says;
  a NaN v_dot2_f32_f16 result is the first NaN of a.lo, b.lo, a.hi, b.hi, c (quieted).
"""
from core.isa.alu.packed import _PACKED
from core.isa.native.alu import bits as B
from core.isa.native.alu import fused as F
from core.isa.native.alu.floating import fma_bits
from core.isa.native.alu.table import body_of, emits

for _name, _scalar in _PACKED.items():
    emits(_name)(body_of(_scalar))


@emits("v_fma_mix_f32")
def _mix_f32(k, a, b, c):
    return fma_bits(k, "f32", a, b, c)


@emits("v_fma_mixlo_f16", "v_fma_mixhi_f16")
def _mix_f16(k, a, b, c):
    return F.fma_narrow(k, *(k.view(B.widen(k, x, "f32", "f64"), "f64") for x in (a, b, c)), "f16")


def _fields(k, x, width, signed):
    out = []
    for i in range(32 // width):  # fixed 2/4/8 fields
        f = k.and_(k.lshr(x, width * i), (1 << width) - 1)
        f = k.ashr(k.shl(f, 32 - width), 32 - width) if signed else f
        out.append(k.sext(f, 64) if signed else k.zext(f, 64))
    return out


def _int_dot(width, signed):
    lo, hi = (-2**31, 2**31 - 1) if signed else (0, 2**32 - 1)

    def dot(k, a, b, c, clamp=False, signs=None):
        sa, sb = (signed, signed) if signs is None else (bool(signs & 1), bool(signs & 2))
        acc = k.sext(c, 64) if signed else k.zext(c, 64)
        for fa, fb in zip(_fields(k, a, width, sa), _fields(k, b, width, sb)):
            acc = k.add(acc, k.mul(fa, fb))
        if clamp:
            acc = k.smax(k.smin(acc, hi), lo)
        return k.trunc(acc, 32)
    return dot


for _w, _n in ((16, 2), (8, 4), (4, 8)):       # v_dot{n}c accumulates into D (v_dot2c, v_dot8c: gfx9)
    emits(f"v_dot{_n}_i32_i{_w}", f"v_dot{_n}c_i32_i{_w}")(_int_dot(_w, True))
    emits(f"v_dot{_n}_u32_u{_w}")(_int_dot(_w, False))
for _w, _n in ((8, 4), (4, 8)):                # gfx11+: each source's sign from neg_lo
    emits(f"v_dot{_n}_i32_iu{_w}")(_int_dot(_w, True))


def _half(k, x, hi):
    return k.lshr(x, 16) if hi else k.and_(x, 0xFFFF)


@emits("v_dot2_f32_f16", "v_dot2c_f32_f16")
def _dot2_f16(k, a, b, c):
    # Each f16 product is exact in f64; their sum rounds in f64 only when the two are more
    # than 2^31 apart in magnitude, far below f32's precision.
    lo, hi = (k.b.fmul(*(k.view(B.widen(k, _half(k, x, h), "f16", "f64"), "f64") for x in (a, b)))
              for h in (False, True))
    c64 = k.view(B.widen(k, c, "f32", "f64"), "f64")
    r = F.fma_narrow(k, k.f(1.0, "f64"), k.b.fadd(lo, hi), c64, "f32")
    # A NaN result is the first NaN of a.lo, b.lo, a.hi, b.hi, c (the order of evaluation).
    halves = [(_half(k, a, False), "f16"), (_half(k, b, False), "f16"), (_half(k, a, True), "f16"),
              (_half(k, b, True), "f16"), (c, "f32")]
    return B.canonical_nans(k, "f32", r, halves)
