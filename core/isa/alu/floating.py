"""VALU floating-point arithmetic for f16, f32 and f64 (one definition per operation, registered
for each width gfx1030 has).

Invariants:
- +, -, *, fma are IEEE round-to-nearest-even (numpy's f16 arithmetic goes through f32, which
  is exact for these: 24 >= 2*11 + 2 bits), or rounded toward +inf, -inf or zero by
  rounding.py when MODE.FP_ROUND asks (only then: the nearest path tests one field);
- gfx1030 has no unfused v_mad_f32/v_mac_f32 (gfx10.3 dropped them); v_mul_legacy_f32 and
  v_fma_legacy_f32 are the DX9 forms: a zero factor makes the product +0 even against inf or
  NaN, so fma_legacy is then S2 + 0.0 (-0 -> +0, LLVM's fold) and only a NaN S2 gives NaN;
- trunc/ceil/floor/rndne are IEEE roundToIntegral (V_CEIL/V_FLOOR pseudocode: trunc, then
  +-1.0 when S0 lies beyond it): the sign of zero survives, so trunc/ceil/rndne(-0.25) = -0
  and floor(-denormal) = -1 unless MODE flushes input denormals (then -0);
- fract is S0 + -floor(S0) rounded as FP_ROUND says, clamped below 1.0 (0x3f7fffff,
  0x3fefffffffffffff, 0x3bff: the guide states it for f32/f64, LLVM's folder for all):
  fract(-0) = +0, fract(-denormal) = 0x3f7fffff, fract(+-inf) = the default NaN;
- min/max follow the RDNA2 pseudocode for V_MIN_F32/V_MAX_F32 (NaN results are their own):
  with MODE.IEEE set an sNaN (S0 checked first) comes back quieted; otherwise, and for quiet
  NaNs, a NaN S0 yields S1 and a NaN S1 yields S0 (two NaNs: S1, unquieted with IEEE off);
  -0 < +0; input denormals flush as MODE says, output denormals never (RDNA3 guide note);
  min3/max3 compose them; med3 of any NaN is min3 (so with IEEE set an sNaN in S0 or S1
  yields S2 and in S2 a quiet NaN, as LLVM's AMDGPUInstCombineIntrinsic table says);
- minimum/maximum (gfx12, gfx950) are IEEE 754-2019's, as LLVM lowers llvm.minimum to them:
  -0 < +0, and a NaN source gives a NaN result made as any arithmetic op's (the first NaN
  source, quieted); the three-source forms chain two of them; output denormals are kept;
- v_div_scale/v_div_fmas/v_div_fixup implement the guide's pseudo-code; where it is
  inconsistent (div_fmas' scale factor, div_scale when 1/den is denormal) the choice is
  the one that makes LLVM's division expansion correctly rounded (tests check that).
  div_scale of a zero S1 or S2 is the default NaN, of NaN inputs S0 unchanged; div_fixup
  returns a NaN numerator (S2) quieted before a NaN denominator, 0xffc00000 for 0/0 and
  inf/inf; frexp_mant returns inf and NaN inputs as they are ("D.f = S0.f").
"""
import numpy as np

from core.isa.alu import bits as B
from core.isa.alu import rounding as R
from core.isa.alu.fused import fma_f64, fma_narrow
from core.isa.alu.table import MODE_IEEE, canonical_nans, op

U32 = np.uint32
U64 = np.uint64

FMT = B.FORMATS
ALL = ("f16", "f32", "f64")


def val(x, t):
    return B.VIEW[t](x)


def bits(v, t):
    return B.PACK[t](v)


def fma_vals(a, b, c, t, scale=0):
    """fma on float value arrays of type t, scaled by 2**scale before rounding."""
    if t == "f64":
        return fma_f64(a, b, c, scale)
    return fma_narrow(a, b, c, np.float16 if t == "f16" else np.float32, scale)


def _fma_bits(t):
    return lambda a, b, c: bits(fma_vals(val(a, t), val(b, t), val(c, t), t), t)


