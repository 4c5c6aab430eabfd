"""Correctly rounded fused multiply-add for f16/f32/f64 without a hardware fma in numpy.

Invariant: fma(a, b, c) is a*b+c rounded once (round to nearest even), including
subnormal results, overflow, signed zeros, infinities and NaNs — clang's division and
sqrt sequences depend on the residuals being exact.

How: round-to-odd (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums:
proved algorithms using rounding to odd") in a wider format, then one rounding to the
target. f16/f32: the product is exact in f64, the sum is rounded to odd in f64 (53 bits >=
24 + 2) and then to the target. f64: the product is split exactly (Dekker) in x87 80-bit
long double, whose 15-bit exponent keeps every partial term normal; the three-term sum is
rounded to odd at 64 bits (>= 53 + 2) and then to double.
"""
import numpy as np

LD = np.longdouble
_SPLIT = LD(2.0) ** 32 + LD(1)  # Veltkamp split of a 64-bit significand into 32 + 32 bits


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _is_odd_ld(x):
    m, _ = np.frexp(x)
    return np.fmod(np.ldexp(m, 64), LD(2)) != 0


def _round_odd(s, err, is_odd):
    """s + err exactly (s the nearest), rounded to odd in s's format."""
    toward = np.nextafter(s, np.where(err > 0, np.inf, -np.inf).astype(s.dtype))
    return np.where((err == 0) | is_odd(s), s, toward)


def _is_odd_f64(x):
    return (x.view(np.uint64) & np.uint64(1)) != 0


def fma_narrow(a, b, c, dtype, scale=0):
    """fma for float16/float32 value arrays, times 2**scale before the one rounding; result
    in dtype."""
    a, b, c = (np.asarray(v).astype(np.float64) for v in (a, b, c))
    p = a * b                                   # exact: 2 * 24 bits <= 53
    s, err = _two_sum(p, c)
    exact = _round_odd(s, err, _is_odd_f64)
    special = ~np.isfinite(p) | ~np.isfinite(c) | (s == 0)
    # Zeros and non-finite values: the plain expression already has IEEE's signs and NaNs.
    return np.ldexp(np.where(special, p + c, exact), scale).astype(dtype)


def fma_f64(a, b, c, scale=0):
    """fma for float64 value arrays, times 2**scale before the one rounding (v_div_fmas)."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    la, lb, lc = (v.astype(LD) for v in (a, b, c))
    ph = la * lb
    ah, bh = la * _SPLIT, lb * _SPLIT
    ah = ah - (ah - la)
    bh = bh - (bh - lb)
    al, bl = la - ah, lb - bh
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl   # ph + pl == a*b exactly
    th, tl = _two_sum(lc, ph)
    v, verr = _two_sum(tl, pl)
    v = _round_odd(v, verr, _is_odd_ld)
    z, zerr = _two_sum(th, v)
    z = _round_odd(z, zerr, _is_odd_ld)
    special = ~np.isfinite(ph) | ~np.isfinite(lc) | (z == 0)
    return np.ldexp(np.where(special, (la * lb + lc), z), scale).astype(np.float64)
