"""SALU operations (SOP1, SOP2, SOPK, SOPC) on per-wave uint32/uint64 arrays, with SCC.

Invariants:
- SCC results are per-wave bools: carry for unsigned add (borrow for sub), signed overflow
  for s_add_i32/s_sub_i32/s_addk_i32, "result != 0" for bit operations, shifts, bfe,
  bcnt, abs, wqm, quadmask and the saveexec family, the comparison for min/max and s_cmp*;
  ops without an SCC output leave SCC alone (their dst_types have no 'scc');
- shift counts use 5 bits (32-bit ops) or 6 bits (64-bit ops); s_bfe's field is
  offset = S1[4:0] (S1[5:0] for 64-bit), width = S1[22:16];
- s_*_saveexec_bN take (S0, EXEC) and return (old EXEC for sdst, new EXEC, SCC);
  s_andn{1,2}_wrexec_bN return (new EXEC for sdst, new EXEC, SCC);
- SOPK immediates arrive extended as the opcode says: sign-extended for *_i32
  (s_movk_i32, s_addk_i32, s_cmpk_*_i32), zero-extended for s_cmpk_*_u32.
"""
import numpy as np

from core.isa.alu import intmath as M
from core.isa.alu.table import op

U32 = np.uint32
U64 = np.uint64
I64 = np.int64
MAX32 = U64(0xFFFFFFFF)


def _w(x):
    return np.asarray(x, dtype=U32).astype(U64)


def _s(x):
    return np.asarray(x, dtype=U32).view(np.int32).astype(I64)


def _i32(v):
    return np.asarray(v).astype(I64).astype(np.int32).view(U32)


def _nz(d):
    return d, d != 0


def _overflow32(s):
    return (s < -2**31) | (s > 2**31 - 1)


# --- arithmetic ------------------------------------------------------------------------------

def _add_u32_wide(s):
    return (s & MAX32).astype(U32), s > MAX32


def _add_u32(a, b, c=0):
    return _add_u32_wide(_w(a) + _w(b) + np.asarray(c).astype(U64))


def _sub_u32(a, b, c=0):
    d = _w(a).astype(I64) - _w(b).astype(I64) - np.asarray(c).astype(I64)
    return d.astype(U32), d < 0


op("u32 u32 -> u32 scc", "s_add_u32")(_add_u32)
op("u32 u32 -> u32 scc", "s_sub_u32")(_sub_u32)
op("u32 u32 scc -> u32 scc", "s_addc_u32")(_add_u32)
op("u32 u32 scc -> u32 scc", "s_subb_u32")(_sub_u32)
op("i32 i32 -> i32 scc", "s_add_i32")(lambda a, b: (_i32(_s(a) + _s(b)), _overflow32(_s(a) + _s(b))))
op("i32 i32 -> i32 scc", "s_sub_i32")(lambda a, b: (_i32(_s(a) - _s(b)), _overflow32(_s(a) - _s(b))))
op("i32 i32 -> i32 scc", "s_addk_i32", reads_dst=True)(
    lambda k, d: (_i32(_s(d) + _s(k)), _overflow32(_s(d) + _s(k))))
op("i32 i32 -> i32", "s_mul_i32")(lambda a, b: _i32(_s(a) * _s(b)))
op("i32 i32 -> i32", "s_mulk_i32", reads_dst=True)(lambda k, d: _i32(_s(d) * _s(k)))
op("u32 u32 -> u32", "s_mul_hi_u32")(lambda a, b: ((_w(a) * _w(b)) >> U64(32)).astype(U32))
op("i32 i32 -> i32", "s_mul_hi_i32")(lambda a, b: ((_s(a) * _s(b)) >> I64(32)).astype(U32))
op("i32 i32 -> i32 scc", "s_absdiff_i32")(lambda a, b: _nz(_i32(np.abs(_s(a) - _s(b)))))
op("i32 -> i32 scc", "s_abs_i32")(lambda a: _nz(_i32(np.abs(_s(a)))))
op("i32 i32 -> i32 scc", "s_min_i32")(lambda a, b: (np.where(_s(a) < _s(b), a, b), _s(a) < _s(b)))
op("i32 i32 -> i32 scc", "s_max_i32")(lambda a, b: (np.where(_s(a) > _s(b), a, b), _s(a) > _s(b)))
op("u32 u32 -> u32 scc", "s_min_u32")(lambda a, b: (np.minimum(a, b), np.asarray(a) < b))
op("u32 u32 -> u32 scc", "s_max_u32")(lambda a, b: (np.maximum(a, b), np.asarray(a) > b))

