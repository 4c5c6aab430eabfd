"""Directed rounding (MODE.FP_ROUND toward +inf, -inf or zero) of +, * and fma results, and
of the narrowing conversion f32 -> f16 (v_cvt_f16_f32, v_cvt_pkrtz_f16_f32).

MODE.FP_ROUND bits [1:0] round f32 results, bits [3:2] f64 and f16 ones: 0 nearest even,
1 toward +inf, 2 toward -inf, 3 toward zero. Ops only come here when the mode of their
result type is not 0, so the nearest-even path costs one bit test.

Invariants:
- every result is the exact value rounded once in the requested direction: an op finds its
  nearest result r and the sign of the exact residual (exact - r), and `_step` moves r one
  ulp where the direction asks (so overflow gives the largest finite value when rounding
  toward zero or away from the overflow's sign, and infinity otherwise);
- exact values come from error-free transformations: f16/f32 operands are exact in float64
  (their products too) and a sum is an unevaluated hi + lo (two_sum); f64 products and
  fmas come from long double rounded to odd (fused.fma_f64_odd);
- an exact zero sum of operands that are not both +0 is -0 when rounding toward -inf and
  +0 otherwise (IEEE 754 section 6.3; fma counts a*b as one operand); infinities and NaNs
  are the nearest-even ones.
"""
import numpy as np

from core.isa.alu.fused import LD, fma_f64_odd, two_sum

UP, DOWN, TOWARD_ZERO = 1, 2, 3


def round_shift(t):
    """Where in MODE the FP_ROUND field for results of type t ('f16', 'f32', 'f64') sits."""
    return 0 if t == "f32" else 2


def _step(r, residual, rmode):
    """r (nearest) moved one ulp where exact = r + residual lies beyond it in direction rmode.
    residual only needs the exact residual's sign; NaN (infinite or NaN r) leaves r alone."""
    if rmode == UP:
        step, target = residual > 0, np.inf
    elif rmode == DOWN:
        step, target = residual < 0, -np.inf
    else:
        step, target = ((residual < 0) & (r > 0)) | ((residual > 0) & (r < 0)), 0
    return np.where(step, np.nextafter(r, r.dtype.type(target)), r)


def _narrow(hi, lo, dtype, rmode):
    """hi + lo (float64, |lo| <= half an ulp of hi) rounded to float16/float32. hi and
    its nearest r lie in the same dtype interval as the exact value, and hi - r is exact
    (Sterbenz), so (hi - r) + lo has the exact residual's sign."""
    r = hi.astype(dtype)
    return _step(r, (hi - r) + lo, rmode)


def _from_long_double(z, rmode):
    """A long double rounded to odd (or exact) rounded to float64: z - r is exact in long
    double, whose exponent range keeps it from underflowing or overflowing."""
    r = z.astype(np.float64)
    return _step(r, z - r.astype(LD), rmode)


def _positive_zero(x):
    return (x == 0) & ~np.signbit(x)


def _zero_sum_sign(r, exact_zero, both_positive_zero, rmode):
    if rmode != DOWN:
        return r
    return np.where(exact_zero & ~both_positive_zero, r.dtype.type(-0.0), r)


def narrow(x, dtype, rmode):
    """float16/32/64 values x rounded to the narrower dtype in direction rmode (x is exact in
    float64, so x - nearest is the exact residual's sign)."""
    wide = np.asarray(x).astype(np.float64)
    return _narrow(wide, np.zeros_like(wide), dtype, rmode)


def add(x, y, rmode):
    """x + y for float value arrays of one dtype, rounded in direction rmode."""
    if x.dtype == np.float64:
        hi, lo = two_sum(x, y)
        # Overflow leaves lo NaN; the exact sum is then finite, below |hi|.
        overflow = np.isinf(hi) & np.isfinite(x) & np.isfinite(y)
        r = _step(hi, np.where(overflow, -hi, lo), rmode)
    else:
        hi, lo = two_sum(x.astype(np.float64), y.astype(np.float64))
        r = _narrow(hi, lo, x.dtype, rmode)
    return _zero_sum_sign(r, (hi == 0) & (lo == 0), _positive_zero(x) & _positive_zero(y), rmode)


def mul(x, y, rmode):
    """x * y for float value arrays of one dtype, rounded in direction rmode."""
    if x.dtype == np.float64:
        # + -0 keeps the product's zero sign (+0 + -0 = +0, -0 + -0 = -0).
        return _from_long_double(fma_f64_odd(x, y, np.float64(-0.0)), rmode)
    p = x.astype(np.float64) * y
    return _narrow(p, np.zeros_like(p), x.dtype, rmode)


def fma(x, y, z, rmode):
    """x*y + z rounded once in direction rmode, for float value arrays of one dtype."""
    dtype = np.result_type(x, y, z)
    product_positive_zero = ((x == 0) | (y == 0)) & (np.signbit(x) == np.signbit(y))
    if dtype == np.float64:
        wide = fma_f64_odd(x, y, z)
        r, exact_zero = _from_long_double(wide, rmode), wide == 0
    else:
        p = x.astype(np.float64) * y
        hi, lo = two_sum(p, z.astype(np.float64))
        r, exact_zero = _narrow(hi, lo, dtype, rmode), (hi == 0) & (lo == 0)
    return _zero_sum_sign(r, exact_zero, product_positive_zero & _positive_zero(z), rmode)
