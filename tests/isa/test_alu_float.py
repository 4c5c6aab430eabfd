"""VALU float arithmetic: exact fma, IEEE min/max rules, rounding ops, frexp/ldexp, and clang's
division sequences (div_scale / rcp / fma / div_fmas / div_fixup) giving IEEE quotients."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.isa import alu
from tests.isa.alu_support import (as_f16, as_f32, as_f64, f16, f32, f64, libm_fma_f32, libm_fma_f64, one,
                                   run, same_bits_or_both_nan, u32)

pytestmark = pytest.mark.usefixtures("alu_impl")

F32_ANY = st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)
F64_ANY = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


def _random_f64_bits(rng, n):
    return rng.integers(0, 2**64, n, dtype=np.uint64)


def _random_f32_bits(rng, n):
    return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)


def _near_cancellation_f64(rng, n):
    """a*b + c where c almost cancels the product: the residuals division relies on."""
    a = np.ldexp(rng.uniform(1, 2, n), rng.integers(-540, 500, n))
    b = 1 + np.ldexp(rng.integers(0, 2**26, n).astype(float), -52)
    p = a * b
    c = -p + np.ldexp(np.spacing(p), rng.integers(-60, 2, n).astype(np.int32)) * rng.choice([-1, 0.5, 1], n)
    return a, b, c


def test_fma_f64_is_correctly_rounded_like_libm():
    rng = np.random.default_rng(7)
    a, b, c = (_random_f64_bits(rng, 20000).view(np.float64) for _ in range(3))
    a2, b2, c2 = _near_cancellation_f64(rng, 20000)
    # Tiny products landing in and around the subnormal range.
    a3 = np.ldexp(rng.uniform(1, 2, 20000), rng.integers(-600, -480, 20000))
    b3 = np.ldexp(rng.uniform(1, 2, 20000), rng.integers(-600, -480, 20000))
    c3 = np.ldexp(rng.uniform(-1, 1, 20000), rng.integers(-1080, -1000, 20000))
    A, B, C = (np.concatenate(v) for v in ((a, a2, a3), (b, b2, b3), (c, c2, c3)))
    got = as_f64(one("v_fma_f64", A.view(np.uint64), B.view(np.uint64), C.view(np.uint64)))
    assert same_bits_or_both_nan(got, libm_fma_f64(A, B, C)).all()


def test_fma_f32_is_correctly_rounded_like_libm():
    rng = np.random.default_rng(8)
    a, b, c = (_random_f32_bits(rng, 20000).view(np.float32) for _ in range(3))
    a2 = rng.uniform(1, 2, 20000).astype(np.float32)
    b2 = rng.uniform(1, 2, 20000).astype(np.float32)
    c2 = (-(a2.astype(np.float64) * b2) + rng.uniform(-1e-6, 1e-6, 20000)).astype(np.float32)
    A, B, C = (np.concatenate(v) for v in ((a, a2), (b, b2), (c, c2)))
    got = as_f32(one("v_fma_f32", A.view(np.uint32), B.view(np.uint32), C.view(np.uint32)))
    assert same_bits_or_both_nan(got, libm_fma_f32(A, B, C)).all()
    fmac = as_f32(one("v_fmac_f32", A.view(np.uint32), B.view(np.uint32), C.view(np.uint32)))
    assert same_bits_or_both_nan(fmac, got).all()


@settings(max_examples=200)
@given(F64_ANY, F64_ANY, F64_ANY)
def test_fma_f64_property(a, b, c):
    got = as_f64(one("v_fma_f64", f64(a), f64(b), f64(c)))
    assert same_bits_or_both_nan(got, libm_fma_f64(np.array([a]), np.array([b]), np.array([c]))).all()


def test_fma_f16_rounds_once():
    # 1 + 2^-11 is a tie between 1 and 1+2^-10 in f16: rounding the exact value once gives 1,
    # a sticky bit below the tie must round up.
    assert as_f16(one("v_fma_f16", f16(1.0), f16(2**-11), f16(1.0)))[0] == 1.0
    assert as_f16(one("v_fma_f16", f16(1.0 + 2**-10), f16(2**-11), f16(1.0)))[0] == np.float16(1 + 2**-10)


def _div32(num, den, mode=alu.DEFAULT_MODE):
    """LLVM's f32 fdiv expansion for gfx10 (as clang-15 emits it)."""
    def r(name, *s, **k):
        return one(name, *s, mode=mode, **k)
    den_s, _ = run("v_div_scale_f32", den, den, num, mode=mode)
    num_s, vcc = run("v_div_scale_f32", num, den, num, mode=mode)
    one_ = np.full_like(num, 0x3F800000)
    rcp = r("v_rcp_f32", den_s)
    e = r("v_fma_f32", den_s, rcp, one_, neg=1)
    rcp = r("v_fma_f32", e, rcp, rcp)
    q = r("v_mul_f32", num_s, rcp)
    e = r("v_fma_f32", den_s, q, num_s, neg=1)
    q = r("v_fma_f32", e, rcp, q)
    e = r("v_fma_f32", den_s, q, num_s, neg=1)
    q = r("v_div_fmas_f32", e, rcp, q, vcc)
    return r("v_div_fixup_f32", q, den, num)


