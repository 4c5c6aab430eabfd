"""VALU integer operations: 16/32/64-bit arithmetic with carries, multiplies, shifts, bit fields.

Invariants:
- results wrap modulo 2^width unless the op saturates (clamp on adds/subs, cvt_pk_*);
- shift counts use only their low log2(width) bits (a 32-bit shift by 33 shifts by 1);
- carry/borrow outputs are per-lane bools: carry = the unsigned result did not fit,
  borrow = the subtraction went below zero (what VCC/sdst receive);
- v_mov_b32 and v_cndmask_b32 move bits: neg/abs flip or clear the sign bit, nothing else
  (no denormal flushing, a signalling NaN stays signalling).
Sources: RDNA2/CDNA ISA guides' per-opcode descriptions.
"""
import numpy as np

from core.isa.alu import intmath as M
from core.isa.alu.table import op

U16 = np.uint32(0xFFFF)
U32 = np.uint32
U64 = np.uint64
I32 = np.int32
I64 = np.int64
MAX32 = U64(0xFFFFFFFF)


def _u(x):
    return np.asarray(x, dtype=U32)


def _wide(x):
    return np.asarray(x, dtype=U32).astype(U64)


def _s(x):
    return np.asarray(x, dtype=U32).view(I32).astype(I64)


def _lo32(x):
    return (x & MAX32).astype(U32)


def _sat_s32(v, clamp):
    return (np.clip(v, -2**31, 2**31 - 1) if clamp else v).astype(I64).astype(I32).view(U32)


# --- add / sub -----------------------------------------------------------------------------

@op("u32 u32 -> u32", "v_add_nc_u32", int_clamp=True)
def _add_u32(a, b, clamp=False):
    s = _wide(a) + _wide(b)
    return np.minimum(s, MAX32).astype(U32) if clamp else _lo32(s)


@op("u32 u32 -> u32", "v_sub_nc_u32", int_clamp=True)
def _sub_u32(a, b, clamp=False):
    d = _wide(a).astype(I64) - _wide(b).astype(I64)
    return np.maximum(d, 0).astype(U32) if clamp else d.astype(U32)


@op("u32 u32 -> u32", "v_subrev_nc_u32", int_clamp=True)
def _subrev_u32(a, b, clamp=False):
    return _sub_u32(b, a, clamp)


@op("i32 i32 -> i32", "v_add_nc_i32", int_clamp=True)
def _add_i32(a, b, clamp=False):
    return _sat_s32(_s(a) + _s(b), clamp)


@op("i32 i32 -> i32", "v_sub_nc_i32", int_clamp=True)
def _sub_i32(a, b, clamp=False):
    return _sat_s32(_s(a) - _s(b), clamp)


@op("u32 u32 -> u32 mask", "v_add_co_u32", int_clamp=True)
def _add_co(a, b, clamp=False):
    s = _wide(a) + _wide(b)
    return (np.minimum(s, MAX32).astype(U32) if clamp else _lo32(s)), s > MAX32


@op("u32 u32 -> u32 mask", "v_sub_co_u32", int_clamp=True)
def _sub_co(a, b, clamp=False):
    return _sub_u32(a, b, clamp), _u(b) > _u(a)


@op("u32 u32 -> u32 mask", "v_subrev_co_u32", int_clamp=True)
def _subrev_co(a, b, clamp=False):
    return _sub_co(b, a, clamp)


@op("u32 u32 mask -> u32 mask", "v_add_co_ci_u32", int_clamp=True)
def _addc(a, b, c, clamp=False):
    s = _wide(a) + _wide(b) + np.asarray(c).astype(U64)
    return (np.minimum(s, MAX32).astype(U32) if clamp else _lo32(s)), s > MAX32


@op("u32 u32 mask -> u32 mask", "v_sub_co_ci_u32", int_clamp=True)
def _subb(a, b, c, clamp=False):
    d = _wide(a).astype(I64) - _wide(b).astype(I64) - np.asarray(c).astype(I64)
    return (np.maximum(d, 0).astype(U32) if clamp else d.astype(U32)), d < 0


@op("u32 u32 mask -> u32 mask", "v_subrev_co_ci_u32", int_clamp=True)
def _subbrev(a, b, c, clamp=False):
    return _subb(b, a, c, clamp)


