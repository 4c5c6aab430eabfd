"""VOP3P packed 16-bit ops (v_pk_*), mixed-precision fma (v_fma_mix*) and dot products in IR
(core/isa/alu/packed.py's emitters).

Invariants (as the numpy family's):
- a v_pk_* op is its scalar 16-bit op's body applied to two halves; the pipeline in table.py
  picks and modifies the halves, so each packed op here is registered with its scalar twin's
  body, exactly as numpy registers its function;
- v_fma_mix*: one exact fma of the (converted) f32 sources, rounded once to f32 or f16;
- dot products accumulate exactly and round once (float) or wrap/saturate (integer, clamp).
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
    r = F.fma_narrow(k, *(k.view(B.widen(k, x, "f32", "f64"), "f64") for x in (a, b, c)), "f16")
    # A NaN lane is the f32 fma's NaN narrowed as numpy narrows it (payload truncated).
    nan = B.narrow(k, fma_bits(k, "f32", a, b, c), "f32", "f16")
    return k.select(B.is_nan(k, r, "f16"), nan, r)


def _fields(k, x, width, signed):
    out = []
    for i in range(32 // width):  # fixed 2/4/8 fields
        f = k.and_(k.lshr(x, width * i), (1 << width) - 1)
        f = k.ashr(k.shl(f, 32 - width), 32 - width) if signed else f
        out.append(k.sext(f, 64) if signed else k.zext(f, 64))
    return out


def _int_dot(width, signed):
    lo, hi = (-2**31, 2**31 - 1) if signed else (0, 2**32 - 1)

    def dot(k, a, b, c, clamp=False):
        acc = k.sext(c, 64) if signed else k.zext(c, 64)
        for fa, fb in zip(_fields(k, a, width, signed), _fields(k, b, width, signed)):
            acc = k.add(acc, k.mul(fa, fb))
        if clamp:
            acc = k.smax(k.smin(acc, hi), lo)
        return k.trunc(acc, 32)
    return dot


for _w, _n in ((16, 2), (8, 4), (4, 8)):
    emits(f"v_dot{_n}_i32_i{_w}")(_int_dot(_w, True))
    emits(f"v_dot{_n}_u32_u{_w}")(_int_dot(_w, False))
emits("v_dot4c_i32_i8")(_int_dot(8, True))


def _f64_of_half(k, x, hi):
    h = k.lshr(x, 16) if hi else k.and_(x, 0xFFFF)
    return B.widen(k, h, "f16", "f64")


def _sse(k, r, operands):
    """An f64 result (value) with numpy's NaN for it (first NaN operand, default NaN)."""
    return B.first_nan(k, "f64", k.bits(r, "f64"), operands)


@emits("v_dot2_f32_f16", "v_dot2c_f32_f16")
def _dot2_f16(k, a, b, c):
    # Each f16 product is exact in f64; their sum rounds in f64 only when the two are more
    # than 2^31 apart in magnitude, far below f32's precision.
    products = []
    for hi in (False, True):
        x, y = _f64_of_half(k, a, hi), _f64_of_half(k, b, hi)
        products.append(_sse(k, k.b.fmul(k.view(x, "f64"), k.view(y, "f64")), [x, y]))
    lo, hi = products
    s = _sse(k, k.b.fadd(k.view(lo, "f64"), k.view(hi, "f64")), [lo, hi])
    c64 = B.widen(k, c, "f32", "f64")
    r = F.fma_narrow(k, k.f(1.0, "f64"), k.view(s, "f64"), k.view(c64, "f64"), "f32")
    nan = B.narrow(k, B.nan_chain(k, "f64", [s, c64], B.default_nan(k, s, "f64")), "f64", "f32")
    return k.select(B.is_nan(k, r, "f32"), nan, r)
