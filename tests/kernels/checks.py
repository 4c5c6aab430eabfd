"""How a kernel's output is compared with its numpy reference.

Holds these invariants:
- Exact compares bit patterns (so -0.0 differs from +0.0), except that any NaN matches
  any NaN: OpenCL leaves NaN payloads to the implementation;
- Ulps measures the error against a reference computed in higher precision (longdouble),
  in units of the last place of the output's own format (f16, f32 or f64), as the OpenCL
  spec states its accuracy requirements;
- every mismatch report names the output, how many elements differ and the first few
  indices with the value the kernel produced and the value expected.
"""
from fractions import Fraction

import numpy as np

_SHOWN = 8


def _report(what, bad, got, want):
    index = np.flatnonzero(bad)
    if index.size:
        rows = ", ".join(f"[{i}] got {got[i]!r} want {want[i]!r}" for i in index[:_SHOWN])
        raise AssertionError(f"{what}: {index.size} of {bad.size} elements differ: {rows}")


class Exact:
    def assert_matches(self, got, want, what):
        got, want = np.ravel(got), np.ravel(want)
        if got.dtype.names:
            # Field by field: padding bytes are whatever a merged store left there.
            for name in got.dtype.names:
                self.assert_matches(got[name], want[name], f"{what} field {name}")
            return
        if got.dtype.kind == "f":
            want = want.astype(got.dtype)
            bits = np.dtype(f"u{got.dtype.itemsize}")
            bad = (got.view(bits) != want.view(bits)) & ~(np.isnan(got) & np.isnan(want))
        else:
            bad = got != want.astype(got.dtype)
        _report(what, bad, got, want)


class Ulps:
    def __init__(self, ulps):
        self.ulps = ulps

    def assert_matches(self, got, want, what):
        got, exact = np.ravel(got), np.ravel(want).astype(np.longdouble)
        with np.errstate(invalid="ignore", over="ignore"):
            rounded = exact.astype(np.float64).astype(got.dtype)
            special = ~np.isfinite(rounded)
            ulp = np.spacing(np.abs(rounded)).astype(np.longdouble)
            err = np.abs(got.astype(np.longdouble) - exact) / ulp
            same_special = (got == rounded) | (np.isnan(got) & np.isnan(rounded))
        bad = np.where(special, ~same_special, ~(err <= self.ulps))
        _report(f"{what} (tolerance {self.ulps} ulp)", bad, got, exact)


class Close:
    """For native_* and other implementation-defined accuracies."""

    def __init__(self, rtol, atol):
        self.rtol, self.atol = rtol, atol

    def assert_matches(self, got, want, what):
        got, want = np.ravel(got), np.ravel(want)
        bad = ~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=self.rtol,
                          atol=self.atol, equal_nan=True)
        _report(f"{what} (rtol {self.rtol}, atol {self.atol})", bad, got, want)


class Columns:
    """One tolerance per column of an output laid out as rows of len(tolerances) values."""

    def __init__(self, *tolerances):
        self.tolerances = tolerances

    def assert_matches(self, got, want, what):
        width = len(self.tolerances)
        got, want = np.reshape(got, (-1, width)), np.reshape(want, (-1, width))
        for column, tolerance in enumerate(self.tolerances):
            tolerance.assert_matches(got[:, column], want[:, column], f"{what} column {column}")


EXACT = Exact()


# --- reference helpers: numpy computations rounded the way the hardware rounds ---

def wrap32(values):
    """Low 32 bits of integer values, as int32 (C's wrapping arithmetic)."""
    return (np.asarray(values, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


def popcount(values):
    v = np.asarray(values).astype(np.uint64)
    count = np.zeros(v.shape, dtype=np.int64)
    for shift in range(64):
        count += ((v >> np.uint64(shift)) & np.uint64(1)).astype(np.int64)
    return count


def clz(values, bits):
    v = np.asarray(values).astype(np.uint64)
    count = np.full(v.shape, bits, dtype=np.int64)
    for shift in range(bits):
        count = np.where((v >> np.uint64(shift)) != 0, bits - 1 - shift, count)
    return count


def fma32(a, b, c):
    """Single-rounded a*b+c for float32: the product is exact in longdouble's 64 bits."""
    exact = a.astype(np.longdouble) * b + c
    return exact.astype(np.float32)


def fma16(a, b, c):
    exact = a.astype(np.longdouble) * b + c
    return exact.astype(np.float64).astype(np.float16)


def fma64(a, b, c):
    """Single-rounded a*b+c for float64, through exact rationals (small arrays only)."""
    out = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    return np.array(out, dtype=np.float64)


def round_to(exact, dtype, mode):
    """Round exactly represented `exact` values (float64 or longdouble) to `dtype` toward
    zero ("rtz"), +inf ("rtp") or -inf ("rtn")."""
    exact = np.asarray(exact, dtype=np.longdouble)
    r = exact.astype(dtype)
    back = r.astype(np.longdouble)
    if mode == "rtz":
        step = np.abs(back) > np.abs(exact)
        target = np.zeros_like(r)
    elif mode == "rtp":
        step, target = back < exact, np.full_like(r, np.inf)
    else:
        step, target = back > exact, np.full_like(r, -np.inf)
    return np.where(step, np.nextafter(r, target), r).astype(dtype)


def llvm_round(x):
    """round() as LLVM 15 lowers it for AMDGPU (f32, f64, and f16 through f32):
    trunc(x) + (|x - trunc(x)| >= 0.5 ? copysign(1, x) : +0.0), each step rounded in x's
    format. The final addition turns a -0.0 truncation into +0.0, so round(-0.25) is +0.0
    on the hardware, where C's round gives -0.0: a gfx1030 reproduced it (LLVM issue 65629);
    LLVM 18 fixed the lowering (PR 65761), the instructions were never at fault."""
    t = np.trunc(x)
    step = np.where(np.abs(x - t) >= 0.5, np.copysign(np.ones_like(x), x), np.zeros_like(x))
    return (t + step).astype(x.dtype)


def c_round(x):
    """round() as C defines it, and as LLVM 18 and later lower it for AMDGPU: halves away
    from zero, the sign kept (round(-0.25) is -0.0)."""
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.copysign(np.ones_like(x), x), t).astype(x.dtype)


def saturate(x, lo, hi, rounding=np.trunc):
    """convert_<int>_sat[_mode] as ROCm's device library computes it (conversions.cl,
    5.2.3 and later alike): round, then min(max(x, lo), hi) before converting. max is
    v_max (or, at -O2, v_med3 with the bounds), which returns the other operand for a quiet
    NaN (V_MAX_F32/V_MED3_F32 pseudocode), so NaN converts to `lo` (INT_MIN for int), not to
    0 as the OpenCL spec says."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(np.isnan(x), lo, np.clip(rounding(np.nan_to_num(x)), lo, hi)).astype(np.int64)