@op("u32 u32 u32 -> u32", "v_add3_u32")
def _add3(a, b, c):
    return _lo32(_wide(a) + _wide(b) + _wide(c))


@op("u32 u32 u32 -> u32", "v_xad_u32")
def _xad(a, b, c):
    return (_u(a) ^ _u(b)) + _u(c)


# --- multiplies ----------------------------------------------------------------------------

@op("u32 u32 -> u32", "v_mul_lo_u32")
def _mul_lo(a, b):
    return _lo32(_wide(a) * _wide(b))


@op("u32 u32 -> u32", "v_mul_hi_u32")
def _mul_hi_u(a, b):
    return ((_wide(a) * _wide(b)) >> U64(32)).astype(U32)


@op("i32 i32 -> i32", "v_mul_hi_i32")
def _mul_hi_i(a, b):
    return ((_s(a) * _s(b)) >> I64(32)).astype(U32)


def _u24(x):
    return _wide(x) & U64(0xFFFFFF)


def _i24(x):
    return M.sext(_u(x), 24).view(I32).astype(I64)


@op("u32 u32 -> u32", "v_mul_u32_u24")
def _mul_u24(a, b):
    return _lo32(_u24(a) * _u24(b))


@op("u32 u32 -> u32", "v_mul_hi_u32_u24")
def _mul_hi_u24(a, b):
    return ((_u24(a) * _u24(b)) >> U64(32)).astype(U32)


@op("i32 i32 -> i32", "v_mul_i32_i24")
def _mul_i24(a, b):
    return (_i24(a) * _i24(b)).astype(U64).astype(U32)


@op("i32 i32 -> i32", "v_mul_hi_i32_i24")
def _mul_hi_i24(a, b):
    return ((_i24(a) * _i24(b)) >> I64(32)).astype(U32)


@op("u32 u32 u32 -> u32", "v_mad_u32_u24", int_clamp=True)
def _mad_u24(a, b, c, clamp=False):
    s = _u24(a) * _u24(b) + _wide(c)
    return np.minimum(s, MAX32).astype(U32) if clamp else _lo32(s)


@op("i32 i32 i32 -> i32", "v_mad_i32_i24", int_clamp=True)
def _mad_i24(a, b, c, clamp=False):
    return _sat_s32(_i24(a) * _i24(b) + _s(c), clamp)


@op("u32 u32 u64 -> u64 mask", "v_mad_u64_u32")
def _mad_u64(a, b, c):
    p = _wide(a) * _wide(b)
    s = p + np.asarray(c, dtype=U64)
    return s, s < p


@op("i32 i32 i64 -> i64 mask", "v_mad_i64_i32")
def _mad_i64(a, b, c):
    p = _s(a) * _s(b)
    c = np.asarray(c, dtype=U64).view(I64)
    s = (p.view(U64) + c.view(U64)).view(I64)
    overflow = ((p < 0) == (c < 0)) & ((s < 0) != (p < 0))
    # The carry-out is bit 64 of the 65-bit signed sum: its sign.
    return s.view(U64), (s < 0) != overflow


@op("u16 u16 -> u16", "v_mul_lo_u16")
def _mul_lo16(a, b):
    return (a * b) & U16


@op("u16 u16 u16 -> u16", "v_mad_u16", int_clamp=True)
def _mad_u16(a, b, c, clamp=False):
    s = _wide(a) * _wide(b) + _wide(c)
    return (np.minimum(s, 0xFFFF) if clamp else s & U64(0xFFFF)).astype(U32)


@op("i16 i16 i16 -> i16", "v_mad_i16", int_clamp=True)
def _mad_i16(a, b, c, clamp=False):
    s = _s16(a) * _s16(b) + _s16(c)
    return _pack_s16(np.clip(s, -32768, 32767) if clamp else s)


@op("u16 u16 u32 -> u32", "v_mad_u32_u16", int_clamp=True)
def _mad_u32_u16(a, b, c, clamp=False):
    s = _wide(a) * _wide(b) + _wide(c)
    return np.minimum(s, MAX32).astype(U32) if clamp else _lo32(s)


@op("i16 i16 i32 -> i32", "v_mad_i32_i16", int_clamp=True)
def _mad_i32_i16(a, b, c, clamp=False):
    return _sat_s32(_s16(a) * _s16(b) + _s(c), clamp)


