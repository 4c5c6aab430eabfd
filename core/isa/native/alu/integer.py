"""VALU integer operations in IR: the emitters of core/isa/alu/integer.py, in its order.

Invariants (as the numpy family's):
- results wrap modulo 2^width unless the op saturates (clamp on adds/subs, cvt_pk_*);
- shift counts use only their low log2(width) bits;
- carry/borrow outputs are i1 per lane: carry = the unsigned result did not fit, borrow = the
  subtraction went below zero;
- wide intermediates are i64 where numpy computes in 64 bits, so each body reads like its
  numpy twin (LLVM narrows them back), except where LLVM keeps the wide form on vectors:
  carries of unclamped adds and subs, and 64-bit shifts, are computed on 32-bit halves.
"""
from core.isa.native.alu import intmath as M
from core.isa.native.alu.table import emits

MAX32 = 0xFFFFFFFF




def _lo32(k, x):
    return k.trunc(x, 32)


def _sat_s32(k, v, clamp):
    if clamp:
        v = k.smax(k.smin(v, 2**31 - 1), -2**31)
    return _lo32(k, v)


def _sat_u32(k, s, clamp):
    return _lo32(k, k.umin(s, MAX32) if clamp else s)


# --- add / sub -----------------------------------------------------------------------------

@emits("v_add_nc_u32")
def _add_u32(k, a, b, clamp=False):
    return _sat_u32(k, k.add(M.wide(k, a), M.wide(k, b)), clamp)


@emits("v_sub_nc_u32")
def _sub_u32(k, a, b, clamp=False):
    d = k.sub(M.wide(k, a), M.wide(k, b))
    return _lo32(k, k.smax(d, 0) if clamp else d)


@emits("v_subrev_nc_u32")
def _subrev_u32(k, a, b, clamp=False):
    return _sub_u32(k, b, a, clamp)


@emits("v_add_nc_i32")
def _add_i32(k, a, b, clamp=False):
    return _sat_s32(k, k.add(M.signed(k, a), M.signed(k, b)), clamp)


@emits("v_sub_nc_i32")
def _sub_i32(k, a, b, clamp=False):
    return _sat_s32(k, k.sub(M.signed(k, a), M.signed(k, b)), clamp)


@emits("v_add_co_u32")
def _add_co(k, a, b, clamp=False):
    if not clamp:   # the carry is the wrapped sum below an addend
        s = k.add(a, b)
        return s, k.icmp("<", s, a)
    s = k.add(M.wide(k, a), M.wide(k, b))
    return _sat_u32(k, s, clamp), k.icmp(">", s, MAX32)


@emits("v_sub_co_u32")
def _sub_co(k, a, b, clamp=False):
    return _sub_u32(k, a, b, clamp), k.icmp(">", b, a)


@emits("v_subrev_co_u32")
def _subrev_co(k, a, b, clamp=False):
    return _sub_co(k, b, a, clamp)


@emits("v_add_co_ci_u32")
def _addc(k, a, b, c, clamp=False):
    if not clamp:   # a carry out of either addition (at most one happens)
        t = k.add(a, b)
        s = k.add(t, k.zext(c, 32))
        return s, k.b.or_(k.icmp("<", t, a), k.icmp("<", s, t))
    s = k.add(k.add(M.wide(k, a), M.wide(k, b)), k.zext(c, 64))
    return _sat_u32(k, s, clamp), k.icmp(">", s, MAX32)


@emits("v_sub_co_ci_u32")
def _subb(k, a, b, c, clamp=False):
    if not clamp:   # a borrow out of either subtraction (at most one happens)
        t = k.sub(a, b)
        return k.sub(t, k.zext(c, 32)), k.b.or_(k.icmp("<", a, b), k.icmp("<", t, k.zext(c, 32)))
    d = k.sub(k.sub(M.wide(k, a), M.wide(k, b)), k.zext(c, 64))
    return _lo32(k, k.smax(d, 0) if clamp else d), k.scmp("<", d, 0)


