"""SALU semantics: results and SCC for every family, per wave ([waves] arrays)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.isa.alu_support import edgy32, one, run, s32, u32, u64, word64

pytestmark = pytest.mark.usefixtures("alu_impl")

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def scc(*values):
    return np.array(values, dtype=bool)


@given(edgy32, edgy32, st.booleans())
def test_add_sub_scc_is_carry_borrow_or_signed_overflow(a, b, c):
    d, s = run("s_add_u32", u32(a), u32(b))
    assert (int(d[0]), bool(s[0])) == ((a + b) & M32, a + b > M32)
    d, s = run("s_sub_u32", u32(a), u32(b))
    assert (int(d[0]), bool(s[0])) == ((a - b) & M32, b > a)
    d, s = run("s_addc_u32", u32(a), u32(b), scc(c))
    assert (int(d[0]), bool(s[0])) == ((a + b + c) & M32, a + b + c > M32)
    d, s = run("s_subb_u32", u32(a), u32(b), scc(c))
    assert (int(d[0]), bool(s[0])) == ((a - b - c) & M32, b + c > a)
    total = s32(a) + s32(b)
    d, s = run("s_add_i32", u32(a), u32(b))
    assert (int(d[0]), bool(s[0])) == (total & M32, not -2**31 <= total < 2**31)
    diff = s32(a) - s32(b)
    d, s = run("s_sub_i32", u32(a), u32(b))
    assert (int(d[0]), bool(s[0])) == (diff & M32, not -2**31 <= diff < 2**31)


@given(edgy32, edgy32)
def test_multiplies_and_min_max(a, b):
    assert one("s_mul_i32", u32(a), u32(b))[0] == (s32(a) * s32(b)) & M32
    assert one("s_mul_hi_u32", u32(a), u32(b))[0] == (a * b) >> 32
    assert one("s_mul_hi_i32", u32(a), u32(b))[0] == ((s32(a) * s32(b)) >> 32) & M32
    d, s = run("s_min_i32", u32(a), u32(b))
    assert (int(d[0]), bool(s[0])) == (min(s32(a), s32(b)) & M32, s32(a) < s32(b))
    d, s = run("s_max_u32", u32(a), u32(b))
    assert (int(d[0]), bool(s[0])) == (max(a, b), a > b)
    d, s = run("s_absdiff_i32", u32(a), u32(b))
    assert int(d[0]) == abs(s32(a) - s32(b)) & M32 and bool(s[0]) == (int(d[0]) != 0)


@given(word64, word64)
def test_64_bit_logic_sets_scc_when_the_result_is_nonzero(a, b):
    refs = {"and": a & b, "or": a | b, "xor": a ^ b, "andn2": a & ~b & M64, "orn2": (a | ~b) & M64,
            "nand": ~(a & b) & M64, "nor": ~(a | b) & M64, "xnor": ~(a ^ b) & M64}
    for name, want in refs.items():
        d, s = run(f"s_{name}_b64", u64(a), u64(b))
        assert (int(d[0]), bool(s[0])) == (want, want != 0), name
        d32, s32_ = run(f"s_{name}_b32", u32(a), u32(b))
        assert int(d32[0]) == want & M32 and bool(s32_[0]) == (want & M32 != 0), name


def test_scc_for_zero_results():
    assert list(run("s_and_b32", u32(0xF0, 0xF0), u32(0x0F, 0x10))[1]) == [False, True]
    assert not run("s_not_b32", u32(M32))[1][0]


@given(edgy32, edgy32, word64)
def test_shifts_mask_their_counts(x, s, y):
    d, c = run("s_lshl_b32", u32(x), u32(s))
    assert int(d[0]) == (x << (s & 31)) & M32 and bool(c[0]) == (int(d[0]) != 0)
    assert one("s_lshr_b32", u32(x), u32(s))[0] == x >> (s & 31)
    assert one("s_ashr_i32", u32(x), u32(s))[0] == (s32(x) >> (s & 31)) & M32
    assert one("s_lshl_b64", u64(y), u32(s))[0] == (y << (s & 63)) & M64
    assert one("s_lshr_b64", u64(y), u32(s))[0] == y >> (s & 63)
    sy = y - 2**64 if y >> 63 else y
    assert one("s_ashr_i64", u64(y), u32(s))[0] == (sy >> (s & 63)) & M64


@given(edgy32, st.integers(0, 31), st.integers(0, 127), word64, st.integers(0, 63))
def test_bfe_reads_offset_and_width_from_one_operand(x, off, width, y, off64):
    d, c = run("s_bfe_u32", u32(x), u32(off | (width << 16)))
    want = (x >> off) & ((1 << width) - 1)
    assert (int(d[0]), bool(c[0])) == (want, want != 0)
    field = (s32(x) >> off) & ((1 << min(width, 32)) - 1)
    if 0 < width < 32 and field >> (width - 1):
        field -= 1 << width
    assert one("s_bfe_i32", u32(x), u32(off | (width << 16)))[0] == (0 if width == 0 else field & M32)
    assert one("s_bfe_u64", u64(y), u32(off64 | (width << 16)))[0] == (y >> off64) & ((1 << width) - 1) & M64


def test_bit_search_and_count_ops():
    assert [int(v) for v in one("s_ff1_i32_b32", u32(0, 8, 0x80000000))] == [M32, 3, 31]
    assert [int(v) for v in one("s_ff0_i32_b32", u32(M32, 0b0111))] == [M32, 3]
    assert [int(v) for v in one("s_ff1_i32_b64", u64(0, 1 << 40))] == [M32, 40]
    assert [int(v) for v in one("s_flbit_i32_b32", u32(0, 1, 0x00010000))] == [M32, 31, 15]
    assert [int(v) for v in one("s_flbit_i32_b64", u64(0, 1 << 40))] == [M32, 23]
    assert [int(v) for v in one("s_flbit_i32", u32(0, M32, 0x40000000, 0xFFFF0000))] == [M32, M32, 1, 16]
    assert [int(v) for v in one("s_flbit_i32_i64", u64(M64, 1 << 40))] == [M32, 23]
    d, c = run("s_bcnt1_i32_b64", u64(0, M64))
    assert list(d) == [0, 64] and list(c) == [False, True]
    assert list(one("s_bcnt0_i32_b32", u32(0, M32))) == [32, 0]
    assert one("s_brev_b32", u32(1))[0] == 0x80000000
    assert one("s_brev_b64", u64(1))[0] == 1 << 63


def test_sign_extension_abs_and_bit_set():
    assert [s32(v) for v in one("s_sext_i32_i8", u32(0x80, 0x7F, 0x1FF))] == [-128, 127, -1]
    assert [s32(v) for v in one("s_sext_i32_i16", u32(0x8000))] == [-32768]
    d, c = run("s_abs_i32", u32(-5, 0, 0x80000000))
    assert [int(v) for v in d] == [5, 0, 0x80000000] and list(c) == [True, False, True]
    assert one("s_bitset1_b32", u32(33), u32(0))[0] == 2            # index uses 5 bits
    assert one("s_bitset0_b64", u32(40), u64(M64))[0] == M64 & ~(1 << 40)
    assert list(one("s_bitcmp1_b32", u32(0b100), u32(2, 1))) == [True, False]
    assert list(one("s_bitcmp0_b64", u64(1 << 50), u32(50, 51))) == [False, True]


def test_select_move_and_bfm():
    assert list(one("s_cselect_b32", u32(1, 1), u32(2, 2), scc(True, False))) == [1, 2]
    assert list(one("s_cselect_b64", u64(1 << 40), u64(2), scc(True))) == [1 << 40]
    assert list(one("s_cmov_b32", u32(7, 7), u32(3, 3), scc(True, False))) == [7, 3]
    assert one("s_bfm_b32", u32(4), u32(8))[0] == 0xF00
    assert one("s_bfm_b64", u32(36), u32(4))[0] == ((1 << 36) - 1) << 4


def test_lshl_add_carries_out_shifted_bits():
    d, c = run("s_lshl2_add_u32", u32(0x40000000), u32(1))
    assert int(d[0]) == 1 and c[0]
    d, c = run("s_lshl4_add_u32", u32(3), u32(4))
    assert int(d[0]) == 52 and not c[0]


def test_saveexec_returns_old_exec_new_exec_and_scc():
    old, new, c = run("s_and_saveexec_b64", u64(0b1100, 0), u64(0b1010, 0b1))
    assert list(old) == [0b1010, 0b1] and list(new) == [0b1000, 0] and list(c) == [True, False]
    old, new, c = run("s_andn2_saveexec_b32", u32(0b1100), u32(0b1010))
    assert int(new[0]) == 0b0100
    old, new, c = run("s_orn1_saveexec_b32", u32(M32), u32(0b1010))
    assert int(new[0]) == 0b1010
    dst, new, c = run("s_andn2_wrexec_b32", u32(0b1100), u32(0b1010))
    assert int(dst[0]) == int(new[0]) == 0b0100 and c[0]


def test_wqm_quadmask_and_bitreplicate():
    d, c = run("s_wqm_b32", u32(0x00000110))
    assert int(d[0]) == 0x00000FF0 and c[0]
    assert one("s_quadmask_b32", u32(0x0000F010))[0] == 0b1010
    assert one("s_quadmask_b64", u64(1 << 63))[0] == 1 << 15
    assert one("s_bitreplicate_b64_b32", u32(0b101))[0] == 0b110011


def test_pack_halves():
    assert one("s_pack_ll_b32_b16", u32(0x1111AAAA), u32(0x2222BBBB))[0] == 0xBBBBAAAA
    assert one("s_pack_lh_b32_b16", u32(0x1111AAAA), u32(0x2222BBBB))[0] == 0x2222AAAA
    assert one("s_pack_hh_b32_b16", u32(0x1111AAAA), u32(0x2222BBBB))[0] == 0x22221111


@given(edgy32, edgy32)
def test_compares_write_scc(a, b):
    assert bool(one("s_cmp_lt_i32", u32(a), u32(b))[0]) == (s32(a) < s32(b))
    assert bool(one("s_cmp_ge_u32", u32(a), u32(b))[0]) == (a >= b)
    assert bool(one("s_cmp_lg_u32", u32(a), u32(b))[0]) == (a != b)
    assert bool(one("s_cmpk_le_i32", u32(a), u32(b))[0]) == (s32(a) <= s32(b))
    assert bool(one("s_cmp_eq_u64", u64(a << 32), u64(b << 32))[0]) == (a == b)


def test_sopk_arithmetic_reads_the_destination():
    d, c = run("s_addk_i32", u32(-1), u32(0x80000000))
    assert int(d[0]) == 0x7FFFFFFF and c[0]          # signed overflow sets SCC
    assert one("s_mulk_i32", u32(-3), u32(5))[0] == (-15) & M32
