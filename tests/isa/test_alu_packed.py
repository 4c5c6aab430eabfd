"""VOP3P: packed 16-bit ops with op_sel/op_sel_hi/neg_lo/neg_hi, fma_mix, dot products."""
import numpy as np
import pytest

from tests.isa.alu_support import as_f16, as_f32, f16, f32, one, u32

pytestmark = pytest.mark.usefixtures("alu_impl")


def pk(lo, hi):
    return f16(lo) | (f16(hi) << 16)


def halves(x):
    return float(as_f16(x)[0]), float(as_f16(np.asarray(x) >> 16)[0])


def test_packed_fma_uses_low_halves_for_low_and_high_halves_for_high():
    got = one("v_pk_fma_f16", pk(1, 2), pk(3, 4), pk(0.5, 0.25), op_sel_hi=0b111)
    assert halves(got) == (3.5, 8.25)


def test_op_sel_swaps_which_half_feeds_each_result():
    # op_sel bit0: the low result takes src0's high half; op_sel_hi 0b110: the high result takes
    # src0's low half.
    got = one("v_pk_add_f16", pk(1, 10), pk(100, 1000), op_sel=0b01, op_sel_hi=0b10)
    assert halves(got) == (110.0, 1001.0)


def test_neg_lo_and_neg_hi_negate_halves_separately():
    got = one("v_pk_mul_f16", pk(2, 3), pk(5, 7), op_sel_hi=0b11, neg=0b01, neg_hi=0b10)
    assert halves(got) == (-10.0, -21.0)


def test_packed_integer_ops_wrap_or_saturate_with_clamp():
    a, b = u32(0x0001FFFF), u32(0x00020001)
    assert one("v_pk_add_u16", a, b, op_sel_hi=0b11)[0] == 0x00030000
    assert one("v_pk_add_u16", a, b, op_sel_hi=0b11, clamp=True)[0] == 0x0003FFFF
    assert one("v_pk_sub_i16", u32(0x80000001), u32(0x00010002), op_sel_hi=0b11, clamp=True)[0] == 0x8000FFFF
    assert one("v_pk_lshlrev_b16", u32(0x00040011), u32(0x00010001), op_sel_hi=0b11)[0] == 0x00100002
    assert one("v_pk_ashrrev_i16", u32(0x00010001), u32(0x80008000), op_sel_hi=0b11)[0] == 0xC000C000
    assert one("v_pk_max_i16", u32(0xFFFF0001), u32(0x00010000), op_sel_hi=0b11)[0] == 0x00010001
    assert one("v_pk_mad_u16", u32(0x00020003), u32(0x00040005), u32(0x00010001), op_sel_hi=0b111)[0] == 0x00090010


def test_packed_clamp_clamps_float_halves_to_unit_range():
    got = one("v_pk_add_f16", pk(0.75, -2), pk(0.5, 1), op_sel_hi=0b11, clamp=True)
    assert halves(got) == (1.0, 0.0)


def test_pk_fmac_without_op_sel_fields_pairs_like_halves():
    got = one("v_pk_fmac_f16", pk(2, 3), pk(4, 5), pk(1, 1))
    assert halves(got) == (9.0, 16.0)


def test_fma_mix_converts_f16_sources_chosen_by_op_sel_hi():
    # src0: f16 from the high half; src1: f32; src2: f16 from the low half.
    got = one("v_fma_mix_f32", pk(2, 3), f32(1.5), pk(1, 7), op_sel=0b001, op_sel_hi=0b101)
    assert as_f32(got)[0] == 5.5
    lo = one("v_fma_mixlo_f16", f32(2.0), f32(3.0), f32(1.0), neg=0b100)
    assert as_f16(lo)[0] == 5.0
    # neg_hi is abs for the mix ops.
    assert as_f32(one("v_fma_mix_f32", f32(-2.0), f32(3.0), f32(0.0), neg_hi=0b001))[0] == 6.0


def test_dot_products_accumulate_exactly():
    assert one("v_dot4_i32_i8", u32(0xFF020304), u32(0x01010101), u32(10))[0] == 18
    assert one("v_dot4_u32_u8", u32(0xFF020304), u32(0x01010101), u32(10))[0] == 10 + 255 + 9
    assert one("v_dot2_i32_i16", u32(0xFFFF0003), u32(0x00020004), u32(0))[0] == 10
    assert one("v_dot8_u32_u4", u32(0xFFFFFFFF), u32(0x11111111), u32(0))[0] == 120
    assert one("v_dot2_i32_i16", u32(0x7FFF7FFF), u32(0x7FFF7FFF), u32(0x7FFFFFFF), clamp=True)[0] == 0x7FFFFFFF
    assert as_f32(one("v_dot2_f32_f16", pk(1.5, 2), pk(2, 0.25), f32(0.5)))[0] == 4.0
    assert one("v_dot4c_i32_i8", u32(0x02020202), u32(0xFFFFFFFF), u32(20))[0] == 12