@emits("v_subrev_co_ci_u32")
def _subbrev(k, a, b, c, clamp=False):
    return _subb(k, b, a, c, clamp)


@emits("v_add3_u32")
def _add3(k, a, b, c):
    return k.add(k.add(a, b), c)


@emits("v_xad_u32")
def _xad(k, a, b, c):
    return k.add(k.xor(a, b), c)


# --- multiplies ----------------------------------------------------------------------------

@emits("v_mul_lo_u32")
def _mul_lo(k, a, b):
    return k.mul(a, b)


@emits("v_mul_hi_u32")
def _mul_hi_u(k, a, b):
    return _lo32(k, k.lshr(k.mul(M.wide(k, a), M.wide(k, b)), 32))


@emits("v_mul_hi_i32")
def _mul_hi_i(k, a, b):
    return _lo32(k, k.ashr(k.mul(M.signed(k, a), M.signed(k, b)), 32))


def _u24(k, x):
    return k.and_(M.wide(k, x), 0xFFFFFF)


def _i24(k, x):
    return M.signed(k, M.sext(k, x, 24))


def _mul24(field, high):
    """The product of two 24-bit fields: its low 32 bits, or bits [63:32] (high: shift op)."""
    def mul(k, a, b):
        p = k.mul(field(k, a), field(k, b))
        return _lo32(k, getattr(k, high)(p, 32) if high else p)
    return mul


emits("v_mul_u32_u24")(_mul24(_u24, None))
emits("v_mul_hi_u32_u24")(_mul24(_u24, "lshr"))
emits("v_mul_i32_i24")(_mul24(_i24, None))
emits("v_mul_hi_i32_i24")(_mul24(_i24, "ashr"))


@emits("v_mad_u32_u24")
def _mad_u24(k, a, b, c, clamp=False):
    return _sat_u32(k, k.add(k.mul(_u24(k, a), _u24(k, b)), M.wide(k, c)), clamp)


@emits("v_mad_i32_i24")
def _mad_i24(k, a, b, c, clamp=False):
    return _sat_s32(k, k.add(k.mul(_i24(k, a), _i24(k, b)), M.signed(k, c)), clamp)


@emits("v_mad_u64_u32")
def _mad_u64(k, a, b, c):
    p = k.mul(M.wide(k, a), M.wide(k, b))
    s = k.add(p, c)
    return s, k.icmp("<", s, p)


@emits("v_mad_i64_i32")
def _mad_i64(k, a, b, c):
    p = k.mul(M.signed(k, a), M.signed(k, b))
    s = k.add(p, c)
    p_neg, c_neg, s_neg = k.scmp("<", p, 0), k.scmp("<", c, 0), k.scmp("<", s, 0)
    overflow = k.b.and_(k.icmp("==", p_neg, c_neg), k.icmp("!=", s_neg, p_neg))
    # The carry-out is bit 64 of the 65-bit signed sum: its sign.
    return s, k.icmp("!=", s_neg, overflow)


@emits("v_mul_lo_u16")
def _mul_lo16(k, a, b):
    return k.and_(k.mul(a, b), 0xFFFF)


@emits("v_mad_u16")
def _mad_u16(k, a, b, c, clamp=False):
    s = k.add(k.mul(M.wide(k, a), M.wide(k, b)), M.wide(k, c))
    return _lo32(k, k.umin(s, 0xFFFF) if clamp else k.and_(s, 0xFFFF))


def _s16(k, x):
    return M.signed(k, M.sext(k, x, 16))


def _pack_s16(k, v):
    return k.and_(_lo32(k, v), 0xFFFF)


def _clip_s16(k, v, clamp=True):
    return k.smax(k.smin(v, 32767), -32768) if clamp else v


@emits("v_mad_i16")
def _mad_i16(k, a, b, c, clamp=False):
    s = k.add(k.mul(_s16(k, a), _s16(k, b)), _s16(k, c))
    return _pack_s16(k, _clip_s16(k, s, clamp))