def _rounded(t, nearest, directed, three=False):
    """An op on bit patterns computing `nearest` on values, or `directed` (rounding.py)
    when MODE.FP_ROUND for type t is not round to nearest even. Two- and three-source
    forms are spelled out: this is the hot path of float code."""
    shift = R.round_shift(t)
    if three:
        def fn3(a, b, c, mode):
            rm = (mode >> shift) & 3
            if rm:
                return bits(directed(val(a, t), val(b, t), val(c, t), rm), t)
            return bits(nearest(val(a, t), val(b, t), val(c, t)), t)
        return fn3

    def fn2(a, b, mode):
        rm = (mode >> shift) & 3
        if rm:
            return bits(directed(val(a, t), val(b, t), rm), t)
        return bits(nearest(val(a, t), val(b, t)), t)
    return fn2


def _sort_key(x, fmt):
    """Signed integer key ordering non-NaN floats with -0 < +0."""
    x = np.asarray(x).astype(np.uint64)
    sign = np.uint64(int(fmt.sign))
    mag = (x & ~sign).astype(np.int64)
    return np.where((x & sign) != 0, -mag - 1, mag)


def _minmax(t, want_max):
    fmt = FMT[t]

    def fn(a, b, mode):
        a = np.asarray(a, dtype=fmt.uint)
        b = np.asarray(b, dtype=fmt.uint)
        ka, kb = _sort_key(a, fmt), _sort_key(b, fmt)
        pick_a = (ka >= kb) if want_max else (ka <= kb)
        r = np.where(pick_a, a, b)
        an, bn = B.is_nan(a, fmt), B.is_nan(b, fmt)
        r = np.where(an, b, np.where(bn, a, r))      # a NaN S0 yields S1 (even a NaN S1)
        if mode & MODE_IEEE:
            r = np.where(B.is_snan(b, fmt), b | fmt.quiet_bit, r)
            r = np.where(B.is_snan(a, fmt), a | fmt.quiet_bit, r)
        return r
    return fn


def _minimum(t, want_max):
    """IEEE 754-2019's minimum/maximum (gfx12's and gfx950's v_minimum*/v_maximum*): -0 orders
    below +0 and a NaN source makes the result NaN, whose bits the pipeline makes (the first
    NaN source, quieted), as for any arithmetic op."""
    fmt = FMT[t]

    def fn(a, b):
        a = np.asarray(a, dtype=fmt.uint)
        b = np.asarray(b, dtype=fmt.uint)
        ka, kb = _sort_key(a, fmt), _sort_key(b, fmt)
        r = np.where((ka >= kb) if want_max else (ka <= kb), a, b)
        return np.where(B.is_nan(a, fmt) | B.is_nan(b, fmt), fmt.uint(fmt.default_nan), r)
    return fn


def _chained(first, second):
    """second(first(S0, S1), S2): v_minimum3 (both minimum), v_minimummaximum (minimum, then
    maximum), ...; a NaN anywhere stays NaN for the pipeline to make."""
    return lambda a, b, c: second(first(a, b), c)


def _three(t, name):
    mn, mx = _minmax(t, False), _minmax(t, True)
    fmt = FMT[t]
    if name == "min3":
        return lambda a, b, c, mode: mn(mn(a, b, mode), c, mode)
    if name == "max3":
        return lambda a, b, c, mode: mx(mx(a, b, mode), c, mode)

    def med3(a, b, c, mode):
        any_nan = B.is_nan(np.asarray(a, fmt.uint), fmt) | B.is_nan(np.asarray(b, fmt.uint), fmt) \
            | B.is_nan(np.asarray(c, fmt.uint), fmt)
        med = mx(mn(a, b, mode), mn(mx(a, b, mode), c, mode), mode)
        return np.where(any_nan, mn(mn(a, b, mode), c, mode), med)
    return med3


def _unary(t, f):
    return lambda a: bits(f(val(a, t)), t)


