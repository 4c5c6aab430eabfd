"""VALU floating-point arithmetic for f16, f32 and f64 in IR: the emitters of
core/isa/alu/floating.py, in its order.

Invariants (besides the numpy family's):
- values come out of IEEE operations LLVM keeps as written (no fast-math flags): f32/f64 in
  their own width, f16 through f32 (exact for +, -, *: 24 >= 2*11 + 2 bits) as numpy does;
- bodies compute NaN-ness only: the pipeline (table.py) makes every NaN result canonical,
  except for the ops that own their NaNs as in numpy (min/max/med3 selection, frexp_mant,
  fma_legacy, div_scale/div_fixup), whose bodies choose them explicitly;
- MODE.FP_ROUND selects rounding.py's directed paths at compile time, as numpy's `rm` test.
"""
from core.isa.alu.table import MODE_IEEE
from core.isa.native.alu import bits as B
from core.isa.native.alu import fused as F
from core.isa.native.alu import rounding as R
from core.isa.native.alu.table import emits

ALL = ("f16", "f32", "f64")


# --- + - * fma ---------------------------------------------------------------------------------

def _values(k, t, xs):
    """Operand bit patterns -> values of t's computing type (f16 widened exactly to f32)."""
    if t == "f16":
        return [k.b.fpext(k.view(x, t), k.fty("f32")) for x in xs]
    return [k.view(x, t) for x in xs]


def _result(k, t, v):
    """A value of t's computing type -> bits of t (f32 -> f16 rounds once more, exactly)."""
    if t == "f16":
        return k.bits(k.b.fptrunc(v, k.fty("f16")), "f16")
    return k.bits(v, t)


_NEAREST = {"add": lambda b: b.fadd, "mul": lambda b: b.fmul, "sub": lambda b: b.fsub}


def nearest_bits(k, t, name, a, b):
    """a op b ('add', 'mul', 'sub') rounded once to nearest even, bits of t (numpy's
    operation on t's values)."""
    va, vb = _values(k, t, [a, b])
    return _result(k, t, _NEAREST[name](k.b)(va, vb))


def _binary(name, t, swap=False):
    """v_add/v_mul/v_sub/v_subrev: nearest through LLVM's operation, directed through
    rounding.py; swap computes b op a (subrev)."""
    shift = R.round_shift(t)

    def fn(k, a, b, mode):
        x, y = (b, a) if swap else (a, b)
        rm = (mode >> shift) & 3
        if rm:
            if name == "sub":
                y = k.xor(y, B.FMT[t].sign)           # numpy: R.add(a, -b)
            return (R.mul if name == "mul" else R.add)(k, t, x, y, rm)
        return nearest_bits(k, t, name, x, y)
    return fn


def fma_bits(k, t, a, b, c):
    """a*b+c rounded once to nearest, bits of t (numpy's fma_vals)."""
    if t == "f16":
        wide = [k.view(B.widen(k, x, t, "f64"), "f64") for x in (a, b, c)]
        return F.fma_narrow(k, *wide, t)
    return k.bits(k.intrinsic("fma", [k.view(x, t) for x in (a, b, c)]), t)


def _fma(t):
    shift = R.round_shift(t)

    def fn(k, a, b, c, mode):
        rm = (mode >> shift) & 3
        return R.fma(k, t, a, b, c, rm) if rm else fma_bits(k, t, a, b, c)
    return fn


# --- min / max / med3 ----------------------------------------------------------------------------

def _sort_key(k, x, t):
    """Signed key (in x's width: magnitudes leave the top bit clear) ordering non-NaN floats
    with -0 < +0."""
    f = B.FMT[t]
    mag = k.and_(x, ~f.sign)
    return k.select(k.icmp("!=", k.and_(x, f.sign), 0), k.sub(k.sub(0, mag), 1), mag)