@emits("v_mad_u32_u16")
def _mad_u32_u16(k, a, b, c, clamp=False):
    return _sat_u32(k, k.add(k.mul(M.wide(k, a), M.wide(k, b)), M.wide(k, c)), clamp)


@emits("v_mad_i32_i16")
def _mad_i32_i16(k, a, b, c, clamp=False):
    return _sat_s32(k, k.add(k.mul(_s16(k, a), _s16(k, b)), M.signed(k, c)), clamp)


# --- 16-bit add / sub / shifts / min-max ----------------------------------------------------

@emits("v_add_nc_u16")
def _add_u16(k, a, b, clamp=False):
    s = k.add(a, b)
    return k.umin(s, 0xFFFF) if clamp else k.and_(s, 0xFFFF)


@emits("v_sub_nc_u16")
def _sub_u16(k, a, b, clamp=False):
    d = k.sub(M.signed(k, a), M.signed(k, b))
    return _lo32(k, k.smax(d, 0) if clamp else k.and_(d, 0xFFFF))


emits("v_subrev_u16")(lambda k, a, b, clamp=False: _sub_u16(k, b, a, clamp))     # gfx9


@emits("v_add_nc_i16")
def _add_i16(k, a, b, clamp=False):
    return _pack_s16(k, _clip_s16(k, k.add(_s16(k, a), _s16(k, b)), clamp))


@emits("v_sub_nc_i16")
def _sub_i16(k, a, b, clamp=False):
    return _pack_s16(k, _clip_s16(k, k.sub(_s16(k, a), _s16(k, b)), clamp))


@emits("v_lshlrev_b16")
def _lshl16(k, s, x):
    return k.and_(k.shl(x, k.and_(s, 15)), 0xFFFF)


@emits("v_lshrrev_b16")
def _lshr16(k, s, x):
    return k.lshr(x, k.and_(s, 15))


@emits("v_ashrrev_i16")
def _ashr16(k, s, x):
    return _pack_s16(k, k.ashr(_s16(k, x), M.wide(k, k.and_(s, 15))))


emits("v_min_u16")(lambda k, a, b: k.umin(a, b))
emits("v_max_u16")(lambda k, a, b: k.umax(a, b))
emits("v_min_i16")(lambda k, a, b: _pack_s16(k, k.smin(_s16(k, a), _s16(k, b))))
emits("v_max_i16")(lambda k, a, b: _pack_s16(k, k.smax(_s16(k, a), _s16(k, b))))


# --- 32/64-bit shifts and bit operations ----------------------------------------------------

emits("v_lshlrev_b32")(lambda k, s, x: k.shl(x, k.and_(s, 31)))
emits("v_lshrrev_b32")(lambda k, s, x: k.lshr(x, k.and_(s, 31)))
emits("v_ashrrev_i32")(lambda k, s, x: k.ashr(x, k.and_(s, 31)))


# 64-bit shifts on the value's 32-bit halves with funnel shifts: LLVM keeps a shift of 64-bit
# lanes in 64-bit lanes (and the zero-extensions around it), twice the vector work.
def _halves(k, s, x):
    c = k.and_(s, 63)
    return k.trunc(x, 32), k.trunc(k.lshr(x, 32), 32), k.icmp("<", c, 32), k.and_(c, 31)


def _pair(k, lo, hi):
    return k.or_(k.zext(lo, 64), k.shl(k.zext(hi, 64), 32))


@emits("v_lshlrev_b64")
def _shl64(k, s, x):
    lo, hi, small, c = _halves(k, s, x)
    shifted = k.shl(lo, c)          # lo << c, which is also the high half once c >= 32
    return _pair(k, k.select(small, shifted, 0),
                 k.select(small, k.intrinsic("fshl", [hi, lo, c]), shifted))