def _fract(t):
    # S0 + -floor(S0) in MODE's rounding, clamped below 1.0 (0x3f7fffff for f32); +-inf give
    # inf - inf, the default NaN.
    below_one = np.nextafter(np.dtype(B.FORMATS[t].float).type(1), 0)
    shift = R.round_shift(t)

    def fract(a, mode):
        v = val(a, t)
        rm = (mode >> shift) & 3
        r = R.add(v, -np.floor(v), rm) if rm else v - np.floor(v)
        return bits(np.minimum(r, below_one), t)
    return fract


def _frexp_mant(t):
    def mant(a):
        v = val(a, t)
        m, _ = np.frexp(v.astype(np.float64) if t == "f16" else v)
        return bits(np.where(np.isfinite(v), m.astype(v.dtype), v), t)
    return mant


def _frexp_exp(t):
    def exp(a):
        v = val(a, t)
        _, e = np.frexp(v.astype(np.float64) if t == "f16" else v)
        e = np.where(np.isfinite(v), e, 0)
        return (e.astype(np.int64) & 0xFFFF).astype(U32) if t == "f16" else e.astype(np.int32).view(U32)
    return exp


def _ldexp(t):
    def ldexp(a, e):
        v = val(a, t)
        if t == "f16":
            e = np.clip(B.sign_extend(e, 16), -64, 64)
            return bits(np.ldexp(v.astype(np.float64), e).astype(np.float16), t)
        e = np.asarray(e, dtype=U32).view(np.int32)
        return bits(np.ldexp(v, e), t)
    return ldexp


# min/max/med3 select an operand by the ISA pseudocode (NaN rules of their own) and output a
# denormal whenever MODE let it in ("Denorm flushing for this operation is effectively
# controlled by the input denorm mode", RDNA3 guide, V_MIN_F32).
_SELECT = dict(uses_mode=True, own_nans=True, keeps_output_denormals=True)

for _t in ALL:
    s3 = f"{_t} {_t} {_t} -> {_t}"
    s2 = f"{_t} {_t} -> {_t}"
    s1 = f"{_t} -> {_t}"
    _fma = _rounded(_t, lambda a, b, c, t=_t: fma_vals(a, b, c, t), R.fma, three=True)
    op(s2, f"v_add_{_t}", uses_mode=True)(_rounded(_t, np.add, R.add))
    op(s2, f"v_mul_{_t}", uses_mode=True)(_rounded(_t, np.multiply, R.mul))
    op(s3, f"v_fma_{_t}", uses_mode=True)(_fma)
    op(s2, f"v_min_{_t}", **_SELECT)(_minmax(_t, False))
    op(s2, f"v_max_{_t}", **_SELECT)(_minmax(_t, True))
    op(s1, f"v_fract_{_t}", uses_mode=True)(_fract(_t))
    op(s1, f"v_trunc_{_t}")(_unary(_t, np.trunc))
    op(s1, f"v_ceil_{_t}")(_unary(_t, np.ceil))
    op(s1, f"v_floor_{_t}")(_unary(_t, np.floor))
    op(s1, f"v_rndne_{_t}")(_unary(_t, np.rint))
    op(s1, f"v_frexp_mant_{_t}", own_nans=True)(_frexp_mant(_t))
    op(f"{_t} {'i16' if _t == 'f16' else 'i32'} -> {_t}", f"v_ldexp_{_t}")(_ldexp(_t))
    if _t != "f64":
        op(s2, f"v_sub_{_t}", uses_mode=True)(_rounded(_t, np.subtract, lambda a, b, rm: R.add(a, -b, rm)))
        op(s2, f"v_subrev_{_t}", uses_mode=True)(_rounded(_t, lambda a, b: b - a, lambda a, b, rm: R.add(b, -a, rm)))
        op(s3, f"v_fmaak_{_t}", f"v_fmamk_{_t}", uses_mode=True)(_fma)
        op(s3, f"v_fmac_{_t}", reads_dst=True, uses_mode=True)(_fma)
        for _k in ("min3", "max3", "med3"):
            op(s3, f"v_{_k}_{_t}", **_SELECT)(_three(_t, _k))

