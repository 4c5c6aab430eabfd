"""VALU integer semantics against Python integer references (exact for every bit pattern)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.isa.alu_support import edgy32, one, run, s16, s32, u32, u64, word32, word64

pytestmark = pytest.mark.usefixtures("alu_impl")

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
pairs = st.tuples(edgy32, edgy32)


def _lanes(values):
    return u32(*values)


@settings(max_examples=60)
@given(st.lists(st.tuples(edgy32, edgy32, st.booleans()), min_size=1, max_size=40))
def test_add_sub_with_carry_in_and_out(rows):
    a = _lanes([r[0] for r in rows])
    b = _lanes([r[1] for r in rows])
    c = np.array([r[2] for r in rows])
    d, co = run("v_add_co_u32", a, b)
    assert [int(x) for x in d] == [(x + y) & M32 for x, y, _ in rows]
    assert list(co) == [x + y > M32 for x, y, _ in rows]
    d, co = run("v_add_co_ci_u32", a, b, c)
    assert [int(x) for x in d] == [(x + y + z) & M32 for x, y, z in rows]
    assert list(co) == [x + y + z > M32 for x, y, z in rows]
    d, bo = run("v_sub_co_u32", a, b)
    assert [int(x) for x in d] == [(x - y) & M32 for x, y, _ in rows]
    assert list(bo) == [y > x for x, y, _ in rows]
    d, bo = run("v_sub_co_ci_u32", a, b, c)
    assert [int(x) for x in d] == [(x - y - z) & M32 for x, y, z in rows]
    assert list(bo) == [y + z > x for x, y, z in rows]
    d, bo = run("v_subrev_co_ci_u32", a, b, c)
    assert [int(x) for x in d] == [(y - x - z) & M32 for x, y, z in rows]
    assert list(bo) == [x + z > y for x, y, z in rows]


@given(pairs)
def test_clamped_adds_saturate(p):
    x, y = p
    assert one("v_add_nc_u32", u32(x), u32(y), clamp=True)[0] == min(x + y, M32)
    assert one("v_sub_nc_u32", u32(x), u32(y), clamp=True)[0] == max(x - y, 0)
    assert one("v_add_co_u32", u32(x), u32(y), clamp=True)[0] == min(x + y, M32)
    assert s32(one("v_add_nc_i32", u32(x), u32(y), clamp=True)[0]) == max(min(s32(x) + s32(y), 2**31 - 1), -2**31)
    assert s32(one("v_sub_nc_i32", u32(x), u32(y), clamp=True)[0]) == max(min(s32(x) - s32(y), 2**31 - 1), -2**31)
    assert one("v_add_nc_i32", u32(x), u32(y))[0] == (x + y) & M32


@given(pairs)
def test_multiplies(p):
    x, y = p
    assert one("v_mul_lo_u32", u32(x), u32(y))[0] == (x * y) & M32
    assert one("v_mul_hi_u32", u32(x), u32(y))[0] == (x * y) >> 32
    assert one("v_mul_hi_i32", u32(x), u32(y))[0] == ((s32(x) * s32(y)) >> 32) & M32
    x24, y24 = x & 0xFFFFFF, y & 0xFFFFFF
    sx24 = x24 - (1 << 24) if x24 >> 23 else x24
    sy24 = y24 - (1 << 24) if y24 >> 23 else y24
    assert one("v_mul_u32_u24", u32(x), u32(y))[0] == (x24 * y24) & M32
    assert one("v_mul_hi_u32_u24", u32(x), u32(y))[0] == (x24 * y24) >> 32
    assert one("v_mul_i32_i24", u32(x), u32(y))[0] == (sx24 * sy24) & M32
    assert one("v_mul_hi_i32_i24", u32(x), u32(y))[0] == ((sx24 * sy24) >> 32) & M32
    assert one("v_mad_u32_u24", u32(x), u32(y), u32(x))[0] == (x24 * y24 + x) & M32
    assert one("v_mad_i32_i24", u32(x), u32(y), u32(y))[0] == (sx24 * sy24 + s32(y)) & M32


@given(edgy32, edgy32, word64)
def test_mad_64_32_carry_is_bit_64(x, y, c):
    d, carry = run("v_mad_u64_u32", u32(x), u32(y), u64(c))
    full = x * y + c
    assert int(d[0]) == full & M64 and bool(carry[0]) == bool(full >> 64)
    d, carry = run("v_mad_i64_i32", u32(x), u32(y), u64(c))
    sc = c - (1 << 64) if c >> 63 else c
    full = s32(x) * s32(y) + sc
    assert int(d[0]) == full & M64 and bool(carry[0]) == bool((full >> 64) & 1)


@given(edgy32, edgy32)
def test_shifts_use_the_low_five_bits_of_the_count(s, x):
    assert one("v_lshlrev_b32", u32(s), u32(x))[0] == (x << (s & 31)) & M32
    assert one("v_lshrrev_b32", u32(s), u32(x))[0] == x >> (s & 31)
    assert one("v_ashrrev_i32", u32(s), u32(x))[0] == (s32(x) >> (s & 31)) & M32
    assert one("v_lshlrev_b16", u32(s), u32(x))[0] == ((x & 0xFFFF) << (s & 15)) & 0xFFFF
    assert one("v_ashrrev_i16", u32(s), u32(x))[0] == (s16(x) >> (s & 15)) & 0xFFFF


@given(edgy32, word64)
def test_64_bit_shifts_use_six_bits(s, x):
    sx = x - (1 << 64) if x >> 63 else x
    assert one("v_lshlrev_b64", u32(s), u64(x))[0] == (x << (s & 63)) & M64
    assert one("v_lshrrev_b64", u32(s), u64(x))[0] == x >> (s & 63)
    assert one("v_ashrrev_i64", u32(s), u64(x))[0] == (sx >> (s & 63)) & M64


def test_shift_by_32_is_shift_by_0():
    assert one("v_lshlrev_b32", u32(32), u32(5))[0] == 5
    assert one("v_lshrrev_b32", u32(33), u32(4))[0] == 2


@given(edgy32, st.integers(0, 63), st.integers(0, 63))
def test_bit_fields(x, off, width):
    o, w = off & 31, width & 31
    field = (x >> o) & ((1 << w) - 1)
    assert one("v_bfe_u32", u32(x), u32(off), u32(width))[0] == field
    # bfe_i32 shifts arithmetically, so bits above 31 are copies of the sign.
    sfield = (s32(x) >> o) & ((1 << w) - 1)
    expect = (sfield - (1 << w) if w and sfield >> (w - 1) else sfield) & M32
    assert one("v_bfe_i32", u32(x), u32(off), u32(width))[0] == expect
    assert one("v_bfm_b32", u32(width), u32(off))[0] == (((1 << w) - 1) << o) & M32


@given(edgy32, edgy32, edgy32)
def test_three_input_bit_ops(m, a, b):
    assert one("v_bfi_b32", u32(m), u32(a), u32(b))[0] == (m & a) | (~m & b & M32)
    assert one("v_or3_b32", u32(m), u32(a), u32(b))[0] == m | a | b
    assert one("v_xor3_b32", u32(m), u32(a), u32(b))[0] == m ^ a ^ b
    assert one("v_and_or_b32", u32(m), u32(a), u32(b))[0] == (m & a) | b
    assert one("v_lshl_or_b32", u32(m), u32(a), u32(b))[0] == ((m << (a & 31)) & M32) | b
    assert one("v_lshl_add_u32", u32(m), u32(a), u32(b))[0] == (((m << (a & 31)) & M32) + b) & M32
    assert one("v_add_lshl_u32", u32(m), u32(a), u32(b))[0] == (((m + a) & M32) << (b & 31)) & M32
    assert one("v_add3_u32", u32(m), u32(a), u32(b))[0] == (m + a + b) & M32
    assert one("v_xad_u32", u32(m), u32(a), u32(b))[0] == ((m ^ a) + b) & M32
    assert one("v_alignbit_b32", u32(m), u32(a), u32(b))[0] == (((m << 32) | a) >> (b & 31)) & M32
    assert one("v_alignbyte_b32", u32(m), u32(a), u32(b))[0] == (((m << 32) | a) >> (8 * (b & 3))) & M32


def _truth_table(table, a, b, c, width):
    """Bit j of the result is bit (a_j b_j c_j read as a 3-bit number) of the table."""
    return sum((table >> ((a >> j & 1) << 2 | (b >> j & 1) << 1 | (c >> j & 1)) & 1) << j
               for j in range(width))


@given(st.integers(0, 255), edgy32, edgy32, edgy32)
def test_bitop3_is_any_function_of_three_bits_by_its_truth_table(table, a, b, c):
    """gfx950's v_bitop3: 0xF0 is S0, 0xCC S1, 0xAA S2, so 0x78 is S0 ^ (S1 & S2)."""
    assert one("v_bitop3_b32", u32(a), u32(b), u32(c), u32(table))[0] == \
        _truth_table(table, a, b, c, 32)
    assert one("v_bitop3_b16", u32(a), u32(b), u32(c), u32(table))[0] == \
        _truth_table(table, a, b, c, 16)


