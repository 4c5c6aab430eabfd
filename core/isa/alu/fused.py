"""Correctly rounded fused multiply-add for f16/f32/f64 without a hardware fma in numpy.

Invariant: fma(a, b, c) is a*b+c rounded once (round to nearest even), including
subnormal results, overflow, signed zeros, infinities and NaNs — clang's division and
sqrt sequences depend on the residuals being exact.

How: round-to-odd (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums:
proved algorithms using rounding to odd") in a wider format, then one rounding to the
target. f16/f32: the product is exact in f64, the sum is rounded to odd in f64 (53 bits >=
24 + 2) and then to the target. f64: the product is split exactly (Dekker) and the three-term sum rounded to odd,
then to nearest: in double when every term is far from under/overflow (the common case), else
in x87 80-bit long double, whose 15-bit exponent keeps every partial term normal, rounding to
odd at 64 bits (>= 53 + 2) and then to double. That long double (fma_f64_odd) also gives
directed f64 rounding (rounding.py) its exact sign information.
"""
import numpy as np

LD = np.longdouble
# Veltkamp splits: a 64-bit significand into 32 + 32 bits, a 53-bit one into 26 + 27.
_SPLIT_LD = LD(2.0) ** 32 + LD(1)
_SPLIT_D = 2.0 ** 27 + 1
# The long double path relies on x87 extended precision (64-bit significand, 15-bit exponent).
assert np.finfo(LD).nmant == 63, "fused.py needs x86-64 80-bit long double"


def two_sum(a, b):
    """s, err with s = a + b rounded and s + err == a + b exactly (Knuth; no overflow)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _is_odd_ld(x):
    m, _ = np.frexp(x)
    return np.fmod(np.ldexp(m, 64), LD(2)) != 0


def _round_odd(s, err, is_odd):
    """s + err exactly (s the nearest, nonzero where err is), rounded to odd in s's format."""
    toward = np.nextafter(s, np.copysign(s.dtype.type(np.inf), err))
    return np.where((err == 0) | is_odd(s), s, toward)


def _round_odd_f64(s, err):
    """_round_odd for doubles by stepping the bit pattern (libm's nextafter is 30x slower):
    one step up in magnitude when err has s's sign, else one step down."""
    bits = s.view(np.uint64)
    step = np.where(np.signbit(s) == np.signbit(err), np.uint64(1), np.uint64(0xFFFFFFFFFFFFFFFF))
    keep = (err == 0) | ((bits & np.uint64(1)) != 0)
    return np.where(keep, s, (bits + step).view(np.float64))


_NARROW = {  # target -> (f64 bits below the target's last mantissa bit, smallest normal * 2)
    np.float32: (29, 2.0**-125),
    np.float16: (42, 2.0**-13),
}


def fma_narrow(a, b, c, dtype, scale=0):
    """fma for float16/float32 value arrays, times 2**scale before the one rounding; result
    in dtype."""
    a, b, c = (np.asarray(v).astype(np.float64) for v in (a, b, c))
    p = a * b                                   # exact: 2 * 24 bits <= 53
    s, err = two_sum(p, c)
    # Rounding s again can only go wrong where s sits exactly on a midpoint of the target
    # format and was itself inexact; only those lanes (and tiny ones, whose midpoints lie
    # elsewhere) are rounded to odd first. Zeros, infinities and NaNs come out of p + c with
    # IEEE's signs already (f32 terms cannot overflow f64).
    drop, tiny = _NARROW[dtype]
    low = s.view(np.uint64) & np.uint64((1 << drop) - 1)
    fix = ((low == np.uint64(1 << (drop - 1))) | (np.abs(s) < tiny)) & (err != 0) & np.isfinite(s)
    if fix.any():
        s = np.where(fix, _round_odd_f64(s, err), s)
    if np.any(scale):
        s = np.ldexp(s, scale)
    return s.astype(dtype)


def fma_f64_odd(a, b, c):
    """a*b+c for float64 value arrays as a long double rounded to odd at 64 bits (exact
    zeros, infinities and NaNs as IEEE gives them): one more rounding to double in any
    direction is that direction's correctly rounded fma, since an inexact result is never on
    the double grid and stays inside the exact value's double interval."""
    la, lb, lc = (v.astype(LD) for v in (a, b, c))
    ph = la * lb
    ah, bh = la * _SPLIT_LD, lb * _SPLIT_LD
    ah = ah - (ah - la)
    bh = bh - (bh - lb)
    al, bl = la - ah, lb - bh
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl   # ph + pl == a*b exactly
    th, tl = two_sum(lc, ph)
    v, verr = two_sum(tl, pl)
    v = _round_odd(v, verr, _is_odd_ld)
    z, zerr = two_sum(th, v)
    z = _round_odd(z, zerr, _is_odd_ld)
    special = ~np.isfinite(ph) | ~np.isfinite(lc) | (z == 0)
    return np.where(special, (la * lb + lc), z)


def _fma_f64_wide(a, b, c, scale):
    """Any lanes, in long double: exact products and sums whatever the exponents."""
    return np.ldexp(fma_f64_odd(a, b, c), scale).astype(np.float64)


def _fma_f64_fast(a, b, c):
    """The same algorithm in double (final rounding to nearest instead of to odd), exact only
    where nothing under- or overflows; returns the result and where it is valid."""
    ph = a * b
    ah, bh = a * _SPLIT_D, b * _SPLIT_D
    ah = ah - (ah - a)
    bh = bh - (bh - b)
    al, bl = a - ah, b - bh
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
    th, tl = two_sum(c, ph)
    v, verr = two_sum(tl, pl)
    z = th + _round_odd_f64(v, verr)
    az = np.abs(z)
    valid = (np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
             & (np.abs(a) < 2.0**995) & (np.abs(b) < 2.0**995)
             & ((a == 0) | (b == 0) | (np.abs(ph) >= 2.0**-900))
             & (((az >= 2.0**-960) & (az < 2.0**1020)) | (z == 0)))
    z = np.where(z == 0, ph + c, z)       # exact zero: IEEE's sign rules
    return z, valid


def fma_f64(a, b, c, scale=0):
    """fma for float64 value arrays, times 2**scale before the one rounding (v_div_fmas).
    Lanes whose terms stay well inside the double range take the double-only path; the rest
    (and every scaled lane) go through long double."""
    a, b, c, scale = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, c)),
                                         np.asarray(scale, dtype=np.int32))
    z, valid = _fma_f64_fast(a, b, c)
    valid &= scale == 0
    if valid.all():
        return z
    z = z.copy()
    slow = ~valid
    z[slow] = _fma_f64_wide(a[slow], b[slow], c[slow], scale[slow])
    return z
