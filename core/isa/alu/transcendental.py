"""Transcendental VALU ops: rcp, rsq, sqrt, exp (2^x), log (log2), sin/cos (of revolutions).

Invariants:
- results are computed in a wider format and rounded once to the target: rcp and sqrt are
  correctly rounded, the others are within 1 ulp (hardware's own accuracy, ISA guide:
  "1ULP"), so kernels that tolerate hardware tolerate these;
- f32 rcp/rsq/sqrt/exp/log flush denormal inputs and outputs whatever MODE says (the guide:
  "denormals are flushed"); f16 and f64 ones and sin/cos keep denormals;
- sin/cos take revolutions: sin(x * 2*pi), with x reduced modulo 1 exactly first;
- special values as the guide's examples: rcp(±0) = ±inf, rsq(-0) = -inf, log(±0) = -inf,
  log(<0) = NaN, sqrt(-0) = -0, exp(-inf) = 0, sin/cos(±inf) = NaN.
"""
import numpy as np

from core.isa.alu import bits as B
from core.isa.alu.table import op

LD = np.longdouble
TWO_PI = 2 * np.pi


def _in_f64(t, f, flush):
    """Wrap f (float64 -> float64 math) as an op on type t bit patterns."""
    fmt = B.FORMATS[t]
    target = fmt.float

    def fn(a):
        a = np.asarray(a, dtype=np.uint64 if t == "f64" else np.uint32)
        if flush:
            a = B.flush(a.astype(np.uint32), B.F32)
        v = B.VIEW[t](a)
        # f64 rsq goes through long double; rcp and sqrt are correctly rounded in their own
        # width already (and a second rounding from 64 bits could differ for them).
        wide = LD if (t == "f64" and f is _rsq) else np.float64
        r = np.asarray(f(v.astype(wide))).astype(target)
        out = B.PACK[t](r)
        return B.flush(out, B.F32) if flush else out
    return fn


def _rsq(x):
    return 1 / np.sqrt(x)


def _quadrant(x):
    """x revolutions -> (quarter turns mod 4, angle in radians with |angle| <= pi/4); exact
    reduction, so multiples of a quarter turn give exact zeros and ones."""
    r = x - np.rint(x)                       # exact for every representable x
    q = np.rint(4 * r)
    return np.mod(q, 4), TWO_PI * (r - q / 4)


def _sin_rev(x):
    q, a = _quadrant(x)
    s = np.select([q == 0, q == 1, q == 2], [np.sin(a), np.cos(a), -np.sin(a)], -np.cos(a)) + 0.0
    return np.where(x == 0, x, s)


def _cos_rev(x):
    q, a = _quadrant(x)
    return np.select([q == 0, q == 1, q == 2], [np.cos(a), -np.sin(a), -np.cos(a)], np.sin(a)) + 0.0


_FUNCS = {
    "rcp": lambda x: 1 / x,
    "rsq": _rsq,
    "sqrt": np.sqrt,
    "exp": np.exp2,
    "log": np.log2,
    "sin": _sin_rev,
    "cos": _cos_rev,
}

for _name, _f in _FUNCS.items():
    for _t in ("f16", "f32"):
        flush = _t == "f32" and _name not in ("sin", "cos")
        names = [f"v_{_name}_{_t}"] + (["v_rcp_iflag_f32"] if (_name, _t) == ("rcp", "f32") else [])
        op(f"{_t} -> {_t}", *names, ftz=not flush)(_in_f64(_t, _f, flush))
    if _name in ("rcp", "rsq", "sqrt"):
        op("f64 -> f64", f"v_{_name}_f64")(_in_f64("f64", _f, False))
