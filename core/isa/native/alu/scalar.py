"""SALU operations (SOP1, SOP2, SOPK, SOPC) in IR: the emitters of core/isa/alu/scalar.py, in
its order. Sources are per-wave scalars in the translator (any shape works).

Invariants (as the numpy family's):
- SCC results are i1: carry for unsigned add (borrow for sub), signed overflow for
  s_add_i32/s_sub_i32/s_addk_i32, "result != 0" for bit operations, shifts, bfe, bcnt, abs,
  wqm, quadmask and the saveexec family, the comparison for min/max and s_cmp*;
- shift counts use 5 bits (32-bit ops) or 6 bits (64-bit ops); s_bfe's field is
  offset = S1[4:0] (S1[5:0] for 64-bit), width = S1[22:16];
- s_*_saveexec_bN return (old EXEC for sdst, new EXEC, SCC); s_andn{1,2}_wrexec_bN return
  (new EXEC for sdst, new EXEC, SCC).
"""
from core.isa.native.alu import intmath as M
from core.isa.native.alu.table import emits

MAX32 = 0xFFFFFFFF




def _nz(k, d):
    return d, k.icmp("!=", d, 0)


def _overflow32(k, s):
    return k.b.or_(k.scmp("<", s, -2**31), k.scmp(">", s, 2**31 - 1))


# --- arithmetic ------------------------------------------------------------------------------

def _add_u32_wide(k, s):
    return k.trunc(s, 32), k.icmp(">", s, MAX32)


def _add_u32(k, a, b, c=None):
    s = k.add(M.wide(k, a), M.wide(k, b))
    return _add_u32_wide(k, s if c is None else k.add(s, k.zext(c, 64)))


def _sub_u32(k, a, b, c=None):
    d = k.sub(M.wide(k, a), M.wide(k, b))
    d = d if c is None else k.sub(d, k.zext(c, 64))
    return k.trunc(d, 32), k.scmp("<", d, 0)


def _signed(op):
    def fn(k, a, b):
        s = op(k, M.signed(k, a), M.signed(k, b))
        return k.trunc(s, 32), _overflow32(k, s)
    return fn


emits("s_add_u32", "s_addc_u32")(_add_u32)
emits("s_sub_u32", "s_subb_u32")(_sub_u32)
emits("s_add_i32")(_signed(lambda k, a, b: k.add(a, b)))
emits("s_sub_i32")(_signed(lambda k, a, b: k.sub(a, b)))
emits("s_addk_i32")(lambda k, imm, d: _signed(lambda k, a, b: k.add(a, b))(k, d, imm))
emits("s_mul_i32", "s_mul_u64")(lambda k, a, b: k.mul(a, b))
emits("s_add_nc_u64")(lambda k, a, b: k.add(a, b))
emits("s_sub_nc_u64")(lambda k, a, b: k.sub(a, b))
emits("s_mulk_i32")(lambda k, imm, d: k.mul(d, imm))
emits("s_mul_hi_u32")(lambda k, a, b: k.trunc(k.lshr(k.mul(M.wide(k, a), M.wide(k, b)), 32), 32))
emits("s_mul_hi_i32")(lambda k, a, b: k.trunc(k.ashr(k.mul(M.signed(k, a), M.signed(k, b)), 32), 32))


def _abs64(k, v):
    return k.select(k.scmp("<", v, 0), k.sub(0, v), v)


emits("s_absdiff_i32")(lambda k, a, b: _nz(k, k.trunc(_abs64(k, k.sub(M.signed(k, a), M.signed(k, b))), 32)))
emits("s_abs_i32")(lambda k, a: _nz(k, k.trunc(_abs64(k, M.signed(k, a)), 32)))
emits("s_min_i32")(lambda k, a, b: (k.select(k.scmp("<", a, b), a, b), k.scmp("<", a, b)))
emits("s_max_i32")(lambda k, a, b: (k.select(k.scmp(">", a, b), a, b), k.scmp(">", a, b)))
emits("s_min_u32")(lambda k, a, b: (k.umin(a, b), k.icmp("<", a, b)))
emits("s_max_u32")(lambda k, a, b: (k.umax(a, b), k.icmp(">", a, b)))