# gfx12's 64-bit arithmetic: modulo 2^64, SCC untouched.
op("u64 u64 -> u64", "s_add_nc_u64")(lambda a, b: np.asarray(a, U64) + np.asarray(b, U64))
op("u64 u64 -> u64", "s_sub_nc_u64")(lambda a, b: np.asarray(a, U64) - np.asarray(b, U64))
op("u64 u64 -> u64", "s_mul_u64")(lambda a, b: np.asarray(a, U64) * np.asarray(b, U64))

for _n in range(1, 5):
    op("u32 u32 -> u32 scc", f"s_lshl{_n}_add_u32")(
        lambda a, b, n=_n: _add_u32_wide((_w(a) << U64(n)) + _w(b)))


op("i32 -> i32", "s_sext_i32_i8")(lambda a: M.sext(a, 8))
op("i32 -> i32", "s_sext_i32_i16")(lambda a: M.sext(a, 16))

# --- selects and moves -----------------------------------------------------------------------

op("b32 b32 scc -> b32", "s_cselect_b32")(lambda a, b, scc: np.where(scc, a, b))
op("b64 b64 scc -> b64", "s_cselect_b64")(lambda a, b, scc: np.where(scc, a, b))
op("b32 -> b32", "s_mov_b32", "s_movk_i32")(lambda a: np.asarray(a, dtype=U32))
op("b64 -> b64", "s_mov_b64")(lambda a: np.asarray(a, dtype=U64))
op("b32 b32 scc -> b32", "s_cmov_b32", "s_cmovk_i32", reads_dst=True)(lambda a, d, scc: np.where(scc, a, d))
op("b64 b64 scc -> b64", "s_cmov_b64", reads_dst=True)(lambda a, d, scc: np.where(scc, a, d))

# --- bitwise -----------------------------------------------------------------------------------

_LOGIC = {
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
    "andn2": lambda a, b: a & ~b, "orn2": lambda a, b: a | ~b,
    "nand": lambda a, b: ~(a & b), "nor": lambda a, b: ~(a | b), "xnor": lambda a, b: ~(a ^ b),
}
_SAVEEXEC = dict(_LOGIC, andn1=lambda a, b: ~a & b, orn1=lambda a, b: ~a | b)


def _typed(width):
    return U32 if width == 32 else U64