def _div64(num, den):
    """LLVM's f64 fdiv expansion."""
    den_s, _ = run("v_div_scale_f64", den, den, num)
    num_s, vcc = run("v_div_scale_f64", num, den, num)
    one_ = f64(1.0)
    rcp = one("v_rcp_f64", den_s)
    f0 = one("v_fma_f64", den_s, rcp, one_, neg=1)
    f1 = one("v_fma_f64", rcp, f0, rcp)
    f2 = one("v_fma_f64", den_s, f1, one_, neg=1)
    f3 = one("v_fma_f64", f1, f2, f1)
    q = one("v_mul_f64", num_s, f3)
    f4 = one("v_fma_f64", den_s, q, num_s, neg=1)
    q = one("v_div_fmas_f64", f4, f3, q, vcc)
    return one("v_div_fixup_f64", q, den, num)


def _extreme_exponents(rng, bits, n, exp_bits, mant_mask):
    """Random signs/mantissas with exponents drawn from the whole range and its edges."""
    top = (1 << exp_bits) - 1
    edges = np.array([0, 1, 2, top // 2, top - 2, top - 1, top], dtype=np.int64)
    exps = np.where(rng.random(n) < 0.5, rng.integers(0, top + 1, n), rng.choice(edges, n))
    dtype = np.uint32 if bits == 32 else np.uint64
    raw = rng.integers(0, 2**bits, n, dtype=np.uint64).astype(dtype)
    sign = raw & dtype(1 << (bits - 1))
    return sign | (raw & dtype(mant_mask)) | (exps.astype(dtype) << dtype(bits - 1 - exp_bits))


def test_f32_division_sequence_gives_ieee_quotients_including_denormals_and_specials():
    rng = np.random.default_rng(11)
    num = np.concatenate([_random_f32_bits(rng, 30000), _extreme_exponents(rng, 32, 60000, 8, 0x7FFFFF)])
    den = np.concatenate([_random_f32_bits(rng, 30000), _extreme_exponents(rng, 32, 60000, 8, 0x7FFFFF)])
    got = as_f32(_div32(num, den))
    with np.errstate(all="ignore"):
        want = num.view(np.float32) / den.view(np.float32)
    assert same_bits_or_both_nan(got, want).all()


def test_f64_division_sequence_gives_ieee_quotients_including_denormals_and_specials():
    rng = np.random.default_rng(12)
    mant = 0xFFFFFFFFFFFFF
    num = np.concatenate([_random_f64_bits(rng, 30000), _extreme_exponents(rng, 64, 60000, 11, mant)])
    den = np.concatenate([_random_f64_bits(rng, 30000), _extreme_exponents(rng, 64, 60000, 11, mant)])
    got = as_f64(_div64(num, den))
    with np.errstate(all="ignore"):
        want = num.view(np.float64) / den.view(np.float64)
    assert same_bits_or_both_nan(got, want).all()


def test_div_fixup_special_cases():
    nan = np.float32(np.nan)
    cases = [  # (numerator, denominator, expected quotient)
        (0.0, 0.0, nan), (np.inf, -np.inf, nan), (1.0, 0.0, np.inf), (-1.0, 0.0, -np.inf),
        (np.inf, 2.0, np.inf), (1.0, np.inf, 0.0), (-0.0, 3.0, -0.0), (nan, 1.0, nan), (1.0, nan, nan),
    ]
    num = f32(*[c[0] for c in cases])
    den = f32(*[c[1] for c in cases])
    got = as_f32(one("v_div_fixup_f32", f32(*[7.0] * len(cases)), den, num))
    assert same_bits_or_both_nan(got, np.array([c[2] for c in cases], dtype=np.float32)).all()


def test_div_scale_flags_post_scaling_when_the_quotient_is_denormal():
    num, den = f32(1e-30), f32(1e10)
    scaled, vcc = run("v_div_scale_f32", num, den, num)
    assert vcc[0] and as_f32(scaled)[0] == np.float32(1e-30) * np.float32(2.0**64)
    scaled, vcc = run("v_div_scale_f32", den, den, num)
    assert as_f32(scaled)[0] == np.float32(1e10)     # the denominator is left alone


MIN_MAX = [  # a, b, min, max  (gfx10 IEEE mode)
    (1.0, 2.0, 1.0, 2.0),
    (-0.0, 0.0, -0.0, 0.0),
    (0.0, -0.0, -0.0, 0.0),
    (np.nan, 3.0, 3.0, 3.0),
    (3.0, np.nan, 3.0, 3.0),
    (-np.inf, np.inf, -np.inf, np.inf),
]


@pytest.mark.parametrize("a,b,lo,hi", MIN_MAX)
def test_min_max_return_the_non_nan_operand_and_order_zeros(a, b, lo, hi):
    for t, make, view in (("f32", f32, as_f32), ("f64", f64, as_f64), ("f16", f16, as_f16)):
        got_lo = view(one(f"v_min_{t}", make(a), make(b)))
        got_hi = view(one(f"v_max_{t}", make(a), make(b)))
        assert same_bits_or_both_nan(got_lo, np.array([lo], dtype=got_lo.dtype)).all(), t
        assert same_bits_or_both_nan(got_hi, np.array([hi], dtype=got_hi.dtype)).all(), t


def test_signalling_nan_gives_a_quiet_nan_in_ieee_mode():
    snan = u32(0x7F800001)
    r = one("v_max_f32", snan, f32(1.0))[0]
    assert r == 0x7FC00001
    assert as_f32(one("v_max_f32", snan, f32(1.0), mode=alu.DEFAULT_MODE & ~(1 << 9)))[0] == 1.0


def test_med3_and_min3_max3():
    assert as_f32(one("v_med3_f32", f32(3.0), f32(1.0), f32(2.0)))[0] == 2.0
    assert as_f32(one("v_med3_f32", f32(np.nan), f32(1.0), f32(2.0)))[0] == 1.0   # NaN -> min3
    assert as_f32(one("v_min3_f32", f32(3.0), f32(np.nan), f32(2.0)))[0] == 2.0
    assert as_f32(one("v_max3_f32", f32(3.0), f32(-1.0), f32(2.0)))[0] == 3.0
    assert as_f16(one("v_med3_f16", f16(5.0), f16(-1.0), f16(2.0)))[0] == 2.0


@given(F32_ANY)
def test_rounding_ops_match_numpy(x):
    v = np.array([x], dtype=np.float32)
    for name, ref in (("trunc", np.trunc), ("ceil", np.ceil), ("floor", np.floor), ("rndne", np.rint)):
        assert same_bits_or_both_nan(as_f32(one(f"v_{name}_f32", f32(x))), ref(v)).all(), name
    assert same_bits_or_both_nan(as_f64(one("v_floor_f64", f64(x))), np.floor(v.astype(np.float64))).all()


def test_fract_is_x_minus_floor_below_one():
    got = as_f32(one("v_fract_f32", f32(1.25, -1.25, -1e-30, 3.0, np.inf, np.nan)))
    assert got[0] == 0.25 and got[1] == 0.75 and got[3] == 0.0
    assert got[2] == np.nextafter(np.float32(1), np.float32(0))   # clamped below 1.0
    assert np.isnan(got[4]) and np.isnan(got[5])


def test_frexp_and_ldexp():
    x = f32(12.0, -0.375, 0.0, 1e-40, np.inf)
    mant = as_f32(one("v_frexp_mant_f32", x))
    exp = one("v_frexp_exp_i32_f32", x).view(np.int32)
    assert list(mant[:3]) == [0.75, -0.75, 0.0] and list(exp[:3]) == [4, -1, 0]
    assert mant[3] * 2.0 ** exp[3] == np.float32(1e-40)   # denormals normalise
    assert mant[4] == np.inf and exp[4] == 0               # inf: mantissa is the input, exponent 0
    assert as_f32(one("v_ldexp_f32", f32(0.75), u32(4)))[0] == 12.0
    assert as_f32(one("v_ldexp_f32", f32(1.0), u32(-149)))[0] == np.float32(2.0**-149)
    assert as_f32(one("v_ldexp_f32", f32(1.0), u32(200)))[0] == np.inf
    assert as_f64(one("v_ldexp_f64", f64(1.5), u32(-1074 + 1)))[0] == 1.5 * 2.0**-1073
    assert one("v_frexp_exp_i32_f64", f64(1024.0))[0] == 11
    assert as_f16(one("v_ldexp_f16", f16(1.5), u32(3)))[0] == 12.0


def test_legacy_multiply_treats_zero_times_anything_as_zero():
    assert as_f32(one("v_mul_legacy_f32", f32(0.0), f32(np.inf)))[0] == 0.0
    assert as_f32(one("v_mul_legacy_f32", f32(np.nan), f32(0.0)))[0] == 0.0
    assert as_f32(one("v_mul_legacy_f32", f32(2.0), f32(3.0)))[0] == 6.0
    assert as_f32(one("v_fma_legacy_f32", f32(0.0), f32(np.inf), f32(5.0)))[0] == 5.0


@given(F32_ANY, F32_ANY)
def test_basic_f32_arithmetic_is_ieee(a, b):
    va, vb = np.array([a], np.float32), np.array([b], np.float32)
    with np.errstate(all="ignore"):
        assert same_bits_or_both_nan(as_f32(one("v_add_f32", f32(a), f32(b))), va + vb).all()
        assert same_bits_or_both_nan(as_f32(one("v_sub_f32", f32(a), f32(b))), va - vb).all()
        assert same_bits_or_both_nan(as_f32(one("v_subrev_f32", f32(a), f32(b))), vb - va).all()
        assert same_bits_or_both_nan(as_f32(one("v_mul_f32", f32(a), f32(b))), va * vb).all()


@given(F64_ANY, F64_ANY)
def test_basic_f64_arithmetic_is_ieee(a, b):
    with np.errstate(all="ignore"):
        assert same_bits_or_both_nan(as_f64(one("v_add_f64", f64(a), f64(b))), np.array([a + b])).all()
        assert same_bits_or_both_nan(as_f64(one("v_mul_f64", f64(a), f64(b))), np.array([a]) * b).all()


def test_cube_map_face_and_coordinates():
    x, y, z = f32(0.5, -3.0, 0.1), f32(0.25, 1.0, -2.0), f32(-2.0, 0.5, 1.0)
    assert list(as_f32(one("v_cubeid_f32", x, y, z))) == [5.0, 1.0, 3.0]
    assert list(as_f32(one("v_cubesc_f32", x, y, z))) == [-0.5, 0.5, 0.1]
    assert list(as_f32(one("v_cubetc_f32", x, y, z))) == [-0.25, -1.0, -1.0]
    assert list(as_f32(one("v_cubema_f32", x, y, z))) == [-4.0, -6.0, -4.0]


F16_ANY = st.floats(width=16, allow_nan=True, allow_infinity=True, allow_subnormal=True)


@given(F16_ANY, F16_ANY, F16_ANY)
def test_f16_arithmetic_rounds_once_to_nearest_even(a, b, c):
    from fractions import Fraction
    va, vb = np.array([a], np.float16), np.array([b], np.float16)
    with np.errstate(all="ignore"):
        assert same_bits_or_both_nan(as_f16(one("v_add_f16", f16(a), f16(b))), va + vb).all()
        assert same_bits_or_both_nan(as_f16(one("v_mul_f16", f16(a), f16(b))), va * vb).all()
    got = as_f16(one("v_fma_f16", f16(a), f16(b), f16(c)))[0]
    if not (np.isfinite([a, b, c]).all() and np.isfinite(got)):
        return
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    # got is the nearest f16 to the exact value, the even one on a tie.
    err = abs(Fraction(float(got)) - exact)
    for n in (np.nextafter(got, np.float16(-np.inf)), np.nextafter(got, np.float16(np.inf))):
        if np.isfinite(n):
            other = abs(Fraction(float(n)) - exact)
            assert err < other or (err == other and int(np.float16(got).view(np.uint16)) % 2 == 0)


def test_fma_f32_avoids_the_double_rounding_trap():
    # a*b = 2^-24 * (1 - 25 * 2^-46): the exact sum lies just below the midpoint between
    # c = 1 + 2^-23 (odd) and its successor. Rounding to double first lands on the midpoint,
    # and a second rounding to nearest-even would wrongly go up.
    a, b = np.float32((2**23 + 5) * 2.0**-35), np.float32((2**23 - 5) * 2.0**-35)
    c = np.float32(1 + 2**-23)
    naive = np.float32(np.float64(a) * np.float64(b) + np.float64(c))
    assert naive != c
    assert as_f32(one("v_fma_f32", f32(a), f32(b), f32(c)))[0] == c


def test_min_of_two_quiet_nans_is_src1():
    a, b = u32(0x7FC00001), u32(0x7FC00002)
    assert one("v_min_f32", a, b)[0] == 0x7FC00002
    assert one("v_max_f32", a, b)[0] == 0x7FC00002


def test_f16_division_sequence_handles_specials_and_stays_within_one_ulp():
    # LLVM's f16 fdiv for gfx10: widen, v_rcp_f32, v_mul_f32, narrow, v_div_fixup_f16.
    rng = np.random.default_rng(13)
    num = np.concatenate([rng.integers(0, 2**16, 20000).astype(np.uint32), f16(0.0, 1.0, -np.inf, 0.0, 3.0, np.nan)])
    den = np.concatenate([rng.integers(0, 2**16, 20000).astype(np.uint32), f16(0.0, 0.0, np.inf, -5.0, np.inf, 1.0)])
    rcp = one("v_rcp_f32", one("v_cvt_f32_f16", den))
    q = one("v_cvt_f16_f32", one("v_mul_f32", one("v_cvt_f32_f16", num), rcp))
    got = as_f16(one("v_div_fixup_f16", q, den, num))
    with np.errstate(all="ignore"):
        want = as_f16(num) / as_f16(den)
    special = ~np.isfinite(want) | (want == 0) | ~np.isfinite(as_f16(num)) | ~np.isfinite(as_f16(den))
    assert same_bits_or_both_nan(got[special], want[special]).all()
    # Finite quotients: within one f16 ulp (the sequence rounds in f32 before narrowing).
    ulps = np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want)).astype(np.float64)
    assert (ulps[~special] <= 1).all()
