"""ALU ops only gfx90a or gfx1100 kernels use: gfx9's unfused multiply-adds, v_fmac_f64,
gfx11's paired min/max."""
import numpy as np
import pytest

from tests.isa.alu_support import as_f16, as_f32, as_f64, f16, f32, f64, libm_fma_f64, one, u32

# a*b = 1 + 2^-22 + 2^-46 exactly: rounding the product first loses the 2^-46 that fma keeps.
_A = 1 + 2.0 ** -23
_C = -(1 + 2.0 ** -22)


@pytest.mark.parametrize("name", ["v_mad_f32", "v_mac_f32", "v_madak_f32", "v_madmk_f32"])
def test_mad_f32_rounds_the_product_before_adding(name):
    got = as_f32(one(name, f32(_A), f32(_A), f32(_C)))
    fused = as_f32(one("v_fma_f32", f32(_A), f32(_A), f32(_C)))
    assert got[0] == 0.0 and fused[0] == np.float32(2.0 ** -46)


def test_mad_f16_rounds_the_product_before_adding():
    a = 1 + 2.0 ** -10
    got = as_f16(one("v_mad_f16", f16(a), f16(a), f16(-(1 + 2.0 ** -9))))
    fused = as_f16(one("v_fma_f16", f16(a), f16(a), f16(-(1 + 2.0 ** -9))))
    assert got[0] == 0.0 and fused[0] == np.float16(2.0 ** -20)


def test_mad_legacy_f32_takes_a_zero_factor_as_zero_whatever_the_other():
    got = as_f32(one("v_mad_legacy_f32", f32(0.0, np.inf, np.nan, 2.0), f32(np.inf, 0.0, 0.0, 3.0),
                     f32(1.0, -2.0, 5.0, 1.0)))
    assert got.tolist() == [1.0, -2.0, 5.0, 7.0]
    assert np.isnan(as_f32(one("v_mad_f32", f32(0.0), f32(np.inf), f32(1.0))))[0]


def test_mad_legacy_f32_zero_product_plus_negative_zero_is_positive_zero():
    got = one("v_mad_legacy_f32", f32(0.0), f32(-np.inf), f32(-0.0))
    assert got.tolist() == [0]


def test_fmac_f64_is_the_fused_multiply_add():
    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-1e3, 1e3, 64) for _ in range(3))
    got = as_f64(one("v_fmac_f64", f64(*a), f64(*b), f64(*c)))
    assert np.array_equal(got, libm_fma_f64(a, b, c))


@pytest.mark.parametrize("name,want", [
    ("v_maxmin_f32", [2.0, 3.0, -1.0]),     # min(max(a, b), c)
    ("v_minmax_f32", [4.0, 5.0, -1.0]),     # max(min(a, b), c)
])
def test_paired_min_max_f32_apply_both_in_order(name, want):
    a, b, c = f32(1.0, 7.0, -3.0), f32(2.0, 5.0, 0.5), f32(4.0, 3.0, -1.0)
    assert as_f32(one(name, a, b, c)).tolist() == want


def test_paired_min_max_compare_integers_with_their_signedness():
    a, b, c = u32(-5, 3), u32(2, -1), u32(10, 10)
    assert one("v_maxmin_i32", a, b, c).tolist() == [2, 3]                 # max(-5,2)=2; max(3,-1)=3
    assert one("v_maxmin_u32", a, b, c).tolist() == [10, 10]               # huge unsigned, then min 10
    assert one("v_minmax_u32", a, b, c).tolist() == [10, 10]
    assert one("v_minmax_i32", a, b, u32(-7, -7)).tolist() == [2**32 - 5, 2**32 - 1]


def test_paired_min_max_f16_follows_the_nan_rules_of_each_step():
    # max(NaN, 1) = 1 (IEEE mode, the default), then min(1, 0.5) = 0.5.
    got = as_f16(one("v_maxmin_f16", f16(np.nan), f16(1.0), f16(0.5)))
    assert got.tolist() == [0.5]


def test_subrev_u16_subtracts_the_first_source_from_the_second():
    assert one("v_subrev_u16", u32(3, 10), u32(10, 3)).tolist() == [7, 0xFFF9]
    assert one("v_subrev_u16", u32(10), u32(3), clamp=True).tolist() == [0]      # saturates at 0


def test_dot_c_ops_accumulate_signed_fields_into_the_destination():
    a = u32(0xFFFF_0003)                    # i16 fields 3, -1
    b = u32(0x0002_0005)                    # 5, 2
    assert one("v_dot2c_i32_i16", a, b, u32(100)).tolist() == [100 + 15 - 2]
    nibbles = u32(0x0000_00F7)              # i4 fields 7, -1, then zeros
    assert one("v_dot8c_i32_i4", nibbles, u32(0x0000_0023), u32(-4)).tolist() == \
        [(-4 + 7 * 3 - 1 * 2) & 0xFFFFFFFF]


def test_gfx9_16_bit_always_compares():
    a, b = u32(1, 2, 3), u32(3, 2, 1)
    assert one("v_cmp_t_u16", a, b).tolist() == [True] * 3
    assert one("v_cmpx_f_i16", a, b).tolist() == [False] * 3