for _n in range(1, 5):
    emits(f"s_lshl{_n}_add_u32")(
        lambda k, a, b, n=_n: _add_u32_wide(k, k.add(k.shl(M.wide(k, a), n), M.wide(k, b))))

emits("s_sext_i32_i8")(lambda k, a: M.sext(k, a, 8))
emits("s_sext_i32_i16")(lambda k, a: M.sext(k, a, 16))

# --- selects and moves -----------------------------------------------------------------------

emits("s_cselect_b32", "s_cselect_b64")(lambda k, a, b, scc: k.select(scc, a, b))
emits("s_mov_b32", "s_movk_i32", "s_mov_b64")(lambda k, a: a)
emits("s_cmov_b32", "s_cmovk_i32", "s_cmov_b64")(lambda k, a, d, scc: k.select(scc, a, d))

# --- bitwise -----------------------------------------------------------------------------------

_LOGIC = {
    "and": lambda k, a, b: k.and_(a, b), "or": lambda k, a, b: k.or_(a, b), "xor": lambda k, a, b: k.xor(a, b),
    "andn2": lambda k, a, b: k.and_(a, k.not_(b)), "orn2": lambda k, a, b: k.or_(a, k.not_(b)),
    "nand": lambda k, a, b: k.not_(k.and_(a, b)), "nor": lambda k, a, b: k.not_(k.or_(a, b)),
    "xnor": lambda k, a, b: k.not_(k.xor(a, b)),
}
_SAVEEXEC = dict(_LOGIC, andn1=lambda k, a, b: k.and_(k.not_(a), b), orn1=lambda k, a, b: k.or_(k.not_(a), b))


def _index(k, i, width):
    """A bit index (u32 source) for a width-bit operand: its low log2(width) bits, widened."""
    return k.zext(k.and_(i, width - 1), width)


for _width in (32, 64):
    _b = f"b{_width}"
    for _name, _f in _LOGIC.items():
        emits(f"s_{_name}_{_b}")(lambda k, a, b, f=_f: _nz(k, f(k, a, b)))
    for _name, _f in _SAVEEXEC.items():
        # S0 op EXEC, except andn2/orn2 (S0 op ~EXEC) and andn1/orn1 (~S0 op EXEC).
        emits(f"s_{_name}_saveexec_{_b}")(lambda k, s, ex, f=_f: (ex,) + _nz(k, f(k, s, ex)))
    for _name in ("andn1", "andn2"):
        emits(f"s_{_name}_wrexec_{_b}")(lambda k, s, ex, f=_SAVEEXEC[_name]: (f(k, s, ex),) + _nz(k, f(k, s, ex)))
    emits(f"s_not_{_b}")(lambda k, a: _nz(k, k.not_(a)))
    emits(f"s_lshl_{_b}")(lambda k, a, s, w=_width: _nz(k, k.shl(a, _index(k, s, w))))
    emits(f"s_lshr_{_b}")(lambda k, a, s, w=_width: _nz(k, k.lshr(a, _index(k, s, w))))
    emits(f"s_ashr_i{_width}")(lambda k, a, s, w=_width: _nz(k, k.ashr(a, _index(k, s, w))))
    emits(f"s_bfm_{_b}")(
        lambda k, w, o, n=_width: k.shl(M.low_mask(k, _index(k, w, n), n), _index(k, o, n)))
    emits(f"s_brev_{_b}")(lambda k, a: M.brev(k, a))
    emits(f"s_bcnt0_i32_{_b}")(lambda k, a: _nz(k, M.popcount(k, k.not_(a))))
    emits(f"s_bcnt1_i32_{_b}")(lambda k, a: _nz(k, M.popcount(k, a)))
    emits(f"s_ff0_i32_{_b}")(lambda k, a: M.ctz(k, k.not_(a)))
    emits(f"s_ff1_i32_{_b}")(lambda k, a: M.ctz(k, a))
    emits(f"s_flbit_i32_{_b}")(lambda k, a, w=_width: M.clz(k, a, w))
    emits(f"s_bitset0_{_b}")(lambda k, i, d, w=_width: k.and_(d, k.not_(k.shl(k.like(1, d), _index(k, i, w)))))
    emits(f"s_bitset1_{_b}")(lambda k, i, d, w=_width: k.or_(d, k.shl(k.like(1, d), _index(k, i, w))))
    emits(f"s_bitcmp0_{_b}")(lambda k, a, i, w=_width: k.icmp("==", k.and_(k.lshr(a, _index(k, i, w)), 1), 0))
    emits(f"s_bitcmp1_{_b}")(lambda k, a, i, w=_width: k.icmp("==", k.and_(k.lshr(a, _index(k, i, w)), 1), 1))