for _width in (32, 64):
    _b = f"b{_width}"
    _T = _typed(_width)
    _mask = _T(_width - 1)
    for _name, _f in _LOGIC.items():
        op(f"{_b} {_b} -> {_b} scc", f"s_{_name}_{_b}")(
            lambda a, b, f=_f, T=_T: _nz(f(np.asarray(a, T), np.asarray(b, T))))
    for _name, _f in _SAVEEXEC.items():
        # S0 op EXEC, except andn2/orn2 (S0 op ~EXEC) and andn1/orn1 (~S0 op EXEC).
        op(f"{_b} {_b} -> {_b} {_b} scc", f"s_{_name}_saveexec_{_b}")(
            lambda s, ex, f=_f, T=_T: (np.asarray(ex, T),) + _nz(f(np.asarray(s, T), np.asarray(ex, T))))
    for _name in ("andn1", "andn2"):
        op(f"{_b} {_b} -> {_b} {_b} scc", f"s_{_name}_wrexec_{_b}")(
            lambda s, ex, f=_SAVEEXEC[_name], T=_T: (f(np.asarray(s, T), np.asarray(ex, T)),)
            + _nz(f(np.asarray(s, T), np.asarray(ex, T))))
    op(f"{_b} -> {_b} scc", f"s_not_{_b}")(lambda a, T=_T: _nz(~np.asarray(a, T)))
    op(f"{_b} u32 -> {_b} scc", f"s_lshl_{_b}")(
        lambda a, s, T=_T, m=_mask: _nz(np.asarray(a, T) << (np.asarray(s).astype(T) & m)))
    op(f"{_b} u32 -> {_b} scc", f"s_lshr_{_b}")(
        lambda a, s, T=_T, m=_mask: _nz(np.asarray(a, T) >> (np.asarray(s).astype(T) & m)))
    _I = np.int32 if _width == 32 else np.int64
    op(f"i{_width} u32 -> i{_width} scc", f"s_ashr_i{_width}")(
        lambda a, s, T=_T, m=_mask, I=_I:
        _nz((np.asarray(a, T).view(I) >> (np.asarray(s).astype(T) & m).astype(I)).view(T)))
    op(f"u32 u32 -> {_b}", f"s_bfm_{_b}")(
        lambda w, o, T=_T, m=_mask: M.low_mask(np.asarray(w).astype(T) & m, T) << (np.asarray(o).astype(T) & m))
    op(f"{_b} -> {_b}", f"s_brev_{_b}")(M.brev32 if _width == 32 else M.brev64)
    op(f"{_b} -> i32 scc", f"s_bcnt0_i32_{_b}")(lambda a, T=_T: _nz(M.popcount(~np.asarray(a, T))))
    op(f"{_b} -> i32 scc", f"s_bcnt1_i32_{_b}")(lambda a, T=_T: _nz(M.popcount(np.asarray(a, T))))
    op(f"{_b} -> i32", f"s_ff0_i32_{_b}")(lambda a, T=_T: M.ctz(~np.asarray(a, T)))
    op(f"{_b} -> i32", f"s_ff1_i32_{_b}")(lambda a, T=_T: M.ctz(np.asarray(a, T)))
    op(f"{_b} -> i32", f"s_flbit_i32_{_b}")(lambda a, T=_T, w=_width: M.clz(np.asarray(a, T), w))
    op(f"u32 {_b} -> {_b}", f"s_bitset0_{_b}", reads_dst=True)(
        lambda i, d, T=_T, m=_mask: np.asarray(d, T) & ~(T(1) << (np.asarray(i).astype(T) & m)))
    op(f"u32 {_b} -> {_b}", f"s_bitset1_{_b}", reads_dst=True)(
        lambda i, d, T=_T, m=_mask: np.asarray(d, T) | (T(1) << (np.asarray(i).astype(T) & m)))
    op(f"{_b} u32 -> scc", f"s_bitcmp0_{_b}")(
        lambda a, i, T=_T, m=_mask: ((np.asarray(a, T) >> (np.asarray(i).astype(T) & m)) & T(1)) == 0)
    op(f"{_b} u32 -> scc", f"s_bitcmp1_{_b}")(
        lambda a, i, T=_T, m=_mask: ((np.asarray(a, T) >> (np.asarray(i).astype(T) & m)) & T(1)) == 1)
op("i32 -> i32", "s_flbit_i32")(lambda a: M.cls(np.asarray(a, U32), 32))
op("i64 -> i32", "s_flbit_i32_i64")(lambda a: M.cls(np.asarray(a, U64), 64))


def _bfe(width, signed):
    T = _typed(width)
    off_mask = T(width - 1)

    def bfe(a, field):
        field = np.asarray(field, U32)
        off = field.astype(T) & off_mask
        w = ((field >> U32(16)) & U32(0x7F)).astype(np.int64)
        x = np.asarray(a, T)
        if signed:
            I = np.int32 if width == 32 else np.int64
            x = (x.view(I) >> off.astype(I)).view(T)
            d = M.sext(x & M.low_mask(w, T), np.minimum(w, width), width)
        else:
            d = (x >> off) & M.low_mask(w, T)
        return _nz(d)
    return bfe