# --- 16-bit add / sub / shifts / min-max ----------------------------------------------------

def _s16(x):
    return M.sext(_u(x), 16).view(I32).astype(I64)


def _pack_s16(v):
    return (np.asarray(v).astype(I64) & 0xFFFF).astype(U32)


@op("u16 u16 -> u16", "v_add_nc_u16", int_clamp=True)
def _add_u16(a, b, clamp=False):
    s = a + b
    return np.minimum(s, U16) if clamp else s & U16


@op("u16 u16 -> u16", "v_sub_nc_u16", int_clamp=True)
def _sub_u16(a, b, clamp=False):
    d = _s(a) - _s(b)
    return (np.maximum(d, 0) if clamp else d & 0xFFFF).astype(U32)


op("u16 u16 -> u16", "v_subrev_u16", int_clamp=True)(        # gfx9
    lambda a, b, clamp=False: _sub_u16(b, a, clamp))


@op("i16 i16 -> i16", "v_add_nc_i16", int_clamp=True)
def _add_i16(a, b, clamp=False):
    s = _s16(a) + _s16(b)
    return _pack_s16(np.clip(s, -32768, 32767) if clamp else s)


@op("i16 i16 -> i16", "v_sub_nc_i16", int_clamp=True)
def _sub_i16(a, b, clamp=False):
    s = _s16(a) - _s16(b)
    return _pack_s16(np.clip(s, -32768, 32767) if clamp else s)


@op("u16 u16 -> u16", "v_lshlrev_b16")
def _lshl16(s, x):
    return (x << (s & U32(15))) & U16


@op("u16 u16 -> u16", "v_lshrrev_b16")
def _lshr16(s, x):
    return x >> (s & U32(15))


@op("u16 i16 -> i16", "v_ashrrev_i16")
def _ashr16(s, x):
    return _pack_s16(_s16(x) >> (s & U32(15)).astype(I64))


# gfx11's 16-bit moves and bit operations (clang-21 uses them on register halves, true16)
op("b16 -> b16", "v_mov_b16")(_u)
op("b16 -> b16", "v_not_b16")(lambda a: ~_u(a) & U16)
op("b16 b16 -> b16", "v_and_b16")(lambda a, b: a & b)
op("b16 b16 -> b16", "v_or_b16")(lambda a, b: a | b)
op("b16 b16 -> b16", "v_xor_b16")(lambda a, b: a ^ b)
op("i16 -> i32", "v_cvt_i32_i16")(lambda a: M.sext(_u(a), 16))
op("u16 -> u32", "v_cvt_u32_u16")(_u)
# Moves bits, as v_cndmask_b32 does: neg/abs flip or clear the sign bit (f16's, bit 15).
op("f16 f16 mask -> f16", "v_cndmask_b16", ftz=False, own_nans=True)(
    lambda a, b, sel: np.where(sel, b, a))
op("u16 u16 -> u16", "v_min_u16")(np.minimum)
op("u16 u16 -> u16", "v_max_u16")(np.maximum)
op("i16 i16 -> i16", "v_min_i16")(lambda a, b: _pack_s16(np.minimum(_s16(a), _s16(b))))
op("i16 i16 -> i16", "v_max_i16")(lambda a, b: _pack_s16(np.maximum(_s16(a), _s16(b))))


# --- 32/64-bit shifts and bit operations ----------------------------------------------------

@op("u32 u32 -> u32", "v_lshlrev_b32")
def _lshl(s, x):
    return x << (s & U32(31))


@op("u32 u32 -> u32", "v_lshrrev_b32")
def _lshr(s, x):
    return x >> (s & U32(31))


@op("u32 i32 -> i32", "v_ashrrev_i32")
def _ashr(s, x):
    return (_u(x).view(I32) >> (s & U32(31)).astype(I32)).view(U32)


@op("u32 u64 -> u64", "v_lshlrev_b64")
def _lshl64(s, x):
    return np.asarray(x, dtype=U64) << (_wide(s) & U64(63))


# gfx940+: a 64-bit address step in one op; the shift takes S1's low 3 bits (llvm accepts 0..4).
op("u64 u32 u64 -> u64", "v_lshl_add_u64")(
    lambda a, s, c: (np.asarray(a, dtype=U64) << (_wide(s) & U64(7))) + np.asarray(c, dtype=U64))