def _minmax(t, want_max):
    def fn(k, a, b, mode):
        ka, kb = _sort_key(k, a, t), _sort_key(k, b, t)
        pick_a = k.scmp(">=", ka, kb) if want_max else k.scmp("<=", ka, kb)
        r = k.select(pick_a, a, b)
        an, bn = B.is_nan(k, a, t), B.is_nan(k, b, t)
        r = k.select(an, b, k.select(bn, a, r))      # a NaN S0 yields S1 (even a NaN S1)
        if mode & MODE_IEEE:
            r = k.select(B.is_snan(k, b, t), B.quiet(k, b, t), r)
            r = k.select(B.is_snan(k, a, t), B.quiet(k, a, t), r)
        return r
    return fn


def _minimum(t, want_max):
    """IEEE 754-2019's minimum/maximum: -0 below +0, NaN when a source is (the pipeline makes
    its bits)."""
    def fn(k, a, b):
        ka, kb = _sort_key(k, a, t), _sort_key(k, b, t)
        r = k.select(k.scmp(">=", ka, kb) if want_max else k.scmp("<=", ka, kb), a, b)
        return k.select(k.b.or_(B.is_nan(k, a, t), B.is_nan(k, b, t)), B.default_nan(k, a, t), r)
    return fn


def _chained(first, second):
    return lambda k, a, b, c: second(k, first(k, a, b), c)


def _three(t, name):
    mn, mx = _minmax(t, False), _minmax(t, True)
    if name == "min3":
        return lambda k, a, b, c, mode: mn(k, mn(k, a, b, mode), c, mode)
    if name == "max3":
        return lambda k, a, b, c, mode: mx(k, mx(k, a, b, mode), c, mode)

    def med3(k, a, b, c, mode):
        any_nan = k.b.or_(k.b.or_(B.is_nan(k, a, t), B.is_nan(k, b, t)), B.is_nan(k, c, t))
        med = mx(k, mn(k, a, b, mode), mn(k, mx(k, a, b, mode), c, mode), mode)
        return k.select(any_nan, mn(k, mn(k, a, b, mode), c, mode), med)
    return med3


# --- rounding to integral values, fract, frexp, ldexp ----------------------------------------------

def _unary(t, intrinsic):
    """trunc/ceil/floor/rint: exact in t (f16 through f32)."""
    def fn(k, a):
        (v,) = _values(k, t, [a])
        return _result(k, t, k.intrinsic(intrinsic, [v]))
    return fn


_BELOW_ONE = {"f16": 0x3BFF, "f32": 0x3F7FFFFF, "f64": 0x3FEFFFFFFFFFFFFF}


def _fract(t):
    # S0 + -floor(S0) in MODE's rounding, clamped below 1.0 (0x3f7fffff for f32); +-inf give
    # inf - inf, a NaN the pipeline makes canonical.
    shift = R.round_shift(t)

    def fract(k, a, mode):
        rm = (mode >> shift) & 3
        (v,) = _values(k, t, [a])
        floor = k.intrinsic("floor", [v])
        if rm:
            r = R.add(k, t, a, k.xor(_result(k, t, floor), B.FMT[t].sign), rm)
        else:
            r = _result(k, t, k.b.fsub(v, floor))
        below_one = k.like(_BELOW_ONE[t], r)
        return k.select(k.b.fcmp_ordered(">", k.view(r, t), k.view(below_one, t)), below_one, r)
    return fract


def _frexp(k, a, t):
    """(mantissa bits in [0.5, 1) with a's sign, exponent as i32) of finite nonzero a;
    a itself and 0 elsewhere (np.frexp, and numpy's np.where(isfinite) around it)."""
    f = B.FMT[t]
    w = k.width(a)
    mant = k.and_(a, f.mant_mask)
    exp_field = k.lshr(k.and_(a, f.exp_mask), f.mant_bits)
    denorm = B.is_denorm(k, a, t)
    # A denormal's significand moves up until its top bit is the implicit one.
    shift = k.select(denorm, k.sub(k.intrinsic("ctlz", [mant, k.flag(False)]), w - f.mant_bits - 1), k.like(0, a))
    e = k.sub(k.select(denorm, k.sub(k.like(1, a), shift), exp_field), f.bias - 1)
    m = k.or_(k.or_(k.and_(a, f.sign), (f.bias - 1) << f.mant_bits), k.and_(k.shl(mant, shift), f.mant_mask))
    ordinary = k.b.not_(k.b.or_(B.is_zero(k, a, t), k.icmp(">=", k.and_(a, f.magnitude), f.exp_mask)))
    return k.select(ordinary, m, a), k.select(ordinary, k.trunc(e, 32) if w == 64 else e, k.i(0))