op("b32 u32 -> b32 scc", "s_bfe_u32")(_bfe(32, False))
op("i32 u32 -> i32 scc", "s_bfe_i32")(_bfe(32, True))
op("b64 u32 -> b64 scc", "s_bfe_u64")(_bfe(64, False))
op("i64 u32 -> i64 scc", "s_bfe_i64")(_bfe(64, True))


def _quads(x, width):
    """Per 4-bit group: does it have any bit set (bool [..., width/4])."""
    x = np.asarray(x, _typed(width))
    return [((x >> _typed(width)(4 * q)) & _typed(width)(0xF)) != 0 for q in range(width // 4)]


def _wqm(width):
    T = _typed(width)

    def wqm(a):
        d = np.zeros(np.shape(a), dtype=T)
        for q, anyset in enumerate(_quads(a, width)):  # fixed 8/16 groups
            d |= np.where(anyset, T(0xF) << T(4 * q), T(0))
        return _nz(d)
    return wqm


def _quadmask(width):
    T = _typed(width)

    def quadmask(a):
        d = np.zeros(np.shape(a), dtype=T)
        for q, anyset in enumerate(_quads(a, width)):
            d |= np.where(anyset, T(1) << T(q), T(0))
        return _nz(d)
    return quadmask


for _width in (32, 64):
    op(f"b{_width} -> b{_width} scc", f"s_wqm_b{_width}")(_wqm(_width))
    op(f"b{_width} -> b{_width} scc", f"s_quadmask_b{_width}")(_quadmask(_width))


@op("b32 -> b64", "s_bitreplicate_b64_b32")
def _bitreplicate(a):
    a = np.asarray(a, U32).astype(U64)
    d = np.zeros(np.shape(a), dtype=U64)
    for i in range(32):  # fixed 32 source bits
        bit = (a >> U64(i)) & U64(1)
        d |= (bit | (bit << U64(1))) << U64(2 * i)
    return d


_HALF = U32(0xFFFF)
op("b32 b32 -> b32", "s_pack_ll_b32_b16")(lambda a, b: (np.asarray(a, U32) & _HALF) | (np.asarray(b, U32) << U32(16)))
op("b32 b32 -> b32", "s_pack_lh_b32_b16")(
    lambda a, b: (np.asarray(a, U32) & _HALF) | (np.asarray(b, U32) & ~_HALF))
op("b32 b32 -> b32", "s_pack_hh_b32_b16")(
    lambda a, b: (np.asarray(a, U32) >> U32(16)) | (np.asarray(b, U32) & ~_HALF))
op("b32 b32 -> b32", "s_pack_hl_b32_b16")(         # gfx11
    lambda a, b: (np.asarray(a, U32) >> U32(16)) | (np.asarray(b, U32) << U32(16)))

# --- comparisons (SOPC, SOPK) ----------------------------------------------------------------

_CMP = {"eq": np.equal, "lg": np.not_equal, "gt": np.greater, "ge": np.greater_equal,
        "lt": np.less, "le": np.less_equal}
for _c, _f in _CMP.items():
    op("i32 i32 -> scc", f"s_cmp_{_c}_i32", f"s_cmpk_{_c}_i32")(lambda a, b, f=_f: f(_s(a), _s(b)))
    op("u32 u32 -> scc", f"s_cmp_{_c}_u32", f"s_cmpk_{_c}_u32")(
        lambda a, b, f=_f: f(np.asarray(a, U32), np.asarray(b, U32)))
op("u64 u64 -> scc", "s_cmp_eq_u64")(lambda a, b: np.asarray(a, U64) == np.asarray(b, U64))
op("u64 u64 -> scc", "s_cmp_lg_u64")(lambda a, b: np.asarray(a, U64) != np.asarray(b, U64))
