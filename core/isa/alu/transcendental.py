"""Transcendental VALU ops: rcp, rsq, sqrt, exp (2^x), log (log2), sin/cos (of revolutions).

Invariants:
- results are computed in a wider format and rounded once to the target: rcp and sqrt are
  correctly rounded, the others are within 1 ulp (hardware's own accuracy, ISA guide:
  "1ULP"), so kernels that tolerate hardware tolerate these;
- f32 rcp/rsq/sqrt/exp/log flush denormal inputs and outputs whatever MODE says (the guide:
  "denormals are flushed"); f16 and f64 ones and sin/cos keep denormals;
- sin/cos take revolutions: sin(x * 2*pi), with x reduced modulo 1 exactly first;
- special values as the guide's examples: rcp(±0) = ±inf, rsq(-0) = -inf, log(±0) = -inf,
  log(<0) = NaN, sqrt(-0) = -0, exp(-inf) = 0, sin/cos(±inf) = NaN, sin/cos(±max) = +0/1;
  invalid results are the default NaN (0xffc00000, 0xfe00: the examples' bits), NaN inputs
  come back quieted (table.canonical_nans); a flushed f32 denormal is a signed zero, so
  rcp(-denormal) = -inf and sqrt(-denormal) = -0 for f32; f16 and f64 keep the denormal
  (sqrt of a negative one is then the default NaN).
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
    # x - x: the default NaN (0xffc00000, as the guide's examples) for inf, the input's for NaN.
    return np.where(x == 0, x, np.where(np.isnan(s), x - x, s))


def _cos_rev(x):
    q, a = _quadrant(x)
    c = np.select([q == 0, q == 1, q == 2], [np.cos(a), -np.sin(a), -np.cos(a)], np.sin(a)) + 0.0
    return np.where(np.isnan(c), x - x, c)


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


def _two_over_pi_bits(nbits, guard=128):
    """floor(2/pi * 2**nbits) exactly, from Machin's formula in integer arithmetic."""
    scale = 1 << (nbits + guard)

    def arctan_inv(k):
        total, term, n, sign = 0, scale // k, 1, 1
        while term:
            total += sign * (term // n)
            term //= k * k
            n += 2
            sign = -sign
        return total
    pi_scaled = 16 * arctan_inv(5) - 4 * arctan_inv(239)
    return (2 << (2 * (nbits + guard))) // pi_scaled >> guard


# 2/pi's first 1201 fraction bits (the ISA guide's constant for V_TRIG_PREOP_F64) and, for every
# shift the op can ask for, the 53 bits that start there (zero once past bit 1201).
_PREOP_BITS = 1201
_PREOP_MAX_SHIFT = 31 * 53 + 2047
_TWO_OVER_PI = _two_over_pi_bits(_PREOP_BITS)
_PREOP_SEGMENTS = np.array(
    [float((_TWO_OVER_PI << (53 + s) >> _PREOP_BITS) & ((1 << 53) - 1)) for s in range(_PREOP_MAX_SHIFT + 1)])


@op("f64 u32 -> f64", "v_trig_preop_f64")
def _trig_preop(x, segment):
    """Segment S1[4:0] of 2/pi, aligned for reducing x: 53 bits starting 53*segment bits in
    (further in for large x), truncated, with their place value."""
    exp = ((np.asarray(x, dtype=np.uint64) >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    shift = (np.asarray(segment, dtype=np.uint32) & np.uint32(31)).astype(np.int64) * 53
    shift = shift + np.maximum(exp - 1077, 0)
    scale = -53 - shift + np.where(exp >= 1968, 128, 0)
    return B.from_f64(np.ldexp(_PREOP_SEGMENTS[shift], scale.astype(np.int32)))
