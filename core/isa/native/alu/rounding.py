"""Directed rounding (MODE.FP_ROUND toward +inf, -inf or zero) of +, * and fma results and of
the narrowing f32 -> f16 conversion, in IR: core/isa/alu/rounding.py's algorithm step for step.

Invariants (as the numpy module's):
- every result is the exact value rounded once in the requested direction: the nearest
  result r moves one ulp (`_step`) where the exact residual's sign says the direction asks;
- exact values come from error-free transformations: f16/f32 operands are exact in f64 (their
  products too) and a sum is an unevaluated hi + lo (two_sum); f64 products and fmas come
  from long double rounded to odd (fused.fma_f64_odd);
- an exact zero sum of operands that are not both +0 is -0 when rounding toward -inf;
- operands are bit patterns of type t, results bit patterns of type t; NaN-ness comes out of
  the same operations as numpy's (the pipeline makes NaNs canonical).
"""
from core.isa.native.alu import bits as B
from core.isa.native.alu import fused as F

UP, DOWN, TOWARD_ZERO = 1, 2, 3


def round_shift(t):
    """Where in MODE the FP_ROUND field for results of type t sits."""
    return 0 if t == "f32" else 2


def nextafter(k, x, t, toward):
    """np.nextafter(r, +inf / -inf / 0) for toward = UP / DOWN / TOWARD_ZERO, on bit patterns
    of finite or infinite r."""
    f = B.FMT[t]
    zero = B.is_zero(k, x, t)
    if toward == TOWARD_ZERO:
        return k.select(zero, x, k.sub(x, 1))
    down = toward == DOWN
    at_limit = k.icmp("==", x, f.exp_mask | (f.sign if down else 0))
    negative = B.sign_set(k, x, t)
    away_from_zero = negative if down else k.b.not_(negative)
    smallest = k.like(1 | (f.sign if down else 0), x)
    stepped = k.select(away_from_zero, k.add(x, 1), k.sub(x, 1))
    return k.select(at_limit, x, k.select(zero, smallest, stepped))


def _zero(k, wide):
    return F.ld_const(k, 0.0) if wide == "f80" else k.f(0.0, wide)


def _step(k, t, r, residual, wide, rmode):
    """r (nearest, bits of t) moved one ulp where exact = r + residual (a value of type wide)
    lies beyond it in direction rmode; a NaN residual leaves r alone."""
    zero = _zero(k, wide)
    if rmode == UP:
        step = k.b.fcmp_ordered(">", residual, zero)
    elif rmode == DOWN:
        step = k.b.fcmp_ordered("<", residual, zero)
    else:
        rv, rz = k.view(r, t), k.f(0.0, t)
        step = k.b.or_(k.b.and_(k.b.fcmp_ordered("<", residual, zero), k.b.fcmp_ordered(">", rv, rz)),
                       k.b.and_(k.b.fcmp_ordered(">", residual, zero), k.b.fcmp_ordered("<", rv, rz)))
    return k.select(step, nextafter(k, r, t, rmode), r)


def _narrow(k, t, hi, lo, rmode):
    """hi + lo (f64 values, |lo| <= half an ulp of hi) rounded to t: hi - r is exact
    (Sterbenz), so (hi - r) + lo has the exact residual's sign."""
    r = B.narrow(k, k.bits(hi, "f64"), "f64", t)
    back = k.view(B.widen(k, r, t, "f64"), "f64")
    return _step(k, t, r, k.b.fadd(k.b.fsub(hi, back), lo), "f64", rmode)


def narrow(k, x, src, t, rmode):
    """A float of format src (bits) rounded to the narrower t in direction rmode: x is exact
    in f64, so x - nearest is the exact residual's sign (numpy's rounding.narrow)."""
    return _narrow(k, t, _wide(k, x, src), k.f(0.0, "f64"), rmode)


def _from_long_double(k, z, rmode):
    r = k.bits(k.b.fptrunc(z, k.fty("f64")), "f64")
    return _step(k, "f64", r, k.b.fsub(z, F.ld(k, k.view(r, "f64"))), "f80", rmode)


def _positive_zero(k, x, t):
    return k.icmp("==", x, 0) if t != "f16" else k.icmp("==", k.and_(x, 0xFFFF), 0)


def _zero_sum_sign(k, t, r, exact_zero, both_positive_zero, rmode):
    if rmode != DOWN:
        return r
    return k.select(k.b.and_(exact_zero, k.b.not_(both_positive_zero)), k.like(B.FMT[t].sign, r), r)


def _wide(k, x, t):
    return k.view(B.widen(k, x, t, "f64"), "f64") if t != "f64" else k.view(x, "f64")


def _is_zero_value(k, v, wide):
    return k.b.fcmp_ordered("==", v, _zero(k, wide))


def add(k, t, x, y, rmode):
    """x + y for bit patterns of type t, rounded in direction rmode."""
    hi, lo = F.two_sum(k, _wide(k, x, t), _wide(k, y, t))
    if t == "f64":
        # Overflow leaves lo NaN; the exact sum is then finite, below |hi|.
        inf = k.f(float("inf"), "f64")
        finite = [k.b.fcmp_ordered("<", k.intrinsic("fabs", [v]), inf) for v in (k.view(x, t), k.view(y, t))]
        overflow = k.b.and_(k.b.fcmp_ordered("==", k.intrinsic("fabs", [hi]), inf), k.b.and_(*finite))
        r = _step(k, t, k.bits(hi, t), k.select(overflow, k.b.fneg(hi), lo), "f64", rmode)
    else:
        r = _narrow(k, t, hi, lo, rmode)
    exact_zero = k.b.and_(_is_zero_value(k, hi, "f64"), _is_zero_value(k, lo, "f64"))
    both = k.b.and_(_positive_zero(k, x, t), _positive_zero(k, y, t))
    return _zero_sum_sign(k, t, r, exact_zero, both, rmode)


def mul(k, t, x, y, rmode):
    """x * y for bit patterns of type t, rounded in direction rmode."""
    if t == "f64":
        # + -0 keeps the product's zero sign (+0 + -0 = +0, -0 + -0 = -0).
        z = F.fma_f64_odd(k, k.view(x, t), k.view(y, t), k.f(-0.0, "f64"))
        return _from_long_double(k, z, rmode)
    p = k.b.fmul(_wide(k, x, t), _wide(k, y, t))
    return _narrow(k, t, p, k.f(0.0, "f64"), rmode)


def fma(k, t, x, y, z, rmode):
    """x*y + z rounded once in direction rmode, for bit patterns of type t."""
    xv, yv = k.view(x, t), k.view(y, t)
    zero = k.f(0.0, t)
    product_zero = k.b.or_(k.b.fcmp_ordered("==", xv, zero), k.b.fcmp_ordered("==", yv, zero))
    same_sign = k.icmp("==", B.sign_set(k, x, t), B.sign_set(k, y, t))
    product_positive_zero = k.b.and_(product_zero, same_sign)
    if t == "f64":
        wide = F.fma_f64_odd(k, xv, yv, k.view(z, t))
        r, exact_zero = _from_long_double(k, wide, rmode), _is_zero_value(k, wide, "f80")
    else:
        p = k.b.fmul(_wide(k, x, t), _wide(k, y, t))
        hi, lo = F.two_sum(k, p, _wide(k, z, t))
        r = _narrow(k, t, hi, lo, rmode)
        exact_zero = k.b.and_(_is_zero_value(k, hi, "f64"), _is_zero_value(k, lo, "f64"))
    return _zero_sum_sign(k, t, r, exact_zero, k.b.and_(product_positive_zero, _positive_zero(k, z, t)), rmode)