# IEEE 754-2019's selections select too: a denormal they let in goes out unflushed.
for _t in ALL:
    _lo, _hi = _minimum(_t, False), _minimum(_t, True)
    op(f"{_t} {_t} -> {_t}", f"v_minimum_{_t}", keeps_output_denormals=True)(_lo)
    op(f"{_t} {_t} -> {_t}", f"v_maximum_{_t}", keeps_output_denormals=True)(_hi)
    if _t != "f64":
        for _name, (_first, _second) in {"minimum3": (_lo, _lo), "maximum3": (_hi, _hi),
                                         "minimummaximum": (_lo, _hi),
                                         "maximumminimum": (_hi, _lo)}.items():
            op(f"{_t} {_t} {_t} -> {_t}", f"v_{_name}_{_t}", keeps_output_denormals=True)(
                _chained(_first, _second))
op("f32 -> i32", "v_frexp_exp_i32_f32")(_frexp_exp("f32"))
op("f64 -> i32", "v_frexp_exp_i32_f64")(_frexp_exp("f64"))
op("f16 -> i16", "v_frexp_exp_i16_f16")(_frexp_exp("f16"))


# --- legacy (DX9) multiply: 0 * anything, including inf and NaN, is +0 --------------------

def _legacy_zero(a, b):
    return (val(a, "f32") == 0) | (val(b, "f32") == 0)


op("f32 f32 -> f32", "v_mul_legacy_f32")(
    lambda a, b: np.where(_legacy_zero(a, b), U32(0), bits(val(a, "f32") * val(b, "f32"), "f32")))


def _fma_legacy(a, b, c):
    # A zero product is +0 even from a NaN or inf factor: only S2 can make the result NaN.
    fused = canonical_nans(_fma_bits("f32")(a, b, c), "f32", [(a, "f32"), (b, "f32"), (c, "f32")])
    zero = canonical_nans(bits(val(c, "f32") + np.float32(0), "f32"), "f32", [(c, "f32")])
    return np.where(_legacy_zero(a, b), zero, fused)


op("f32 f32 f32 -> f32", "v_fma_legacy_f32", own_nans=True)(_fma_legacy)
op("f32 f32 f32 -> f32", "v_fmac_legacy_f32", reads_dst=True, own_nans=True)(_fma_legacy)


# --- division helpers -----------------------------------------------------------------------

_DIV = {  # scale exponent, |N/D| exponent gap that needs scaling, "tiny numerator" exponent
    "f32": (64, 96, 23),
    "f64": (128, 768, 53),
}


def _exponent(x, fmt):
    return ((np.asarray(x, dtype=fmt.uint) & fmt.exp_mask) >> fmt.uint(fmt.mant_bits)).astype(np.int64)


def _div_scale(t):
    fmt = FMT[t]
    scale, gap, tiny = _DIV[t]
    ftype = fmt.float
    smallest_normal = np.finfo(ftype).tiny

    def div_scale(s0, s1, s2):
        x, d, n = val(s0, t), val(s1, t), val(s2, t)
        ed, en = _exponent(s1, fmt), _exponent(s2, fmt)
        up, down = np.ldexp(x, scale), np.ldexp(x, -scale)
        zero = (n == 0) | (d == 0)
        big_gap = (en - ed) >= gap
        den_denorm = B.is_denorm(np.asarray(s1, fmt.uint), fmt)
        rcp_denorm = np.abs(d) > 1 / smallest_normal        # 1/d would be denormal
        quot_denorm = np.abs(n / d) < smallest_normal
        res, vcc = x, np.zeros(np.shape(x), dtype=bool)
        # Evaluate the guide's if/elif chain bottom-up so earlier branches win.
        conds = [
            (zero, val(fmt.default_nan, t), False),
            (big_gap, np.where(x == d, up, x), True),
            (den_denorm, up, False),
            (rcp_denorm & quot_denorm, np.where(x == d, down, x), True),
            (rcp_denorm, down, False),
            (quot_denorm, np.where(x == n, up, x), True),
            (en <= tiny, up, False),
        ]
        for cond, value, sets_vcc in reversed(conds):
            res = np.where(cond, value, res)
            vcc = np.where(cond, sets_vcc, vcc)
        return bits(res.astype(ftype), t), vcc
    return div_scale


