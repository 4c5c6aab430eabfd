"""Directed rounding (MODE.FP_ROUND +inf, -inf, toward zero) of add/sub/mul/fma: every result
is the exact value (Python fractions) rounded once in the requested direction, for f32
(bits [1:0]) and f16/f64 (bits [3:2]), including overflow, underflow and exact zero signs."""
from fractions import Fraction

import numpy as np
import pytest

from core.isa.alu import DEFAULT_MODE
from tests.isa.alu_support import as_f16, as_f32, as_f64, f16, f32, f64, one

pytestmark = pytest.mark.usefixtures("alu_impl")

UP, DOWN, TOWARD_ZERO = 1, 2, 3
MODES = {"up": UP, "down": DOWN, "toward_zero": TOWARD_ZERO}
TYPES = {  # type -> (dtype, bits of a value array, values of a bit array, FP_ROUND shift)
    "f32": (np.float32, f32, as_f32, 0),
    "f16": (np.float16, f16, as_f16, 2),
    "f64": (np.float64, f64, as_f64, 2),
}
EXACT = {  # op -> (sources, exact value of the sources)
    "v_add": (2, lambda a, b: a + b),
    "v_sub": (2, lambda a, b: a - b),
    "v_subrev": (2, lambda a, b: b - a),
    "v_mul": (2, lambda a, b: a * b),
    "v_fma": (3, lambda a, b, c: a * b + c),
    "v_fmac": (3, lambda a, b, c: a * b + c),
}


def _mode(rm, t):
    return DEFAULT_MODE | rm << TYPES[t][3]


def _round(q, dtype, rm):
    """The exact value q rounded to dtype in direction rm (q nonzero): a neighbour of q
    from double rounding, then one step where it lies on the wrong side of q."""
    try:
        with np.errstate(over="ignore"):
            c = dtype(float(q))
    except OverflowError:
        c = dtype(np.inf if q > 0 else -np.inf)
    above = np.isposinf(c) or (np.isfinite(c) and Fraction(float(c)) > q)
    below = np.isneginf(c) or (np.isfinite(c) and Fraction(float(c)) < q)
    if rm == UP and below:
        return np.nextafter(c, dtype(np.inf))
    if rm == DOWN and above:
        return np.nextafter(c, dtype(-np.inf))
    if rm == TOWARD_ZERO and ((c > 0 and above) or (c < 0 and below)):
        return np.nextafter(c, dtype(0))
    return c


def _operands(t, rng, n):
    """Finite values spread over the whole exponent range (inexact in f64 for f32 sums,
    overflowing and underflowing f64 products) plus values of similar size (cancellation)."""
    dtype = TYPES[t][0]
    width = np.dtype(dtype).itemsize * 8
    raw = rng.integers(0, 2**width, n, dtype=np.uint64).astype(f"u{width // 8}").view(dtype)
    raw = np.where(np.isfinite(raw), raw, dtype(1.5))
    near = rng.uniform(-4, 4, n).astype(dtype)
    return np.concatenate([raw, near])


@pytest.mark.parametrize("t,name", [(t, name) for t in TYPES for name in EXACT
                                    if t != "f64" or name in ("v_add", "v_mul", "v_fma")])
@pytest.mark.parametrize("mode", MODES)
def test_directed_results_are_the_exact_value_rounded_once(t, name, mode):
    dtype, pack, unpack, _ = TYPES[t]
    nsrc, exact = EXACT[name]
    rng = np.random.default_rng(sum(map(ord, t + name + mode)))
    srcs = [_operands(t, rng, 300) for _ in range(nsrc)]
    rm = MODES[mode]
    got = unpack(one(f"{name}_{t}", *(pack(*s) for s in srcs), mode=_mode(rm, t)))
    for i, lane in enumerate(zip(*srcs)):
        q = exact(*(Fraction(float(x)) for x in lane))
        if q == 0:
            continue                        # zero signs: test_exact_zero_sums_*
        want = _round(q, dtype, rm)
        assert got[i].tobytes() == want.tobytes(), (lane, got[i], want)