@op("u32 u64 -> u64", "v_lshrrev_b64")
def _lshr64(s, x):
    return np.asarray(x, dtype=U64) >> (_wide(s) & U64(63))


@op("u32 i64 -> i64", "v_ashrrev_i64")
def _ashr64(s, x):
    return (np.asarray(x, dtype=U64).view(I64) >> (_wide(s) & U64(63)).astype(I64)).view(U64)


op("b32 b32 -> b32", "v_and_b32")(lambda a, b: a & b)
op("b32 b32 -> b32", "v_or_b32")(lambda a, b: a | b)
op("b32 b32 -> b32", "v_xor_b32")(lambda a, b: a ^ b)
op("b32 b32 -> b32", "v_xnor_b32")(lambda a, b: ~(a ^ b))
op("b32 -> b32", "v_not_b32")(lambda a: ~_u(a))
op("b32 b32 b32 -> b32", "v_or3_b32")(lambda a, b, c: a | b | c)
op("b32 b32 b32 -> b32", "v_xor3_b32")(lambda a, b, c: a ^ b ^ c)
op("b32 b32 b32 -> b32", "v_and_or_b32")(lambda a, b, c: (a & b) | c)
op("b32 u32 b32 -> b32", "v_lshl_or_b32")(lambda a, s, c: (a << (s & U32(31))) | c)
op("u32 u32 u32 -> u32", "v_lshl_add_u32")(lambda a, s, c: (a << (s & U32(31))) + c)
op("u32 u32 u32 -> u32", "v_add_lshl_u32")(lambda a, b, s: (a + b) << (s & U32(31)))
op("b32 b32 b32 -> b32", "v_bfi_b32")(lambda m, a, b: (m & a) | (~m & b))


def _bitop3(a, b, c, table):
    """gfx950: any function of three bits, by its truth table: result bit j is table bit
    (a_j << 2 | b_j << 1 | c_j), so table 0xF0 is a, 0xCC b, 0xAA c (0x78: a ^ (b & c))."""
    a, b, c, table = _u(a), _u(b), _u(c), _u(table)
    out = U32(0)
    for i in range(8):
        term = (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
        out = out | np.where((table >> U32(i)) & U32(1), term, U32(0))
    return out


op("b32 b32 b32 u32 -> b32", "v_bitop3_b32")(_bitop3)
op("b16 b16 b16 u32 -> b16", "v_bitop3_b16")(lambda a, b, c, table: _bitop3(a, b, c, table) & U16)
op("u32 u32 -> b32", "v_bfm_b32")(
    lambda w, o: M.low_mask(w & U32(31), U32) << (o & U32(31)))
op("b32 -> b32", "v_bfrev_b32")(M.brev32)
op("b32 -> u32", "v_ffbh_u32")(lambda a: M.clz(_u(a), 32))
op("b32 -> u32", "v_ffbl_b32")(lambda a: M.ctz(_u(a)))
op("i32 -> u32", "v_ffbh_i32")(lambda a: M.cls(_u(a), 32))
op("b32 u32 -> u32", "v_bcnt_u32_b32")(lambda a, b: M.popcount(a) + b)


@op("b32 u32 u32 -> u32", "v_bfe_u32")
def _bfe_u(x, off, width):
    return (x >> (off & U32(31))) & M.low_mask(width & U32(31), U32)


@op("i32 u32 u32 -> i32", "v_bfe_i32")
def _bfe_i(x, off, width):
    shifted = (_u(x).view(I32) >> (off & U32(31)).astype(I32)).view(U32)
    w = width & U32(31)
    return M.sext(shifted & M.low_mask(w, U32), w)


@op("b32 b32 u32 -> b32", "v_alignbit_b32")
def _alignbit(hi, lo, s):
    return _lo32(((_wide(hi) << U64(32)) | _wide(lo)) >> (_wide(s) & U64(31)))


@op("b32 b32 u32 -> b32", "v_alignbyte_b32")
def _alignbyte(hi, lo, s):
    return _lo32(((_wide(hi) << U64(32)) | _wide(lo)) >> ((_wide(s) & U64(3)) * U64(8)))


@op("b32 b32 b32 -> b32", "v_perm_b32")
def _perm(s0, s1, sel):
    data = (_wide(s0) << U64(32)) | _wide(s1)
    out = np.zeros(np.broadcast(s0, s1, sel).shape, dtype=U32)
    for k in range(4):  # four output bytes: a fixed unrolled loop, not a lane loop
        sk = (_u(sel) >> U32(8 * k)) & U32(0xFF)
        plain = ((data >> (sk.astype(U64) & U64(7)) * U64(8)) & U64(0xFF)).astype(U32)
        # Selectors 8..11 replicate the sign bit of bytes 1, 3, 5, 7.
        sign_byte = ((data >> ((sk.astype(U64) & U64(3)) * U64(16) + U64(15))) & U64(1)).astype(U32) * U32(0xFF)
        b = np.where(sk < 8, plain, np.where(sk < 12, sign_byte, np.where(sk == 12, U32(0), U32(0xFF))))
        out |= b << U32(8 * k)
    return out


@op("b32 b32 lane -> u32", "v_mbcnt_lo_u32_b32")
def _mbcnt_lo(mask, acc, lane):
    below = M.low_mask(np.minimum(_u(lane), 32), U32)
    return M.popcount(_u(mask) & below) + _u(acc)


@op("b32 b32 lane -> u32", "v_mbcnt_hi_u32_b32")
def _mbcnt_hi(mask, acc, lane):
    below = M.low_mask(np.maximum(_u(lane).astype(I64) - 32, 0), U32)
    return M.popcount(_u(mask) & below) + _u(acc)


# --- min / max / med3 / sad -----------------------------------------------------------------

def _med3(a, b, c):
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))