emits("v_lshl_add_u64")(lambda k, a, s, c: k.add(k.shl(a, M.wide(k, k.and_(s, 7))), c))


@emits("v_lshrrev_b64")
def _lshr64(k, s, x):
    lo, hi, small, c = _halves(k, s, x)
    shifted = k.lshr(hi, c)
    return _pair(k, k.select(small, k.intrinsic("fshr", [hi, lo, c]), shifted),
                 k.select(small, shifted, 0))


@emits("v_ashrrev_i64")
def _ashr64(k, s, x):
    lo, hi, small, c = _halves(k, s, x)
    shifted = k.ashr(hi, c)
    return _pair(k, k.select(small, k.intrinsic("fshr", [hi, lo, c]), shifted),
                 k.select(small, shifted, k.ashr(hi, 31)))


emits("v_mov_b16")(lambda k, a: a)
emits("v_not_b16")(lambda k, a: k.and_(k.not_(a), 0xFFFF))
emits("v_and_b16")(lambda k, a, b: k.and_(a, b))
emits("v_or_b16")(lambda k, a, b: k.or_(a, b))
emits("v_xor_b16")(lambda k, a, b: k.xor(a, b))
emits("v_cvt_i32_i16")(lambda k, a: M.sext(k, a, 16))
emits("v_cvt_u32_u16")(lambda k, a: a)
emits("v_cndmask_b16")(lambda k, a, b, sel: k.select(sel, b, a))
emits("v_and_b32")(lambda k, a, b: k.and_(a, b))
emits("v_or_b32")(lambda k, a, b: k.or_(a, b))
emits("v_xor_b32")(lambda k, a, b: k.xor(a, b))
emits("v_xnor_b32")(lambda k, a, b: k.not_(k.xor(a, b)))
emits("v_not_b32")(lambda k, a: k.not_(a))
emits("v_or3_b32")(lambda k, a, b, c: k.or_(k.or_(a, b), c))
emits("v_xor3_b32")(lambda k, a, b, c: k.xor(k.xor(a, b), c))
emits("v_and_or_b32")(lambda k, a, b, c: k.or_(k.and_(a, b), c))
emits("v_lshl_or_b32")(lambda k, a, s, c: k.or_(k.shl(a, k.and_(s, 31)), c))
emits("v_lshl_add_u32")(lambda k, a, s, c: k.add(k.shl(a, k.and_(s, 31)), c))
emits("v_add_lshl_u32")(lambda k, a, b, s: k.shl(k.add(a, b), k.and_(s, 31)))
emits("v_bfi_b32")(lambda k, m, a, b: k.or_(k.and_(m, a), k.and_(k.not_(m), b)))


@emits("v_bitop3_b32")
def _bitop3(k, a, b, c, table):
    """The table is a constant of the instruction: LLVM folds the selects to the function."""
    out = zero = k.like(0, a)
    for i in range(8):
        term = k.and_(k.and_(a if i & 4 else k.not_(a), b if i & 2 else k.not_(b)),
                      c if i & 1 else k.not_(c))
        out = k.or_(out, k.select(k.icmp("!=", k.and_(table, 1 << i), 0), term, zero))
    return out


emits("v_bitop3_b16")(lambda k, a, b, c, table: k.and_(_bitop3(k, a, b, c, table), 0xFFFF))
emits("v_bfm_b32")(lambda k, w, o: k.shl(M.low_mask(k, k.and_(w, 31), 32), k.and_(o, 31)))
emits("v_bfrev_b32")(lambda k, a: M.brev(k, a))
emits("v_ffbh_u32")(lambda k, a: M.clz(k, a, 32))
emits("v_ffbl_b32")(lambda k, a: M.ctz(k, a))
emits("v_ffbh_i32")(lambda k, a: M.cls(k, a, 32))
emits("v_bcnt_u32_b32")(lambda k, a, b: k.add(M.popcount(k, a), b))