def test_bitop3_tables_name_their_sources():
    a, b, c = 0x12345678, 0x9ABCDEF0, 0x0F1E2D3C
    for table, expected in ((0xF0, a), (0xCC, b), (0xAA, c), (0x78, a ^ (b & c)), (0, 0),
                            (0xFF, M32)):
        assert one("v_bitop3_b32", u32(a), u32(b), u32(c), u32(table))[0] == expected


def _perm_reference(s0, s1, sel):
    data = (s0 << 32) | s1
    byte = [(data >> (8 * i)) & 0xFF for i in range(8)]
    out = 0
    for k in range(4):
        s = (sel >> (8 * k)) & 0xFF
        if s >= 13:
            v = 0xFF
        elif s == 12:
            v = 0
        elif s >= 8:
            v = 0xFF if byte[2 * (s - 8) + 1] >> 7 else 0
        else:
            v = byte[s]
        out |= v << (8 * k)
    return out


@given(edgy32, edgy32, st.lists(st.integers(0, 15), min_size=4, max_size=4))
def test_perm_selects_bytes_signs_and_constants(s0, s1, sels):
    sel = sum(s << (8 * k) for k, s in enumerate(sels))
    assert one("v_perm_b32", u32(s0), u32(s1), u32(sel))[0] == _perm_reference(s0, s1, sel)