def _div_fmas(t):
    fmt = FMT[t]
    scale = _DIV[t][0]
    bias = fmt.bias

    def div_fmas(a, b, c, vcc):
        # Post-scale undoes div_scale: up if the quotient estimate (S2) is large, else down;
        # applied before the fma's single rounding, so a denormal quotient rounds once.
        k = np.where(vcc, np.where(_exponent(c, fmt) > bias, scale, -scale), 0).astype(np.int32)
        return bits(fma_vals(val(a, t), val(b, t), val(c, t), t, k), t)
    return div_fmas


def _div_fixup(t):
    fmt = FMT[t]
    ftype = fmt.float
    qnan = fmt.default_nan
    emax = int(fmt.exp_mask >> fmt.uint(fmt.mant_bits))
    underflow_gap = {"f16": -25, "f32": -150, "f64": -1075}[t]

    def div_fixup(q, d, n):
        qb, db, nb = (np.asarray(x, dtype=fmt.uint) for x in (q, d, n))
        qv, dv, nv = val(qb, t), val(db, t), val(nb, t)
        neg = ((db ^ nb) & fmt.sign) != 0
        sign = np.where(neg, fmt.sign, fmt.uint(0))
        inf = fmt.exp_mask
        mag = qb & ~fmt.sign
        # A NaN quotient without NaN inputs comes from a failed (overflowed) division.
        mag = np.where(B.is_nan(qb, fmt), inf, mag)
        res = sign | mag
        ed, en = _exponent(db, fmt), _exponent(nb, fmt)
        conds = [
            (B.is_nan(nb, fmt), nb | fmt.quiet_bit),
            (B.is_nan(db, fmt), db | fmt.quiet_bit),
            ((dv == 0) & (nv == 0), qnan),
            (np.isinf(dv) & np.isinf(nv), qnan),
            ((dv == 0) | np.isinf(nv), sign | inf),
            (np.isinf(dv) | (nv == 0), sign),
            ((en - ed) < underflow_gap, sign),
            (ed == emax, sign | inf),
        ]
        for cond, value in reversed(conds):
            res = np.where(cond, value, res)
        return res.astype(fmt.uint) if t != "f16" else res.astype(U32)
    return div_fixup


for _t in ("f32", "f64"):
    op(f"{_t} {_t} {_t} -> {_t} mask", f"v_div_scale_{_t}", ftz=False, own_nans=True)(_div_scale(_t))
    op(f"{_t} {_t} {_t} mask -> {_t}", f"v_div_fmas_{_t}")(_div_fmas(_t))
for _t in ALL:
    op(f"{_t} {_t} {_t} -> {_t}", f"v_div_fixup_{_t}", own_nans=True)(_div_fixup(_t))


# --- cube map coordinates (ISA guide V_CUBEID/SC/TC/MA_F32): pick the major axis ------------

def _cube_axes(x, y, z):
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    z_major = (az >= ax) & (az >= ay)
    y_major = ~z_major & (ay >= ax)
    return z_major, y_major


def _cube(kind):
    def cube(a, b, c):
        x, y, z = val(a, "f32"), val(b, "f32"), val(c, "f32")
        zm, ym = _cube_axes(x, y, z)
        if kind == "id":
            r = np.where(zm, np.where(z < 0, 5, 4), np.where(ym, np.where(y < 0, 3, 2), np.where(x < 0, 1, 0)))
        elif kind == "sc":
            r = np.where(zm, np.where(z < 0, -x, x), np.where(ym, x, np.where(x < 0, z, -z)))
        elif kind == "tc":
            r = np.where(zm, -y, np.where(ym, np.where(y < 0, -z, z), -y))
        else:
            r = 2 * np.where(zm, z, np.where(ym, y, x))
        return bits(np.asarray(r, dtype=np.float32), "f32")
    return cube


for _k in ("id", "sc", "tc", "ma"):
    op("f32 f32 f32 -> f32", f"v_cube{_k}_f32")(_cube(_k))
