"""Transcendental VALU ops in IR: rcp, rsq, sqrt, exp (2^x), log (log2), sin/cos (of
revolutions) and v_trig_preop_f64 (core/isa/alu/transcendental.py's emitters).

Invariants (as the numpy family's, whose arithmetic this repeats operation for operation):
- results are computed in f64 and rounded once to the target (f64 rsq in long double, as
  numpy's); rcp/rsq/sqrt are IEEE operations, exp2/log2/sin/cos the C library's double
  functions, which are what numpy calls for doubles (sin/cos), or agree with numpy's own
  SIMD exp2/log2 on every f16 input and, after rounding, on f32 ones (tests check f16
  exhaustively);
- f32 rcp/rsq/sqrt/exp/log flush denormal inputs and outputs whatever MODE says; f16 and f64
  ones and sin/cos keep denormals (the pipeline flushes those per MODE);
- NaN-ness comes out of the same operations as numpy's; the pipeline makes NaNs canonical
  (a NaN input quieted, an invalid operation's default NaN).
"""
from llvmlite import ir

from core.isa.alu.transcendental import _PREOP_SEGMENTS
from core.isa.native.alu import bits as B
from core.isa.native.alu import fused as F
from core.isa.native.alu.table import emits

TWO_PI = 2 * 3.141592653589793


def _in_f64(t, f, flush):
    """An op on t bit patterns computing f (f64 value -> f64 value) and rounding once."""
    def fn(k, a):
        if flush:
            a = B.flush(k, a, "f32")
        if t == "f64":
            out = k.bits(f(k, k.view(a, t)), t)
        else:
            out = B.narrow(k, k.bits(f(k, k.view(B.widen(k, a, t, "f64"), "f64")), "f64"), "f64", t)
        return B.flush(k, out, "f32") if flush else out
    return fn


def _rcp(k, x):
    return k.b.fdiv(k.f(1.0, "f64"), x)


def _rsq(k, x):
    return k.b.fdiv(k.f(1.0, "f64"), k.intrinsic("sqrt", [x]))


def _rsq_f64(k, x):
    """numpy's 1 / np.sqrt(x) in long double, rounded once to double."""
    wide = F.ld(k, x)
    return k.b.fptrunc(k.b.fdiv(F.ld_const(k, 1.0), k.intrinsic("sqrt", [wide])), k.fty("f64"))


def _libm(name):
    return lambda k, x: k.call_scalar(name, [x])


def _quadrant(k, x):
    """x revolutions -> (quarter turns mod 4 as f64, angle in radians with |angle| <= pi/4)."""
    r = k.b.fsub(x, k.intrinsic("rint", [x]))
    q = k.intrinsic("rint", [k.b.fmul(k.f(4.0, "f64"), r)])
    # np.mod(q, 4) for the integers q in [-2, 2]: q, or q + 4 below zero.
    m = k.select(k.b.fcmp_ordered("<", q, k.f(0.0, "f64")), k.b.fadd(q, k.f(4.0, "f64")), q)
    angle = k.b.fmul(k.f(TWO_PI, "f64"), k.b.fsub(r, k.b.fdiv(q, k.f(4.0, "f64"))))
    return m, angle


def _turns(k, x, first):
    """np.select over the quadrant of (sin, cos, -sin, -cos) rotated to start at `first`,
    then + 0.0; invalid lanes (inf) give x - x."""
    q, a = _quadrant(k, x)
    s, c = k.call_scalar("sin", [a]), k.call_scalar("cos", [a])
    order = [s, c, k.b.fneg(s), k.b.fneg(c)] if first == "sin" else [c, k.b.fneg(s), k.b.fneg(c), s]
    v = order[3]
    for i in (2, 1, 0):
        v = k.select(k.b.fcmp_ordered("==", q, k.f(float(i), "f64")), order[i], v)
    v = k.b.fadd(v, k.f(0.0, "f64"))
    return k.select(k.b.fcmp_unordered("uno", v, v), k.b.fsub(x, x), v)


def _sin_rev(k, x):
    return k.select(k.b.fcmp_ordered("==", x, k.f(0.0, "f64")), x, _turns(k, x, "sin"))


def _cos_rev(k, x):
    return _turns(k, x, "cos")


_FUNCS = {
    "rcp": _rcp,
    "rsq": _rsq,
    "sqrt": lambda k, x: k.intrinsic("sqrt", [x]),
    "exp": _libm("exp2"),
    "log": _libm("log2"),
    "sin": _sin_rev,
    "cos": _cos_rev,
}

for _name, _f in _FUNCS.items():
    for _t in ("f16", "f32"):
        _flush = _t == "f32" and _name not in ("sin", "cos")
        emits(f"v_{_name}_{_t}", *(["v_rcp_iflag_f32"] if (_name, _t) == ("rcp", "f32") else []))(
            _in_f64(_t, _f, _flush))
    if _name in ("rcp", "sqrt"):
        emits(f"v_{_name}_f64")(_in_f64("f64", _f, False))
emits("v_rsq_f64")(_in_f64("f64", lambda k, x: _rsq_f64(k, x), False))


def _segments(k):
    """The module's copy of numpy's table of 2/pi segments (one global per module)."""
    module = k.b.module
    name = "softgpu_alu_trig_preop_segments"
    table = module.globals.get(name)
    if table is None:
        ty = ir.ArrayType(ir.DoubleType(), len(_PREOP_SEGMENTS))
        table = ir.GlobalVariable(module, ty, name)
        table.initializer = ir.Constant(ty, [float(v) for v in _PREOP_SEGMENTS])
        table.global_constant = True
        table.linkage = "internal"
    return table


@emits("v_trig_preop_f64")
def _trig_preop(k, x, segment):
    """Segment S1[4:0] of 2/pi, aligned for reducing x: 53 bits starting 53*segment bits in
    (further in for large x), truncated, with their place value."""
    exp = k.trunc(k.and_(k.lshr(x, 52), 0x7FF), 32)
    shift = k.add(k.mul(k.and_(segment, 31), 53), k.smax(k.sub(exp, 1077), 0))
    scale = k.add(k.sub(-53, shift), k.select(k.scmp(">=", exp, 1968), 128, k.like(0, exp)))
    table = _segments(k)
    zero = ir.Constant(ir.IntType(32), 0)
    value = k.lanewise(lambda i: k.b.load(k.b.gep(table, [zero, i])), [shift], ir.DoubleType())
    return k.bits(k.b.fptrunc(F.ldexp_ld(k, F.ld(k, value), scale), k.fty("f64")), "f64")