def test_bit_counting_matches_the_isa_guide_examples():
    def ffbh(x):
        return int(one("v_ffbh_u32", u32(x))[0])
    assert [ffbh(x) for x in (0, 0x800000FF, 0x100000FF, 0x0000FFFF, 1)] == [M32, 0, 3, 16, 31]
    ffbl = [int(one("v_ffbl_b32", u32(x))[0]) for x in (0, 0xFF000001, 0xFF000008, 0xFFFF0000, 0x80000000)]
    assert ffbl == [M32, 0, 3, 16, 31]
    ffbh_i = [int(one("v_ffbh_i32", u32(x))[0])
              for x in (0, 0x40000000, 0x80000000, 0x0FFFFFFF, 0xFFFF0000, 0xFFFFFFFE, 0xFFFFFFFF)]
    assert ffbh_i == [M32, 1, 1, 4, 16, 31, M32]


@given(edgy32, edgy32)
def test_bcnt_brev(x, y):
    assert one("v_bcnt_u32_b32", u32(x), u32(y))[0] == (bin(x).count("1") + y) & M32
    assert one("v_bfrev_b32", u32(x))[0] == int(f"{x:032b}"[::-1], 2)
    assert one("v_not_b32", u32(x))[0] == ~x & M32


def test_mbcnt_counts_mask_bits_below_each_lane():
    mask = u32(0b1011_0110)
    lanes = np.arange(32, dtype=np.uint32)
    lo = one("v_mbcnt_lo_u32_b32", mask, u32(100), lanes)
    assert [int(v) for v in lo[:9]] == [100 + bin(0b10110110 & ((1 << i) - 1)).count("1") for i in range(9)]
    hi_lanes = np.arange(64, dtype=np.uint32)
    hi = one("v_mbcnt_hi_u32_b32", u32(0xF), u32(0), hi_lanes)
    assert list(hi[:33]) == [0] * 33 and hi[34] == 2 and hi[63] == 4


@given(edgy32, edgy32, edgy32)
def test_min_max_med3(a, b, c):
    assert one("v_min_i32", u32(a), u32(b))[0] == min(s32(a), s32(b)) & M32
    assert one("v_max_u32", u32(a), u32(b))[0] == max(a, b)
    assert one("v_med3_i32", u32(a), u32(b), u32(c))[0] == sorted([s32(a), s32(b), s32(c)])[1] & M32
    assert one("v_med3_u32", u32(a), u32(b), u32(c))[0] == sorted([a, b, c])[1]
    assert one("v_min3_u32", u32(a), u32(b), u32(c))[0] == min(a, b, c)
    assert one("v_max3_i32", u32(a), u32(b), u32(c))[0] == max(s32(a), s32(b), s32(c)) & M32
    assert one("v_med3_i16", u32(a), u32(b), u32(c))[0] == sorted([s16(a), s16(b), s16(c)])[1] & 0xFFFF


