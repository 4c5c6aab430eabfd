"""Exact fused multiply-add helpers in IR: the emitters' core/isa/alu/fused.py.

Invariants:
- fma_narrow is numpy's fma_narrow step for step (exact f64 product, two_sum, round to odd
  only where numpy does, the scale before the one rounding), so v_div_fmas, which scales,
  rounds exactly as the numpy op does; unscaled f32 fmas use llvm.fma instead, which equals
  it (both correctly rounded);
- two_sum and the round-to-odd step are IEEE operations in order (LLVM keeps them: no
  fast-math flags anywhere in the emitters).
"""
from core.isa.native.alu import bits as B

_NARROW = {  # target -> (f64 bits below the target's last mantissa bit, smallest normal * 2)
    "f32": (29, 2.0**-125),
    "f16": (42, 2.0**-13),
}


def two_sum(k, a, b):
    """s, err with s = a + b rounded and s + err == a + b exactly (Knuth)."""
    s = k.b.fadd(a, b)
    bb = k.b.fsub(s, a)
    return s, k.b.fadd(k.b.fsub(a, k.b.fsub(s, bb)), k.b.fsub(b, bb))


def round_odd_f64(k, s, err):
    """s + err (s the nearest double) rounded to odd: one step of the bit pattern away from
    zero when err has s's sign, toward zero otherwise, unless s is odd or exact."""
    bits = k.bits(s, "f64")
    same_sign = k.icmp("==", B.sign_set(k, bits, "f64"), B.sign_set(k, k.bits(err, "f64"), "f64"))
    stepped = k.select(same_sign, k.add(bits, 1), k.sub(bits, 1))
    exact = k.b.fcmp_ordered("==", err, k.f(0.0, "f64"))
    keep = k.b.or_(exact, k.icmp("!=", k.and_(bits, 1), 0))
    return k.view(k.select(keep, bits, stepped), "f64")


def ldexp_f64(k, v, scale):
    """v * 2**scale for doubles and small per-lane i32 scales (|scale| <= 1000, result not
    below 2**-1022 where it matters): exact, as numpy's ldexp is there."""
    power = k.view(k.shl(k.zext(k.add(scale, 1023), 64), 52), "f64")
    return k.b.fmul(v, power)


def fma_narrow(k, a, b, c, t, scale=None):
    """numpy's fma_narrow: f64 value operands (exact widenings of t values), a*b+c rounded
    once to t ('f32' or 'f16') after scaling by 2**scale (per-lane i32, or None); t bits."""
    p = k.b.fmul(a, b)                       # exact: 2 * 24 bits <= 53
    s, err = two_sum(k, p, c)
    drop, tiny = _NARROW[t]
    low = k.and_(k.bits(s, "f64"), (1 << drop) - 1)
    on_midpoint = k.icmp("==", low, 1 << (drop - 1))
    is_tiny = k.b.fcmp_ordered("<", k.intrinsic("fabs", [s]), k.f(tiny, "f64"))
    finite = k.b.fcmp_ordered("<", k.intrinsic("fabs", [s]), k.f(float("inf"), "f64"))
    inexact = k.b.fcmp_unordered("!=", err, k.f(0.0, "f64"))
    fix = k.b.and_(k.b.and_(k.b.or_(on_midpoint, is_tiny), inexact), finite)
    s = k.select(fix, round_odd_f64(k, s, err), s)
    if scale is not None:
        s = ldexp_f64(k, s, scale)
    return B.narrow(k, k.bits(s, "f64"), "f64", t)



# --- long double (x87) fma rounded to odd: numpy's fma_f64_odd --------------------------------
# x86_fp80 arithmetic in LLVM is x87 arithmetic at 64-bit precision, as numpy's long double;
# the operation order below is numpy's, operation for operation.

_SPLIT_LD = 2.0**32 + 1


def ld(k, v):
    """f64 value -> long double (exact; a signalling NaN is quieted, as fld does)."""
    return k.b.fpext(v, k.fty("f80"))


def ld_const(k, value):
    return k.b.fpext(k.f(value, "f64"), k.fty("f80"))


def _round_odd_ld(k, s, err):
    """s + err exactly (s the nearest long double) rounded to odd at 64 bits: nextafterl
    toward err's side unless s is odd (bit 0 of its explicit significand) or exact."""
    toward = k.intrinsic("copysign", [ld_const(k, float("inf")), err])
    step = k.call_scalar("nextafterl", [s, toward])
    odd = k.icmp("!=", k.and_(k.b.bitcast(s, k.ity(80)), 1), 0)
    exact = k.b.fcmp_ordered("==", err, ld_const(k, 0.0))
    return k.select(k.b.or_(exact, odd), s, step)


def fma_f64_odd(k, a, b, c):
    """numpy's fma_f64_odd: a*b+c for f64 values as a long double rounded to odd at 64 bits
    (exact zeros, infinities and NaNs as x87 gives them)."""
    la, lb, lc = ld(k, a), ld(k, b), ld(k, c)
    fmul, fsub, fadd = k.b.fmul, k.b.fsub, k.b.fadd
    ph = fmul(la, lb)
    split = ld_const(k, _SPLIT_LD)
    ah, bh = fmul(la, split), fmul(lb, split)
    ah = fsub(ah, fsub(ah, la))
    bh = fsub(bh, fsub(bh, lb))
    al, bl = fsub(la, ah), fsub(lb, bh)
    pl = fadd(fadd(fadd(fsub(fmul(ah, bh), ph), fmul(ah, bl)), fmul(al, bh)), fmul(al, bl))
    th, tl = two_sum(k, lc, ph)
    v, verr = two_sum(k, tl, pl)
    v = _round_odd_ld(k, v, verr)
    z, zerr = two_sum(k, th, v)
    z = _round_odd_ld(k, z, zerr)
    inf = ld_const(k, float("inf"))
    special = k.b.or_(k.b.or_(k.b.fcmp_unordered(">=", k.intrinsic("fabs", [ph]), inf),
                              k.b.fcmp_unordered(">=", k.intrinsic("fabs", [lc]), inf)),
                      k.b.fcmp_ordered("==", z, ld_const(k, 0.0)))
    return k.select(special, fadd(fmul(la, lb), lc), z)


def ldexp_ld(k, v, e):
    """A long double times 2**e (per-lane i32 within +-16000): exact in x87's exponent range."""
    biased = k.zext(k.add(e, 16383), 80)
    power = k.b.bitcast(k.or_(k.shl(biased, 64), 1 << 63), k.fty("f80"))
    return k.b.fmul(v, power)