op("u32 u32 -> u32", "v_min_u32")(np.minimum)
op("u32 u32 -> u32", "v_max_u32")(np.maximum)
op("i32 i32 -> i32", "v_min_i32")(lambda a, b: np.minimum(_u(a).view(I32), _u(b).view(I32)).view(U32))
op("i32 i32 -> i32", "v_max_i32")(lambda a, b: np.maximum(_u(a).view(I32), _u(b).view(I32)).view(U32))
op("u32 u32 u32 -> u32", "v_min3_u32")(lambda a, b, c: np.minimum(np.minimum(a, b), c))
op("u32 u32 u32 -> u32", "v_max3_u32")(lambda a, b, c: np.maximum(np.maximum(a, b), c))
op("u32 u32 u32 -> u32", "v_med3_u32")(_med3)
op("i32 i32 i32 -> i32", "v_min3_i32")(
    lambda a, b, c: np.minimum(np.minimum(_u(a).view(I32), _u(b).view(I32)), _u(c).view(I32)).view(U32))
op("i32 i32 i32 -> i32", "v_max3_i32")(
    lambda a, b, c: np.maximum(np.maximum(_u(a).view(I32), _u(b).view(I32)), _u(c).view(I32)).view(U32))
op("i32 i32 i32 -> i32", "v_med3_i32")(
    lambda a, b, c: _med3(_u(a).view(I32), _u(b).view(I32), _u(c).view(I32)).view(U32))
op("u16 u16 u16 -> u16", "v_min3_u16")(lambda a, b, c: np.minimum(np.minimum(a, b), c))
op("u16 u16 u16 -> u16", "v_max3_u16")(lambda a, b, c: np.maximum(np.maximum(a, b), c))
op("u16 u16 u16 -> u16", "v_med3_u16")(_med3)
op("i16 i16 i16 -> i16", "v_min3_i16")(
    lambda a, b, c: _pack_s16(np.minimum(np.minimum(_s16(a), _s16(b)), _s16(c))))
op("i16 i16 i16 -> i16", "v_max3_i16")(
    lambda a, b, c: _pack_s16(np.maximum(np.maximum(_s16(a), _s16(b)), _s16(c))))
op("i16 i16 i16 -> i16", "v_med3_i16")(lambda a, b, c: _pack_s16(_med3(_s16(a), _s16(b), _s16(c))))


def _absdiff_fields(a, b, width, count):
    total = np.zeros(np.broadcast(a, b).shape, dtype=I64)
    mask = (1 << width) - 1
    for k in range(count):  # fixed per-field unroll (4 bytes or 2 halves)
        fa = (_s(a) >> (width * k)) & mask
        fb = (_s(b) >> (width * k)) & mask
        total = total + np.abs(fa - fb)
    return total