@given(edgy32, edgy32, edgy32)
def test_sums_of_absolute_differences(a, b, c):
    def fields(x, w, n):
        return [(x >> (w * k)) & ((1 << w) - 1) for k in range(n)]
    sad8 = sum(abs(p - q) for p, q in zip(fields(a, 8, 4), fields(b, 8, 4)))
    assert one("v_sad_u8", u32(a), u32(b), u32(c))[0] == (sad8 + c) & M32
    assert one("v_sad_hi_u8", u32(a), u32(b), u32(c))[0] == ((sad8 << 16) + c) & M32
    sad16 = sum(abs(p - q) for p, q in zip(fields(a, 16, 2), fields(b, 16, 2)))
    assert one("v_sad_u16", u32(a), u32(b), u32(c))[0] == (sad16 + c) & M32
    assert one("v_sad_u32", u32(a), u32(b), u32(c))[0] == (abs(a - b) + c) & M32
    msad = sum(abs(p - q) for p, q in zip(fields(a, 8, 4), fields(b, 8, 4)) if q)
    assert one("v_msad_u8", u32(a), u32(b), u32(c))[0] == (msad + c) & M32


@given(edgy32, edgy32)
def test_16_bit_arithmetic(a, b):
    assert one("v_add_nc_u16", u32(a), u32(b))[0] == (a + b) & 0xFFFF
    assert one("v_add_nc_u16", u32(a), u32(b), clamp=True)[0] == min((a & 0xFFFF) + (b & 0xFFFF), 0xFFFF)
    assert one("v_sub_nc_u16", u32(a), u32(b), clamp=True)[0] == max((a & 0xFFFF) - (b & 0xFFFF), 0)
    assert one("v_add_nc_i16", u32(a), u32(b), clamp=True)[0] == max(min(s16(a) + s16(b), 32767), -32768) & 0xFFFF
    assert one("v_mul_lo_u16", u32(a), u32(b))[0] == (a * b) & 0xFFFF
    assert one("v_mad_u32_u16", u32(a), u32(b), u32(a))[0] == ((a & 0xFFFF) * (b & 0xFFFF) + a) & M32
    assert one("v_mad_i32_i16", u32(a), u32(b), u32(b))[0] == (s16(a) * s16(b) + s32(b)) & M32
    assert one("v_min_i16", u32(a), u32(b))[0] == min(s16(a), s16(b)) & 0xFFFF
    assert one("v_max_u16", u32(a), u32(b))[0] == max(a & 0xFFFF, b & 0xFFFF)


@given(edgy32, edgy32)
def test_saturating_packs(a, b):
    assert one("v_cvt_pk_u16_u32", u32(a), u32(b))[0] == min(a, 0xFFFF) | (min(b, 0xFFFF) << 16)
    lo, hi = (max(min(s32(v), 32767), -32768) & 0xFFFF for v in (a, b))
    assert one("v_cvt_pk_i16_i32", u32(a), u32(b))[0] == lo | (hi << 16)
    sat = [max(min(s16(v), 255), 0) for v in (a, a >> 16)]
    assert one("v_sat_pk_u8_i16", u32(a))[0] == sat[0] | (sat[1] << 8)


@given(word32, word32, st.booleans())
def test_cndmask_selects_src1_where_the_mask_is_set(a, b, m):
    assert one("v_cndmask_b32", u32(a), u32(b), np.array([m]))[0] == (b if m else a)


def test_lerp_u8_averages_bytes_rounding_with_src2_bit():
    assert one("v_lerp_u8", u32(0x01020304), u32(0x03020100), u32(0x01000100))[0] == 0x02020202
    assert one("v_lerp_u8", u32(0xFF), u32(0xFF), u32(1))[0] == 0xFF


@given(st.integers(0, 2**64 - 1), edgy32, st.integers(0, 2**64 - 1))
def test_quad_sads_slide_a_window_over_src0(a, b, c):
    def sad(x, y, masked):
        return sum(0 if masked and (y >> 8 * i) & 0xFF == 0 else abs(((x >> 8 * i) & 0xFF) - ((y >> 8 * i) & 0xFF))
                   for i in range(4))
    for name, masked in (("v_qsad_pk_u16_u8", False), ("v_mqsad_pk_u16_u8", True)):
        want = 0
        for k in range(4):
            window = (a >> (8 * k)) & M32
            want |= ((sad(window, b, masked) + ((c >> (16 * k)) & 0xFFFF)) & 0xFFFF) << (16 * k)
        assert one(name, u64(a), u32(b), u64(c))[0] == want, name