def _frexp_mant(t):
    return lambda k, a: _frexp(k, a, t)[0]


def _frexp_exp(t):
    if t == "f16":
        return lambda k, a: k.and_(_frexp(k, a, t)[1], 0xFFFF)
    return lambda k, a: _frexp(k, a, t)[1]


def ldexp_bits(k, t, a, e):
    """a * 2**e (e a per-lane i32) rounded once to t; a NaN comes back quieted (div_scale,
    which owns its NaNs, relies on it)."""
    if t == "f64":
        e = k.smax(k.smin(e, 2200), -2200)         # beyond, every finite result saturates
        r = k.b.fptrunc(F.ldexp_ld(k, F.ld(k, k.view(a, t)), e), k.fty("f64"))
        return B.quiet_or(k, t, k.bits(r, t), a)
    limit = 64 if t == "f16" else 400             # f16: numpy clips to +-64; f32: saturates
    e = k.smax(k.smin(e, limit), -limit)
    wide = F.ldexp_f64(k, k.view(B.widen(k, a, t, "f64"), "f64"), e)
    return B.quiet_or(k, t, B.narrow(k, k.bits(wide, "f64"), "f64", t), a)


def _ldexp(t):
    if t == "f16":
        return lambda k, a, e: ldexp_bits(k, t, a, k.sext(k.trunc(e, 16), 32))
    return lambda k, a, e: ldexp_bits(k, t, a, e)


for _t in ALL:
    emits(f"v_add_{_t}")(_binary("add", _t))
    emits(f"v_mul_{_t}")(_binary("mul", _t))
    emits(f"v_fma_{_t}")(_fma(_t))
    emits(f"v_min_{_t}")(_minmax(_t, False))
    emits(f"v_max_{_t}")(_minmax(_t, True))
    emits(f"v_fract_{_t}")(_fract(_t))
    emits(f"v_trunc_{_t}")(_unary(_t, "trunc"))
    emits(f"v_ceil_{_t}")(_unary(_t, "ceil"))
    emits(f"v_floor_{_t}")(_unary(_t, "floor"))
    emits(f"v_rndne_{_t}")(_unary(_t, "roundeven"))
    emits(f"v_frexp_mant_{_t}")(_frexp_mant(_t))
    emits(f"v_ldexp_{_t}")(_ldexp(_t))
    if _t != "f64":
        emits(f"v_sub_{_t}")(_binary("sub", _t))
        emits(f"v_subrev_{_t}")(_binary("sub", _t, swap=True))
        emits(f"v_fmaak_{_t}", f"v_fmamk_{_t}", f"v_fmac_{_t}")(_fma(_t))
        for _k in ("min3", "max3", "med3"):
            emits(f"v_{_k}_{_t}")(_three(_t, _k))

for _t in ALL:
    _lo, _hi = _minimum(_t, False), _minimum(_t, True)
    emits(f"v_minimum_{_t}")(_lo)
    emits(f"v_maximum_{_t}")(_hi)
    if _t != "f64":
        for _name, (_first, _second) in {"minimum3": (_lo, _lo), "maximum3": (_hi, _hi),
                                         "minimummaximum": (_lo, _hi),
                                         "maximumminimum": (_hi, _lo)}.items():
            emits(f"v_{_name}_{_t}")(_chained(_first, _second))
emits("v_frexp_exp_i32_f32")(_frexp_exp("f32"))
emits("v_frexp_exp_i32_f64")(_frexp_exp("f64"))
emits("v_frexp_exp_i16_f16")(_frexp_exp("f16"))


# --- legacy (DX9) multiply: 0 * anything, including inf and NaN, is +0 --------------------

def legacy_zero(k, a, b):
    """Whether S0 or S1 is +-0 (after MODE's flushing): the DX9 product is then +0."""
    zero = k.f(0.0, "f32")
    return k.b.or_(k.b.fcmp_ordered("==", k.view(a, "f32"), zero), k.b.fcmp_ordered("==", k.view(b, "f32"), zero))


