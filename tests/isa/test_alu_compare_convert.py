"""VOPC comparisons (every condition and class) and VALU conversions (rounding, saturation)."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.isa.alu_support import (as_f16, as_f32, as_f64, edgy32, f16, f32, f64, one, s32, s16, same_bits_or_both_nan,
                                   u32, u64)

pytestmark = pytest.mark.usefixtures("alu_impl")

# Definitions from IEEE 754's predicate table, written out per condition.
FLOAT_CONDITIONS = {
    "f": lambda a, b: False,
    "lt": lambda a, b: a < b, "eq": lambda a, b: a == b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "lg": lambda a, b: a < b or a > b, "ge": lambda a, b: a >= b,
    "o": lambda a, b: not (math.isnan(a) or math.isnan(b)),
    "u": lambda a, b: math.isnan(a) or math.isnan(b),
    "nge": lambda a, b: not a >= b, "nlg": lambda a, b: not (a < b or a > b),
    "ngt": lambda a, b: not a > b, "nle": lambda a, b: not a <= b,
    "neq": lambda a, b: not a == b, "nlt": lambda a, b: not a < b,
    "tru": lambda a, b: True,
}
SPECIALS = [0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan, 1e-40]


@pytest.mark.parametrize("cond", sorted(FLOAT_CONDITIONS))
@pytest.mark.parametrize("t,make", [("f16", f16), ("f32", f32), ("f64", f64)])
def test_float_compares_every_condition_with_nans_and_zeros(cond, t, make):
    pairs = [(a, b) for a in SPECIALS for b in SPECIALS]
    a = make(*[p[0] for p in pairs])
    b = make(*[p[1] for p in pairs])
    rounded = {"f16": np.float16, "f32": np.float32, "f64": np.float64}[t]
    want = [FLOAT_CONDITIONS[cond](float(rounded(x)), float(rounded(y))) for x, y in pairs]
    assert list(one(f"v_cmp_{cond}_{t}", a, b)) == want
    assert list(one(f"v_cmpx_{cond}_{t}", a, b)) == want


INT_CONDITIONS = {"f": lambda a, b: False, "lt": lambda a, b: a < b, "eq": lambda a, b: a == b,
                  "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ne": lambda a, b: a != b,
                  "ge": lambda a, b: a >= b, "t": lambda a, b: True}


@pytest.mark.parametrize("cond", sorted(INT_CONDITIONS))
def test_integer_compares_every_type(cond):
    vals32 = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x12345678]
    pairs = [(a, b) for a in vals32 for b in vals32]
    a, b = u32(*[p[0] for p in pairs]), u32(*[p[1] for p in pairs])
    f = INT_CONDITIONS[cond]
    assert list(one(f"v_cmp_{cond}_u32", a, b)) == [f(x, y) for x, y in pairs]
    assert list(one(f"v_cmp_{cond}_i32", a, b)) == [f(s32(x), s32(y)) for x, y in pairs]
    if cond not in ("f", "t"):   # gfx10 has no always-false/true 16-bit integer compares
        assert list(one(f"v_cmp_{cond}_u16", a, b)) == [f(x & 0xFFFF, y & 0xFFFF) for x, y in pairs]
        assert list(one(f"v_cmp_{cond}_i16", a, b)) == [f(s16(x), s16(y)) for x, y in pairs]
    vals64 = [0, 1, 2**63 - 1, 2**63, 2**64 - 1, 2**32]
    pairs = [(a, b) for a in vals64 for b in vals64]
    a, b = u64(*[p[0] for p in pairs]), u64(*[p[1] for p in pairs])
    assert list(one(f"v_cmp_{cond}_u64", a, b)) == [f(x, y) for x, y in pairs]

    def sx64(v):
        return v - 2**64 if v >> 63 else v
    assert list(one(f"v_cmp_{cond}_i64", a, b)) == [f(sx64(x), sx64(y)) for x, y in pairs]


CLASS_BITS = [  # (value, the class bit it belongs to)
    (float("-inf"), 2), (-1.0, 3), (-1e-40, 4), (-0.0, 5), (0.0, 6), (1e-40, 7), (1.0, 8), (float("inf"), 9),
]


def test_class_tests_each_category_including_snan_and_denormals():
    x = f32(*[v for v, _ in CLASS_BITS])
    for bit in range(10):
        got = one("v_cmp_class_f32", x, u32(*[1 << bit] * len(CLASS_BITS)))
        assert list(got) == [k == bit for _, k in CLASS_BITS], bit
    snan, qnan = u32(0x7F800001), u32(0x7FC00000)
    assert one("v_cmp_class_f32", snan, u32(1))[0] and not one("v_cmp_class_f32", snan, u32(2))[0]
    assert one("v_cmp_class_f32", qnan, u32(2))[0] and not one("v_cmp_class_f32", qnan, u32(1))[0]
    assert one("v_cmp_class_f64", f64(-1e-310), u32(1 << 4))[0]
    assert one("v_cmp_class_f16", f16(2.0**-20), u32(1 << 7))[0]
    assert one("v_cmp_class_f32", f32(-2.0), u32(1 << 8), abs=1)[0]   # modifiers apply first


def test_float_to_int_truncates_saturates_and_maps_nan_to_zero():
    x = f32(1.9, -1.9, 3e9, -3e9, np.inf, -np.inf, np.nan, -0.5)
    assert [s32(v) for v in one("v_cvt_i32_f32", x)] == [1, -1, 2**31 - 1, -2**31, 2**31 - 1, -2**31, 0, 0]
    assert list(one("v_cvt_u32_f32", x)) == [1, 0, 3000000000, 0, 2**32 - 1, 0, 0, 0]
    y = f64(2.5, -2.5, 1e300, np.nan)
    assert [s32(v) for v in one("v_cvt_i32_f64", y)] == [2, -2, 2**31 - 1, 0]
    assert list(one("v_cvt_u32_f64", y)) == [2, 0, 2**32 - 1, 0]
    assert [s32(v) for v in one("v_cvt_flr_i32_f32", f32(-1.5, 1.5))] == [-2, 1]
    assert [s32(v) for v in one("v_cvt_rpi_i32_f32", f32(-1.5, 1.5, 2.5, 2**23 + 1))] == [-1, 2, 3, 2**23 + 2]
    h = f16(-3.7, 60000.0, np.nan)
    assert [int(v) for v in one("v_cvt_i16_f16", h)] == [0xFFFD, 0x7FFF, 0]
    assert [int(v) for v in one("v_cvt_u16_f16", h)] == [0, 60000, 0]


@given(edgy32)
def test_int_to_float_rounds_to_nearest(x):
    assert as_f32(one("v_cvt_f32_u32", u32(x)))[0] == np.float32(x)
    assert as_f32(one("v_cvt_f32_i32", u32(x)))[0] == np.float32(s32(x))
    assert as_f64(one("v_cvt_f64_i32", u32(x)))[0] == s32(x)
    assert as_f64(one("v_cvt_f64_u32", u32(x)))[0] == x
    assert as_f16(one("v_cvt_f16_u16", u32(x)))[0] == np.float16(x & 0xFFFF)


@given(st.floats(width=32, allow_nan=False))
def test_float_width_conversions(x):
    v = np.array([x], np.float32)
    assert same_bits_or_both_nan(as_f64(one("v_cvt_f64_f32", f32(x))), v.astype(np.float64)).all()
    assert same_bits_or_both_nan(as_f16(one("v_cvt_f16_f32", f32(x))), v.astype(np.float16)).all()
    assert same_bits_or_both_nan(as_f32(one("v_cvt_f32_f64", f64(float(x) * 1.0000001))),
                                 np.array([float(x) * 1.0000001]).astype(np.float32)).all()


def test_f32_to_f16_keeps_f16_denormals_and_f16_to_f32_widens_them():
    assert as_f16(one("v_cvt_f16_f32", f32(2.0**-20)))[0] == np.float16(2.0**-20)
    assert as_f32(one("v_cvt_f32_f16", f16(2.0**-24)))[0] == np.float32(2.0**-24)


def test_pkrtz_rounds_toward_zero_and_never_overflows_finite_values():
    got = one("v_cvt_pkrtz_f16_f32", f32(1 / 3, 1e6, np.inf), f32(-2 / 3, -1e6, np.nan))
    lo, hi = as_f16(got), as_f16(got >> 16)
    assert lo[0] == np.float16(0.333251953125)             # RNE would give 0.33349609375
    assert hi[0] == -np.float16(0.66650390625)
    assert lo[1] == np.float16(65504) and hi[1] == -np.float16(65504)
    assert lo[2] == np.inf and np.isnan(hi[2])


def test_gfx950_pk_f16_rounds_to_nearest_even_and_overflows_to_infinity():
    up = 1 + 3 * 2.0**-12                               # 3/4 of the way to the next f16
    got = one("v_cvt_pk_f16_f32", f32(up, 1e6, np.nan), f32(-up, 65520.0, 2.0**-25))
    lo, hi = as_f16(got), as_f16(got >> 16)
    assert lo[0] == np.float16(1 + 2.0**-10) and hi[0] == -np.float16(1 + 2.0**-10)
    assert lo[1] == np.inf and hi[1] == np.inf         # 65520 is the tie above 65504: up
    assert np.isnan(lo[2]) and int(got[2]) & 0x0200     # a quiet NaN
    assert hi[2] == 0                                   # 2^-25: the tie below 2^-24, even is 0


def test_gfx950_pk_bf16_rounds_to_nearest_even_and_keeps_nans_quiet():
    ties = [np.uint32(0x3F808000).view(np.float32), np.uint32(0x3F818000).view(np.float32)]
    got = one("v_cvt_pk_bf16_f32", f32(ties[0], np.inf, np.nan), f32(ties[1], -3.0e38, -1.0))
    lo, hi = [int(v) & 0xFFFF for v in got], [int(v) >> 16 for v in got]
    assert lo[0] == 0x3F80 and hi[0] == 0x3F82         # ties go to the even neighbour
    assert lo[1] == 0x7F80 and hi[1] == 0xFF62          # -3.0e38 (0xFF61B1E6) rounds up, finite
    assert lo[2] & 0x7FC0 == 0x7FC0 and hi[2] == 0xBF80
    assert as_f32(one("v_cvt_f32_bf16", u32(0x3F80, 0xC040, 0x7F80))).tolist() == [1.0, -3.0, np.inf]


def test_normalized_and_byte_packs():
    got = one("v_cvt_pknorm_i16_f32", f32(1.0, -2.0, 0.5), f32(-1.0, 0.25, np.nan))
    assert [int(v) & 0xFFFF for v in got] == [32767, 0x8001, 16384]
    assert [int(v) >> 16 for v in got] == [0x8001, 8192, 0]
    got = one("v_cvt_pknorm_u16_f32", f32(1.0, -1.0, 0.5), f32(0, 0, 0))
    assert [int(v) & 0xFFFF for v in got] == [65535, 0, 32768]
    assert one("v_cvt_pk_u8_f32", f32(300.0), u32(2), u32(0x11223344))[0] == 0x11FF3344
    assert one("v_cvt_pk_u8_f32", f32(7.5), u32(0), u32(0x11223344))[0] == 0x11223308
    assert list(as_f32(one("v_cvt_f32_ubyte2", u32(0x00AB0000, 0xFF000000)))) == [171.0, 0.0]
    assert as_f32(one("v_cvt_f32_ubyte3", u32(0xFF000000)))[0] == 255.0
    assert as_f32(one("v_cvt_off_f32_i4", u32(0x9)))[0] == -0.4375
    assert one("v_pack_b32_f16", f16(1.0), f16(2.0))[0] == 0x40003C00
    assert [int(v) for v in one("v_cvt_norm_i16_f16", f16(1.0, -1.0, 0.5, 3.0))] == [32767, 0x8001, 16384, 32767]
    assert [int(v) for v in one("v_cvt_norm_u16_f16", f16(1.0, -1.0))] == [65535, 0]