@emits("v_bfe_u32")
def _bfe_u(k, x, off, width):
    return k.and_(k.lshr(x, k.and_(off, 31)), M.low_mask(k, k.and_(width, 31), 32))


@emits("v_bfe_i32")
def _bfe_i(k, x, off, width):
    shifted = k.ashr(x, k.and_(off, 31))
    w = k.and_(width, 31)
    return M.sext(k, k.and_(shifted, M.low_mask(k, w, 32)), w)


def _concat(k, hi, lo):
    return k.or_(k.shl(M.wide(k, hi), 32), M.wide(k, lo))


emits("v_alignbit_b32")(lambda k, hi, lo, s: _lo32(k, k.lshr(_concat(k, hi, lo), M.wide(k, k.and_(s, 31)))))
emits("v_alignbyte_b32")(
    lambda k, hi, lo, s: _lo32(k, k.lshr(_concat(k, hi, lo), k.mul(M.wide(k, k.and_(s, 3)), 8))))


@emits("v_perm_b32")
def _perm(k, s0, s1, sel):
    data = _concat(k, s0, s1)
    out = k.like(0, s0)
    for byte in range(4):  # four output bytes
        sk = M.wide(k, k.and_(k.lshr(sel, 8 * byte), 0xFF))
        plain = k.and_(k.lshr(data, k.mul(k.and_(sk, 7), 8)), 0xFF)
        # Selectors 8..11 replicate the sign bit of bytes 1, 3, 5, 7.
        sign_byte = k.mul(k.and_(k.lshr(data, k.add(k.mul(k.and_(sk, 3), 16), 15)), 1), 0xFF)
        b = k.select(k.icmp("<", sk, 8), plain,
                     k.select(k.icmp("<", sk, 12), sign_byte, k.select(k.icmp("==", sk, 12), 0, k.like(0xFF, sk))))
        out = k.or_(out, k.shl(_lo32(k, b), 8 * byte))
    return out


@emits("v_mbcnt_lo_u32_b32")
def _mbcnt_lo(k, mask, acc, lane):
    below = M.low_mask(k, k.umin(lane, 32), 32)
    return k.add(M.popcount(k, k.and_(mask, below)), acc)


@emits("v_mbcnt_hi_u32_b32")
def _mbcnt_hi(k, mask, acc, lane):
    below = M.low_mask(k, k.smax(k.sub(M.wide(k, lane), 32), 0), 32)
    return k.add(M.popcount(k, k.and_(mask, below)), acc)


# --- min / max / med3 / sad -----------------------------------------------------------------

def _med3(k, a, b, c, lo, hi):
    return hi(lo(a, b), lo(hi(a, b), c))



emits("v_min_u32")(lambda k, a, b: k.umin(a, b))
emits("v_max_u32")(lambda k, a, b: k.umax(a, b))
emits("v_min_i32")(lambda k, a, b: k.smin(a, b))
emits("v_max_i32")(lambda k, a, b: k.smax(a, b))
emits("v_min3_u32", "v_min3_u16")(lambda k, a, b, c: k.umin(k.umin(a, b), c))
emits("v_max3_u32", "v_max3_u16")(lambda k, a, b, c: k.umax(k.umax(a, b), c))
emits("v_med3_u32", "v_med3_u16")(lambda k, a, b, c: _med3(k, a, b, c, k.umin, k.umax))
emits("v_min3_i32")(lambda k, a, b, c: k.smin(k.smin(a, b), c))
emits("v_max3_i32")(lambda k, a, b, c: k.smax(k.smax(a, b), c))
emits("v_med3_i32")(lambda k, a, b, c: _med3(k, a, b, c, k.smin, k.smax))
emits("v_min3_i16")(lambda k, a, b, c: _pack_s16(k, k.smin(k.smin(_s16(k, a), _s16(k, b)), _s16(k, c))))
emits("v_max3_i16")(lambda k, a, b, c: _pack_s16(k, k.smax(k.smax(_s16(k, a), _s16(k, b)), _s16(k, c))))
emits("v_med3_i16")(lambda k, a, b, c: _pack_s16(k, _med3(k, _s16(k, a), _s16(k, b), _s16(k, c), k.smin, k.smax)))