@emits("v_mul_legacy_f32")
def _mul_legacy(k, a, b):
    return k.select(legacy_zero(k, a, b), k.like(0, a), k.bits(k.b.fmul(k.view(a, "f32"), k.view(b, "f32")), "f32"))


@emits("v_fma_legacy_f32", "v_fmac_legacy_f32")
def _fma_legacy(k, a, b, c):
    # A zero product is +0 even from a NaN or inf factor: only S2 can make the result NaN.
    fused = B.canonical_nans(k, "f32", fma_bits(k, "f32", a, b, c), [(a, "f32"), (b, "f32"), (c, "f32")])
    plus_zero = k.bits(k.b.fadd(k.view(c, "f32"), k.f(0.0, "f32")), "f32")
    return k.select(legacy_zero(k, a, b), B.canonical_nans(k, "f32", plus_zero, [(c, "f32")]), fused)


# --- division helpers -----------------------------------------------------------------------

_DIV = {  # scale exponent, |N/D| exponent gap that needs scaling, "tiny numerator" exponent
    "f32": (64, 96, 23),
    "f64": (128, 768, 53),
}


def _exponent(k, x, t):
    f = B.FMT[t]
    return k.lshr(k.and_(x, f.exp_mask), f.mant_bits)


def _chain(k, conds, start):
    """numpy's where-chain evaluated bottom-up, so that earlier conditions win."""
    res = start
    for cond, value in reversed(conds):
        res = k.select(cond, value, res)
    return res


def _div_scale(t):
    f = B.FMT[t]
    scale, gap, tiny = _DIV[t]
    smallest_normal = 2.0 ** (1 - f.bias)

    def div_scale(k, s0, s1, s2):
        x, d, n = (k.view(v, t) for v in (s0, s1, s2))
        ed, en = _exponent(k, s1, t), _exponent(k, s2, t)
        up, down = ldexp_bits(k, t, s0, k.i(scale)), ldexp_bits(k, t, s0, k.i(-scale))
        zero_v = k.f(0.0, t)
        zero = k.b.or_(k.b.fcmp_ordered("==", n, zero_v), k.b.fcmp_ordered("==", d, zero_v))
        big_gap = k.scmp(">=", k.sub(en, ed), gap)
        den_denorm = B.is_denorm(k, s1, t)
        rcp_denorm = k.b.fcmp_ordered(">", k.intrinsic("fabs", [d]), k.f(1 / smallest_normal, t))
        quot_denorm = k.b.fcmp_ordered("<", k.intrinsic("fabs", [k.b.fdiv(n, d)]), k.f(smallest_normal, t))
        x_is_d, x_is_n = k.b.fcmp_ordered("==", x, d), k.b.fcmp_ordered("==", x, n)
        conds = [
            (zero, k.like(f.default_nan, s0), False),
            (big_gap, k.select(x_is_d, up, s0), True),
            (den_denorm, up, False),
            (k.b.and_(rcp_denorm, quot_denorm), k.select(x_is_d, down, s0), True),
            (rcp_denorm, down, False),
            (quot_denorm, k.select(x_is_n, up, s0), True),
            (k.scmp("<=", en, tiny), up, False),
        ]
        res = _chain(k, [(c, v) for c, v, _ in conds], s0)
        vcc = _chain(k, [(c, k.true() if s else k.false()) for c, _, s in conds], k.false())
        return res, vcc
    return div_scale


def _div_fmas(t):
    f = B.FMT[t]
    scale = _DIV[t][0]

    def div_fmas(k, a, b, c, vcc):
        # Post-scale undoes div_scale: up if the quotient estimate (S2) is large, else down;
        # applied before the fma's single rounding, so a denormal quotient rounds once.
        factor = k.select(k.icmp(">", _exponent(k, c, t), f.bias), k.i(scale), k.i(-scale))
        e = k.select(vcc, factor, k.i(0))
        if t == "f32":
            wide = [k.view(B.widen(k, x, t, "f64"), "f64") for x in (a, b, c)]
            return F.fma_narrow(k, *wide, t, e)
        va, vb, vc = (k.view(x, t) for x in (a, b, c))
        fused = k.bits(k.intrinsic("fma", [va, vb, vc]), t)

        def scaled():
            wide = F.ldexp_ld(k, F.fma_f64_odd(k, va, vb, vc), e)
            return k.select(vcc, k.bits(k.b.fptrunc(wide, k.fty("f64")), t), fused)
        return k.unlikely(vcc, fused, scaled)
    return div_fmas