emits("s_flbit_i32")(lambda k, a: M.cls(k, a, 32))
emits("s_flbit_i32_i64")(lambda k, a: M.cls(k, a, 64))


def _bfe(width, signed):
    def bfe(k, a, field):
        off = _index(k, field, width)
        w = k.and_(k.lshr(field, 16), 0x7F)
        if signed:
            x = k.ashr(a, off)
            d = M.sext(k, k.and_(x, M.low_mask(k, w, width)), k.umin(w, width), width)
        else:
            d = k.and_(k.lshr(a, off), M.low_mask(k, w, width))
        return _nz(k, d)
    return bfe


emits("s_bfe_u32")(_bfe(32, False))
emits("s_bfe_i32")(_bfe(32, True))
emits("s_bfe_u64")(_bfe(64, False))
emits("s_bfe_i64")(_bfe(64, True))


def _quads(k, x, width):
    """Per 4-bit group: does it have any bit set (i1 each)."""
    return [k.icmp("!=", k.and_(k.lshr(x, 4 * q), 0xF), 0) for q in range(width // 4)]


def _wqm(width):
    def wqm(k, a):
        d = k.like(0, a)
        for q, anyset in enumerate(_quads(k, a, width)):  # fixed 8/16 groups
            d = k.or_(d, k.select(anyset, k.like(0xF << (4 * q), a), k.like(0, a)))
        return _nz(k, d)
    return wqm


def _quadmask(width):
    def quadmask(k, a):
        d = k.like(0, a)
        for q, anyset in enumerate(_quads(k, a, width)):
            d = k.or_(d, k.shl(k.zext(anyset, width), q))
        return _nz(k, d)
    return quadmask


for _width in (32, 64):
    emits(f"s_wqm_b{_width}")(_wqm(_width))
    emits(f"s_quadmask_b{_width}")(_quadmask(_width))


@emits("s_bitreplicate_b64_b32")
def _bitreplicate(k, a):
    a = k.zext(a, 64)
    d = k.like(0, a)
    for i in range(32):  # fixed 32 source bits
        bit = k.and_(k.lshr(a, i), 1)
        d = k.or_(d, k.shl(k.or_(bit, k.shl(bit, 1)), 2 * i))
    return d


emits("s_pack_ll_b32_b16")(lambda k, a, b: k.or_(k.and_(a, 0xFFFF), k.shl(b, 16)))
emits("s_pack_lh_b32_b16")(lambda k, a, b: k.or_(k.and_(a, 0xFFFF), k.and_(b, 0xFFFF0000)))
emits("s_pack_hh_b32_b16")(lambda k, a, b: k.or_(k.lshr(a, 16), k.and_(b, 0xFFFF0000)))
emits("s_pack_hl_b32_b16")(lambda k, a, b: k.or_(k.lshr(a, 16), k.shl(b, 16)))     # gfx11

# --- comparisons (SOPC, SOPK) ----------------------------------------------------------------

_CMP = {"eq": "==", "lg": "!=", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}
for _c, _p in _CMP.items():
    emits(f"s_cmp_{_c}_i32", f"s_cmpk_{_c}_i32")(lambda k, a, b, p=_p: k.scmp(p, a, b))
    emits(f"s_cmp_{_c}_u32", f"s_cmpk_{_c}_u32")(lambda k, a, b, p=_p: k.icmp(p, a, b))
emits("s_cmp_eq_u64")(lambda k, a, b: k.icmp("==", a, b))
emits("s_cmp_lg_u64")(lambda k, a, b: k.icmp("!=", a, b))