def _field(k, x, width, index):
    return k.and_(k.lshr(x, width * index), (1 << width) - 1)


def _absdiff(k, fa, fb):
    return k.select(k.icmp(">=", fa, fb), k.sub(fa, fb), k.sub(fb, fa))


def _absdiff_fields(k, a, b, width, count):
    total = k.like(0, a)
    for i in range(count):  # fixed per-field unroll (4 bytes or 2 halves)
        total = k.add(total, _absdiff(k, _field(k, a, width, i), _field(k, b, width, i)))
    return total


emits("v_sad_u8")(lambda k, a, b, c: k.add(_absdiff_fields(k, a, b, 8, 4), c))
emits("v_sad_hi_u8")(lambda k, a, b, c: k.add(k.shl(_absdiff_fields(k, a, b, 8, 4), 16), c))
emits("v_sad_u16")(lambda k, a, b, c: k.add(_absdiff_fields(k, a, b, 16, 2), c))
emits("v_sad_u32")(lambda k, a, b, c: k.add(_absdiff(k, a, b), c))


@emits("v_lerp_u8")
def _lerp(k, a, b, c):
    out = k.like(0, a)
    for i in range(4):  # per byte: rounded average, the rounding bit from src2's byte
        s = k.add(k.add(_field(k, a, 8, i), _field(k, b, 8, i)), k.and_(k.lshr(c, 8 * i), 1))
        out = k.or_(out, k.shl(k.lshr(s, 1), 8 * i))
    return out


@emits("v_msad_u8")
def _msad(k, a, b, c):
    total = k.like(0, a)
    for i in range(4):  # bytes where the reference (src1) byte is 0 do not count
        fa, fb = _field(k, a, 8, i), _field(k, b, 8, i)
        total = k.add(total, k.select(k.icmp("==", fb, 0), 0, _absdiff(k, fa, fb)))
    return k.add(total, c)


def _quad_sad(masked):
    """v_qsad_pk_u16_u8 / v_mqsad_pk_u16_u8: four (m)sad_u8 of S1 against the byte windows
    S0[8k+31:8k], each accumulating into and truncated to the 16-bit field k of S2."""
    def qsad(k, a, b, c):
        out = k.like(0, a)
        for i in range(4):  # fixed four windows
            window = _lo32(k, k.lshr(a, 8 * i))
            acc = _lo32(k, _field(k, c, 16, i))
            total = _msad(k, window, b, acc) if masked else k.add(_absdiff_fields(k, window, b, 8, 4), acc)
            out = k.or_(out, k.shl(M.wide(k, k.and_(total, 0xFFFF)), 16 * i))
        return out
    return qsad


emits("v_qsad_pk_u16_u8")(_quad_sad(False))
emits("v_mqsad_pk_u16_u8")(_quad_sad(True))


# --- packing with saturation ---------------------------------------------------------------

emits("v_cvt_pk_u16_u32")(lambda k, a, b: k.or_(k.umin(a, 0xFFFF), k.shl(k.umin(b, 0xFFFF), 16)))
emits("v_cvt_pk_i16_i32")(
    lambda k, a, b: k.or_(_pack_s16(k, _clip_s16(k, a)), k.shl(_pack_s16(k, _clip_s16(k, b)), 16)))


@emits("v_sat_pk_u8_i16")
def _sat_pk_u8(k, a):
    lo = k.smax(k.smin(M.sext(k, a, 16), 255), 0)
    hi = k.smax(k.smin(k.ashr(a, 16), 255), 0)
    return k.or_(lo, k.shl(hi, 8))


emits("v_cndmask_b32")(lambda k, a, b, sel: k.select(sel, b, a))
emits("v_mov_b32", "v_mov_b64")(lambda k, a: a)