op("u32 u32 u32 -> u32", "v_sad_u8")(lambda a, b, c: _absdiff_fields(a, b, 8, 4).astype(U32) + _u(c))
op("u32 u32 u32 -> u32", "v_sad_hi_u8")(
    lambda a, b, c: ((_absdiff_fields(a, b, 8, 4).astype(U32) << U32(16)) + _u(c)))
op("u32 u32 u32 -> u32", "v_sad_u16")(lambda a, b, c: _absdiff_fields(a, b, 16, 2).astype(U32) + _u(c))
op("u32 u32 u32 -> u32", "v_sad_u32")(
    lambda a, b, c: (np.abs(_wide(a).astype(I64) - _wide(b).astype(I64)).astype(U32)) + _u(c))


@op("u32 u32 u32 -> u32", "v_lerp_u8")
def _lerp(a, b, c):
    out = np.zeros(np.broadcast(a, b, c).shape, dtype=U32)
    for k in range(4):  # per byte: rounded average, the rounding bit from src2's byte
        fa, fb = (_wide(a) >> U64(8 * k)) & U64(0xFF), (_wide(b) >> U64(8 * k)) & U64(0xFF)
        fc = (_wide(c) >> U64(8 * k)) & U64(1)
        out |= (((fa + fb + fc) >> U64(1)).astype(U32)) << U32(8 * k)
    return out


@op("u32 u32 u32 -> u32", "v_msad_u8")
def _msad(a, b, c):
    total = np.zeros(np.broadcast(a, b).shape, dtype=I64)
    for k in range(4):  # bytes where the reference (src1) byte is 0 do not count
        fa = (_s(a) >> (8 * k)) & 0xFF
        fb = (_s(b) >> (8 * k)) & 0xFF
        total = total + np.where(fb == 0, 0, np.abs(fa - fb))
    return total.astype(U32) + _u(c)


def _quad_sad(masked):
    """v_qsad_pk_u16_u8 / v_mqsad_pk_u16_u8: four (m)sad_u8 of S1 against the byte windows
    S0[8k+31:8k], each accumulating into and truncated to the 16-bit field k of S2."""
    def qsad(a, b, c):
        a, c = np.asarray(a, dtype=U64), np.asarray(c, dtype=U64)
        out = np.zeros(np.broadcast(a, b, c).shape, dtype=U64)
        for k in range(4):  # fixed four windows
            window = ((a >> U64(8 * k)) & MAX32).astype(U32)
            acc = ((c >> U64(16 * k)) & U64(0xFFFF)).astype(U32)
            total = _msad(window, b, acc) if masked else _absdiff_fields(window, b, 8, 4).astype(U32) + acc
            out |= (total.astype(U64) & U64(0xFFFF)) << U64(16 * k)
        return out
    return qsad


op("b64 b32 b64 -> b64", "v_qsad_pk_u16_u8")(_quad_sad(False))
op("b64 b32 b64 -> b64", "v_mqsad_pk_u16_u8")(_quad_sad(True))


# --- packing with saturation ---------------------------------------------------------------

@op("u32 u32 -> b32", "v_cvt_pk_u16_u32")
def _pk_u16(a, b):
    return np.minimum(_u(a), U16) | (np.minimum(_u(b), U16) << U32(16))


@op("i32 i32 -> b32", "v_cvt_pk_i16_i32")
def _pk_i16(a, b):
    return _pack_s16(np.clip(_s(a), -32768, 32767)) | (_pack_s16(np.clip(_s(b), -32768, 32767)) << U32(16))


@op("b32 -> b32", "v_sat_pk_u8_i16")
def _sat_pk_u8(a):
    lo = np.clip(_s16(a), 0, 255).astype(U32)
    hi = np.clip(_s16(_u(a) >> U32(16)), 0, 255).astype(U32)
    return lo | (hi << U32(8))


# gfx940+: a 64-bit VGPR move; bits only.
op("u64 -> u64", "v_mov_b64")(lambda a: np.asarray(a, dtype=U64))


@op("f32 f32 mask -> f32", "v_cndmask_b32", ftz=False, own_nans=True)
def _cndmask(a, b, sel):
    return np.where(sel, b, a)


@op("f32 -> f32", "v_mov_b32", ftz=False, own_nans=True)
def _mov(a):
    return _u(a)