@pytest.mark.parametrize("t", TYPES)
def test_overflow_gives_infinity_only_when_rounding_away_from_zero(t):
    dtype, pack, unpack, _ = TYPES[t]
    big = np.finfo(dtype).max
    a, b = pack(big, -big), pack(big, -big)
    top = np.array([big, -big], dtype)
    inf = np.array([np.inf, -np.inf], dtype)
    want = {UP: [np.inf, -big], DOWN: [big, -np.inf], TOWARD_ZERO: top}
    for rm, expect in want.items():
        expect = np.array(expect, dtype)
        assert (unpack(one(f"v_add_{t}", a, b, mode=_mode(rm, t))) == expect).all()
        assert (unpack(one(f"v_fma_{t}", a, pack(2, 2), pack(0, 0), mode=_mode(rm, t))) == expect).all()
    assert (unpack(one(f"v_add_{t}", a, b)) == inf).all()


@pytest.mark.parametrize("t", TYPES)
def test_exact_zero_sums_are_minus_zero_only_when_rounding_down(t):
    dtype, pack, unpack, _ = TYPES[t]
    a, b = pack(1.0, 0.0, 0.0, -0.0), pack(-1.0, 0.0, -0.0, -0.0)
    signs = {UP: [False, False, False, True], TOWARD_ZERO: [False, False, False, True],
             DOWN: [True, False, True, True]}
    for rm, negative in signs.items():
        got = unpack(one(f"v_add_{t}", a, b, mode=_mode(rm, t)))
        assert (got == 0).all() and list(np.signbit(got)) == negative, (rm, got)
        fma = unpack(one(f"v_fma_{t}", a, pack(1, 1, 1, 1), b, mode=_mode(rm, t)))
        assert list(np.signbit(fma)) == negative, (rm, fma)
    # A zero product keeps its own sign: it is no sum.
    prod = unpack(one(f"v_mul_{t}", pack(-0.0, 0.0), pack(1.0, 1.0), mode=_mode(DOWN, t)))
    assert list(np.signbit(prod)) == [True, False]


@pytest.mark.parametrize("t", TYPES)
def test_underflow_rounds_to_the_smallest_denormal_or_zero(t):
    dtype, pack, unpack, _ = TYPES[t]
    tiny = np.finfo(dtype).smallest_subnormal
    a = pack(tiny, -tiny)
    half = pack(0.5, 0.5)
    assert list(unpack(one(f"v_mul_{t}", a, half, mode=_mode(UP, t)))) == [tiny, -0.0]
    assert list(unpack(one(f"v_mul_{t}", a, half, mode=_mode(DOWN, t)))) == [0.0, -tiny]
    got = unpack(one(f"v_mul_{t}", a, half, mode=_mode(TOWARD_ZERO, t)))
    assert (got == 0).all() and list(np.signbit(got)) == [False, True]


@pytest.mark.parametrize("t", TYPES)
def test_infinities_and_nans_are_unchanged_by_the_direction(t):
    dtype, pack, unpack, _ = TYPES[t]
    a, b = pack(np.inf, -np.inf, np.inf, np.nan), pack(1.0, 1.0, -np.inf, 1.0)
    for rm in MODES.values():
        got = unpack(one(f"v_add_{t}", a, b, mode=_mode(rm, t)))
        assert list(got[:2]) == [np.inf, -np.inf] and np.isnan(got[2:]).all()


def _spread(name, t, field, *srcs):
    """Whether rounding up and down by `field`'s bits (FP_ROUND shift) give different
    results, i.e. whether the op's type listens to that field."""
    up, down = (one(name, *srcs, mode=DEFAULT_MODE | rm << field) for rm in (UP, DOWN))
    return not (up == down).all()


def test_each_type_follows_its_own_field():
    """Bits [1:0] round f32 only, bits [3:2] f64 and f16 only (also v_pk_*_f16 halves)."""
    for t, (dtype, pack, _, field) in TYPES.items():
        third = pack(dtype(1) / dtype(3))
        assert _spread(f"v_mul_{t}", t, field, third, pack(3))
        assert not _spread(f"v_mul_{t}", t, 2 - field, third, pack(3))
    third = f16(np.float16(1) / np.float16(3))
    pair, three = third | third << 16, f16(3) | f16(3) << 16
    up, down = (one("v_pk_mul_f16", pair, three, mode=DEFAULT_MODE | rm << 2) for rm in (UP, DOWN))
    assert (up & 0xFFFF) != (down & 0xFFFF) and (up >> 16) != (down >> 16)