def _div_fixup(t):
    f = B.FMT[t]
    emax = f.exp_mask >> f.mant_bits
    underflow_gap = {"f16": -25, "f32": -150, "f64": -1075}[t]

    def div_fixup(k, q, d, n):
        dv, nv = k.view(d, t), k.view(n, t)
        sign = k.and_(k.xor(d, n), f.sign)
        mag = k.and_(q, ~f.sign & ((1 << f.bits) - 1))
        # A NaN quotient without NaN inputs comes from a failed (overflowed) division.
        mag = k.select(B.is_nan(k, q, t), k.like(f.exp_mask, q), mag)
        ed, en = _exponent(k, d, t), _exponent(k, n, t)
        zero_v = k.f(0.0, t)
        d_zero, n_zero = k.b.fcmp_ordered("==", dv, zero_v), k.b.fcmp_ordered("==", nv, zero_v)
        d_inf, n_inf = B.is_inf(k, d, t), B.is_inf(k, n, t)
        qnan = k.like(f.default_nan, q)
        conds = [
            (B.is_nan(k, n, t), B.quiet(k, n, t)),
            (B.is_nan(k, d, t), B.quiet(k, d, t)),
            (k.b.and_(d_zero, n_zero), qnan),
            (k.b.and_(d_inf, n_inf), qnan),
            (k.b.or_(d_zero, n_inf), k.or_(sign, f.exp_mask)),
            (k.b.or_(d_inf, n_zero), sign),
            (k.scmp("<", k.sub(en, ed), underflow_gap), sign),
            (k.icmp("==", ed, emax), k.or_(sign, f.exp_mask)),
        ]
        return _chain(k, conds, k.or_(sign, mag))
    return div_fixup


for _t in ("f32", "f64"):
    emits(f"v_div_scale_{_t}")(_div_scale(_t))
    emits(f"v_div_fmas_{_t}")(_div_fmas(_t))
for _t in ALL:
    emits(f"v_div_fixup_{_t}")(_div_fixup(_t))


# --- cube map coordinates (ISA guide V_CUBEID/SC/TC/MA_F32): pick the major axis ------------

def _cube(kind):
    def cube(k, x, y, z):
        ax, ay, az = (k.intrinsic("fabs", [k.view(v, "f32")]) for v in (x, y, z))
        z_major = k.b.and_(k.b.fcmp_ordered(">=", az, ax), k.b.fcmp_ordered(">=", az, ay))
        y_major = k.b.and_(k.b.not_(z_major), k.b.fcmp_ordered(">=", ay, ax))
        zero = k.f(0.0, "f32")
        below = {name: k.b.fcmp_ordered("<", k.view(v, "f32"), zero) for name, v in (("x", x), ("y", y), ("z", z))}

        def neg(v):
            return k.xor(v, 0x80000000)

        def face(a, b):
            return k.bits(k.f(float(a), "f32"), "f32"), k.bits(k.f(float(b), "f32"), "f32")
        if kind == "id":
            return k.select(z_major, k.select(below["z"], *face(5, 4)),
                            k.select(y_major, k.select(below["y"], *face(3, 2)), k.select(below["x"], *face(1, 0))))
        if kind == "sc":
            return k.select(z_major, k.select(below["z"], neg(x), x),
                            k.select(y_major, x, k.select(below["x"], z, neg(z))))
        if kind == "tc":
            return k.select(z_major, neg(y), k.select(y_major, k.select(below["y"], neg(z), z), neg(y)))
        axis = k.select(z_major, z, k.select(y_major, y, x))
        return k.bits(k.b.fmul(k.f(2.0, "f32"), k.view(axis, "f32")), "f32")
    return cube


for _k in ("id", "sc", "tc", "ma"):
    emits(f"v_cube{_k}_f32")(_cube(_k))
