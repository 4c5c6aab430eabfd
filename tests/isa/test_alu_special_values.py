"""Every ALU op over the IEEE special values, in the MODE variants that change its results.

Values: +-0, +-denormals (the smallest), +-smallest normal, +-largest finite, +-inf, quiet and
signalling NaNs with payloads and both signs, halves (+-0.5, +-1.5, +-2.5), small negatives,
integer limits. Expected results are written out per family from the RDNA ISA guides'
pseudocode, notes and functional examples (IEEE 754 where the guide says "IEEE rules"), not
computed by the library; each table says where its rows come from. The one sweep over every
registered op checks what holds for all of them: results have the documented shapes and
types, 16-bit results leave the high half zero, and a NaN result of a float op is the first
NaN source quieted or the default NaN (core.isa.alu.table).
"""
import numpy as np
import pytest

from core.isa import alu
from core.isa.alu import table
from tests.isa.alu_support import lookup, one, run

pytestmark = pytest.mark.usefixtures("alu_impl")

# --- bit patterns -------------------------------------------------------------------------

FORMATS = {"f16": (np.float16, 16, 10), "f32": (np.float32, 32, 23), "f64": (np.float64, 64, 52)}
UNSIGNED = {16: np.uint16, 32: np.uint32, 64: np.uint64}


def special(t, x):
    """The bit pattern (int) of x in float format t: a number, or a special value's name."""
    dtype, width, mant = FORMATS[t]
    sign, exp, quiet = 1 << (width - 1), ((1 << (width - 1)) - 1) & ~((1 << mant) - 1), 1 << (mant - 1)
    if not isinstance(x, str):
        return int(np.array(x, dtype).view(UNSIGNED[width]))
    negative, name = x.startswith("-"), x.lstrip("+-")
    bits = {
        "0": 0, "dmin": 1, "nmin": 1 << mant, "max": exp - 1, "inf": exp,
        "qnan": exp | quiet, "qnan_p": exp | quiet | 5, "snan": exp | 1, "snan_p": exp | (quiet >> 1) | 5,
        "below_one": special(t, 1.0) - 1, "default_nan": sign | exp | quiet,
    }[name]
    return bits | (sign if negative else 0)


def quiet(t, x):
    return special(t, x) | (1 << (FORMATS[t][2] - 1))


def bits_array(t, xs):
    """Operand array of the ALU's representation for type t ('f16' in a uint32)."""
    return np.array([special(t, x) for x in xs], dtype=np.uint64 if t == "f64" else np.uint32)


def expect(name, got, want, inputs=None):
    got = [int(g) for g in np.atleast_1d(got)]
    want = [int(w) for w in want]
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, [(name, inputs[i] if inputs else i, hex(got[i]), hex(want[i])) for i in bad[:6]]


DEFAULT = alu.DEFAULT_MODE
IEEE_OFF = DEFAULT & ~table.MODE_IEEE
DX10_OFF = DEFAULT & ~table.MODE_DX10_CLAMP
FLUSH_ALL = DEFAULT & ~(0xF << table.MODE_DENORM_F32_SHIFT)
# Graphics-shader MODE: IEEE off and output denormals flushed, the only MODE omod works in.
SHADER = IEEE_OFF & ~(2 << table.MODE_DENORM_F32_SHIFT) & ~(2 << table.MODE_DENORM_F64F16_SHIFT)


def flush_inputs_of(t):
    """MODE flushing input denormals of type t, keeping output denormals."""
    shift = table.MODE_DENORM_F32_SHIFT if t == "f32" else table.MODE_DENORM_F64F16_SHIFT
    return DEFAULT & ~(1 << shift)


def keep_inputs_flush_outputs(t):
    shift = table.MODE_DENORM_F32_SHIFT if t == "f32" else table.MODE_DENORM_F64F16_SHIFT
    return DEFAULT & ~(2 << shift)


def round_mode(t, rm):
    """MODE with FP_ROUND for type t set to rm (1 up, 2 down, 3 toward zero)."""
    return DEFAULT | rm << (0 if t == "f32" else 2)


# --- every op, every MODE variant -----------------------------------------------------------

FLOAT_NAMES = ["+0", "-0", "+dmin", "-dmin", "+nmin", "-nmin", "+max", "-max", "+inf", "-inf", "qnan", "-qnan",
               "qnan_p", "snan", "snan_p", "-snan_p", 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.25, 1.0]
INT_LIMITS = {
    32: [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x7FFF, 0x8000, 0xFFFF, 31, 32, 33, 0x12345678],
    64: [0, 1, 2**64 - 1, 2**63, 2**63 - 1, 2**32, 2**32 - 1, 0x123456789ABCDEF0],
}
MODES = {"default": DEFAULT, "ieee_off": IEEE_OFF, "dx10_off": DX10_OFF, "flush_all": FLUSH_ALL,
         "shader": SHADER, "round_up": DEFAULT | 0b0101, "round_zero": DEFAULT | 0b1111}


def _values(t, n, k):
    """n operand values of type t, cycling through the specials with stride k."""
    if t in FORMATS:
        names = [FLOAT_NAMES[(i * k) % len(FLOAT_NAMES)] for i in range(n)]
        return bits_array(t, names)
    if t in ("mask", "scc"):
        return np.array([(i * k) % 3 == 0 for i in range(n)])
    if t == "lane":
        return np.arange(n, dtype=np.uint32) % 64
    width = 64 if t.endswith("64") else 32
    # 32-bit words also carry packed halves: integer limits and f16 1.0/-1.0, sNaN/-qNaN.
    pool = INT_LIMITS[width] + ([0x7FFF8000, 0x80007FFF, 0x3C00BC00, 0x7C01FE00] if width == 32 else [])
    raw = [pool[(i * k) % len(pool)] for i in range(n)]
    return np.array(raw, dtype=np.uint64 if width == 64 else np.uint32)


def _sources(op):
    """Operands crossing every pair of specials of the first two sources; later ones cycle."""
    count = len(FLOAT_NAMES) ** 2
    cols = []
    for i, t in enumerate(op.src_types):
        v = _values(t, count, 1 if i == 0 else len(FLOAT_NAMES) + i)
        if i == 0 and t in FORMATS:
            v = np.repeat(v[:len(FLOAT_NAMES)], len(FLOAT_NAMES))
        cols.append(v)
    return cols


# One test per op: the modes run inside it (7 * 583 parameters would cost more than the work).
@pytest.mark.parametrize("name", sorted(alu.coverage()))
def test_every_op_over_special_values_in_every_mode(name):
    op = lookup(name)
    srcs = _sources(op)
    for mode_name, mode in MODES.items():
        kw = {"mode": mode, "clamp": mode_name == "dx10_off", "omod": 1 if mode_name == "shader" else 0}
        if op.packed or op.mix or op.int_clamp:
            kw["omod"] = 0
        out = op(*srcs, **kw)
        assert len(out) == len(op.dst_types)
        for r, t in zip(out, op.dst_types):
            assert np.shape(r) == np.shape(srcs[0]), (name, t)
            if t in ("mask", "scc"):
                assert r.dtype == np.bool_
            elif t in ("f16", "b16", "u16", "i16"):
                assert (np.asarray(r, dtype=np.uint64) >> np.uint64(16) == 0).all(), (name, mode_name)
        t = op.dst_types[0]
        if t in FORMATS and not op.own_nans and not (op.packed or op.mix):
            _assert_nan_results_are_canonical(name, out[0], t, op, srcs, kw)


def _assert_nan_results_are_canonical(name, r, t, op, srcs, kw):
    """NaN lanes hold the first NaN source (as modified: op with no modifiers here) quieted
    into t, or t's default NaN."""
    fmt = alu.bits.FORMATS[t]
    nan = alu.bits.is_nan(np.asarray(r, fmt.uint), fmt)
    want = np.full(np.shape(r), int(fmt.default_nan), dtype=object)
    for x, st in reversed([(x, st) for x, st in zip(srcs, op.src_types) if st in FORMATS]):
        sfmt = alu.bits.FORMATS[st]
        x = np.asarray(x, sfmt.uint)
        if st in ("f16", "b16", "u16", "i16"):
            x = x & sfmt.uint(0xFFFF)
        want = np.where(alu.bits.is_nan(x, sfmt), alu.bits.quiet_nan_as(x, sfmt, fmt).astype(object), want)
    got = np.asarray(r).astype(object)
    assert (got[nan] == want[nan]).all(), name


# --- rounding: trunc, ceil, floor, rndne, fract ---------------------------------------------
# V_TRUNC/V_CEIL/V_FLOOR/V_RNDNE_F* pseudocode (trunc, then +-1.0 when S0 lies beyond it) keeps
# IEEE's signs: a small negative rounds to -0, never +0; V_FRACT_F*: S0 + -floor(S0) in the
# MODE rounding, "result clamped to 0x3f7fffff" (0x3fefffffffffffff; 0x3bff for f16, as LLVM's
# folder), so +-inf give inf - inf, the default NaN.

ROUNDING = [  # input, trunc, ceil, floor, rndne, fract
    (-0.25, "-0", "-0", -1.0, "-0", 0.75),
    (-0.5, "-0", "-0", -1.0, "-0", 0.5),
    (-0.75, "-0", "-0", -1.0, -1.0, 0.25),
    ("-0", "-0", "-0", "-0", "-0", "+0"),
    ("+0", "+0", "+0", "+0", "+0", "+0"),
    (0.5, "+0", 1.0, "+0", "+0", 0.5),
    (1.5, 1.0, 2.0, 1.0, 2.0, 0.5),
    (-1.5, -1.0, -1.0, -2.0, -2.0, 0.5),
    (2.5, 2.0, 3.0, 2.0, 2.0, 0.5),
    (-2.5, -2.0, -2.0, -3.0, -2.0, 0.5),
    ("-dmin", "-0", "-0", -1.0, "-0", "below_one"),
    ("+dmin", "+0", 1.0, "+0", "+0", "+dmin"),
    ("-nmin", "-0", "-0", -1.0, "-0", "below_one"),
    ("+max", "+max", "+max", "+max", "+max", "+0"),
    ("-max", "-max", "-max", "-max", "-max", "+0"),
    ("+inf", "+inf", "+inf", "+inf", "+inf", "default_nan"),
    ("-inf", "-inf", "-inf", "-inf", "-inf", "default_nan"),
]
ROUNDING_OPS = ("trunc", "ceil", "floor", "rndne", "fract")


@pytest.mark.parametrize("t", FORMATS)
def test_rounding_ops_keep_ieee_signs_and_fract_clamps_below_one(t):
    inputs = [row[0] for row in ROUNDING]
    for k, name in enumerate(ROUNDING_OPS):
        got = one(f"v_{name}_{t}", bits_array(t, inputs))
        expect(f"v_{name}_{t}", got, [special(t, row[k + 1]) for row in ROUNDING], inputs)


@pytest.mark.parametrize("t", FORMATS)
def test_rounding_ops_quiet_nans_keeping_sign_and_payload(t):
    nans = ["qnan_p", "-qnan", "snan_p", "-snan_p", "snan"]
    for name in ROUNDING_OPS:
        expect(f"v_{name}_{t}", one(f"v_{name}_{t}", bits_array(t, nans)), [quiet(t, x) for x in nans], nans)


@pytest.mark.parametrize("t", FORMATS)
def test_rounding_ops_see_flushed_denormals_as_zeros(t):
    """With input denormals flushed, -dmin is -0: floor(-dmin) is -0, not -1."""
    mode = flush_inputs_of(t)
    want = {"trunc": ("-0", "+0"), "ceil": ("-0", "+0"), "floor": ("-0", "+0"), "rndne": ("-0", "+0"),
            "fract": ("+0", "+0")}
    for name, (neg, pos) in want.items():
        got = one(f"v_{name}_{t}", bits_array(t, ["-dmin", "+dmin"]), mode=mode)
        expect(f"v_{name}_{t}", got, [special(t, neg), special(t, pos)])


def test_fract_rounds_as_mode_says():
    """1 - 1e-7 lies between 0x3f7ffffe (nearest) and 0x3f7fffff."""
    x = bits_array("f32", [-1e-7])
    for rm, want in ((0, 0x3F7FFFFE), (1, 0x3F7FFFFF), (2, 0x3F7FFFFE), (3, 0x3F7FFFFE)):
        expect("v_fract_f32", one("v_fract_f32", x, mode=round_mode("f32", rm)), [want])


# --- min / max / min3 / max3 / med3 ---------------------------------------------------------
# RDNA2 V_MIN_F32/V_MAX_F32 pseudocode: in IEEE mode a signalling NaN (S0 first) is returned
# quieted; otherwise a NaN S0 yields S1 and a NaN S1 yields S0 (so two NaNs give S1, a
# signalling one unquieted when IEEE is off); -0 < +0. V_MED3/MIN3/MAX3: min/max compositions,
# med3 of any NaN is min3 (LLVM's table in AMDGPUInstCombineIntrinsic agrees, per position).

MIN_MAX = [  # a, b, (min, max) with IEEE on, (min, max) with IEEE off
    ("-0", "+0", ("-0", "+0"), ("-0", "+0")),
    ("+0", "-0", ("-0", "+0"), ("-0", "+0")),
    ("qnan_p", 1.0, (1.0, 1.0), (1.0, 1.0)),
    (1.0, "-qnan", (1.0, 1.0), (1.0, 1.0)),
    ("qnan", "qnan_p", ("qnan_p", "qnan_p"), ("qnan_p", "qnan_p")),
    ("snan_p", 1.0, ("Q:snan_p", "Q:snan_p"), (1.0, 1.0)),
    (1.0, "-snan_p", ("Q:-snan_p", "Q:-snan_p"), (1.0, 1.0)),
    ("snan", "snan_p", ("Q:snan", "Q:snan"), ("snan_p", "snan_p")),
    ("qnan_p", "snan", ("Q:snan", "Q:snan"), ("snan", "snan")),
    ("-inf", "+inf", ("-inf", "+inf"), ("-inf", "+inf")),
    ("-max", "-inf", ("-inf", "-max"), ("-inf", "-max")),
    ("+dmin", "-dmin", ("-dmin", "+dmin"), ("-dmin", "+dmin")),
]


def _value(t, x):
    return quiet(t, x[2:]) if isinstance(x, str) and x.startswith("Q:") else special(t, x)


@pytest.mark.parametrize("t", FORMATS)
def test_min_max_select_by_the_pseudocode_in_both_ieee_modes(t):
    a, b = bits_array(t, [r[0] for r in MIN_MAX]), bits_array(t, [r[1] for r in MIN_MAX])
    for mode, col in ((DEFAULT, 2), (IEEE_OFF, 3)):
        for k, name in enumerate(("min", "max")):
            want = [_value(t, r[col][k]) for r in MIN_MAX]
            expect(f"v_{name}_{t}", one(f"v_{name}_{t}", a, b, mode=mode), want, [r[:2] for r in MIN_MAX])
            if t == "f16":
                packed = one(f"v_pk_{name}_f16", a | (b << 16), b | (a << 16), mode=mode)
                expect(f"v_pk_{name}_f16 lo", packed & 0xFFFF, want)


@pytest.mark.parametrize("t", FORMATS)
def test_min_max_keep_denormals_the_input_mode_lets_in(t):
    """'If input denorm mode is enabling denorm, ... outputs as a denorm regardless of output
    denorm mode' (RDNA3 guide, V_MIN_F32); with inputs flushed the denormals are zeros."""
    a, b = bits_array(t, ["+dmin", "-dmin"]), bits_array(t, [1.0, "+0"])
    expect("min, output flush", one(f"v_min_{t}", a, b, mode=keep_inputs_flush_outputs(t)),
           [special(t, "+dmin"), special(t, "-dmin")])
    expect("min, input flush", one(f"v_min_{t}", a, b, mode=flush_inputs_of(t)),
           [special(t, "+0"), special(t, "-0")])


THREE = [  # s0, s1, s2, IEEE on (min3, max3, med3), IEEE off (min3, max3, med3)
    ("qnan", 1.0, 2.0, (1.0, 2.0, 1.0), (1.0, 2.0, 1.0)),
    (1.0, "qnan", 2.0, (1.0, 2.0, 1.0), (1.0, 2.0, 1.0)),
    (1.0, 2.0, "qnan", (1.0, 2.0, 1.0), (1.0, 2.0, 1.0)),
    ("snan", 1.0, 2.0, (2.0, 2.0, 2.0), (1.0, 2.0, 1.0)),
    (1.0, "snan", 2.0, (2.0, 2.0, 2.0), (1.0, 2.0, 1.0)),
    (1.0, 2.0, "snan", ("Q:snan", "Q:snan", "Q:snan"), (1.0, 2.0, 1.0)),
    ("-0", "-0", "+0", ("-0", "+0", "-0"), ("-0", "+0", "-0")),
    ("+0", "-0", 1.0, ("-0", 1.0, "+0"), ("-0", 1.0, "+0")),
    ("+inf", 1.0, 2.0, (1.0, "+inf", 2.0), (1.0, "+inf", 2.0)),
    ("-inf", 1.0, 2.0, ("-inf", 2.0, 1.0), ("-inf", 2.0, 1.0)),
]


@pytest.mark.parametrize("t", ["f16", "f32"])
def test_min3_max3_med3_with_nans_in_every_position(t):
    srcs = [bits_array(t, [r[i] for r in THREE]) for i in range(3)]
    for mode, col in ((DEFAULT, 3), (IEEE_OFF, 4)):
        for k, name in enumerate(("min3", "max3", "med3")):
            want = [_value(t, r[col][k]) for r in THREE]
            expect(f"v_{name}_{t}", one(f"v_{name}_{t}", *srcs, mode=mode), want, [r[:3] for r in THREE])


# --- add / sub / mul / fma and their variants -----------------------------------------------
# Results are IEEE 754 (round to nearest even, signed zeros of section 6.3). A NaN result is
# the first NaN operand in source order, quieted (sign and payload kept; x86 picks the same for
# two operands); an invalid operation (inf - inf, 0 * inf) gives the default NaN.

ARITH = {  # op: [(sources..., result)]
    "add": [("qnan_p", 1.0, "qnan_p"), (1.0, "-qnan", "-qnan"), ("qnan", "qnan_p", "qnan"),
            ("qnan_p", "qnan", "qnan_p"), ("snan_p", "qnan", "Q:snan_p"), ("qnan", "snan_p", "qnan"),
            (2.0, "-snan_p", "Q:-snan_p"), ("+inf", "-inf", "default_nan"), ("-0", "-0", "-0"),
            ("-0", "+0", "+0"), (1.0, -1.0, "+0"), ("+max", "+max", "+inf"), ("-max", "-max", "-inf"),
            ("+dmin", "-dmin", "+0"), ("-dmin", "-0", "-dmin")],
    "sub": [("+inf", "+inf", "default_nan"), (1.0, 1.0, "+0"), ("-0", "+0", "-0"), ("qnan", "qnan_p", "qnan")],
    "subrev": [("+inf", "+inf", "default_nan"), ("+0", "-0", "-0"), ("qnan_p", "qnan", "qnan_p")],
    "mul": [("+0", "+inf", "default_nan"), ("-inf", "-0", "default_nan"), ("-0", 2.5, "-0"), ("-0", "-0", "+0"),
            ("qnan_p", "+0", "qnan_p"), ("+max", 2.0, "+inf"), ("+dmin", 0.5, "+0"), ("-dmin", 0.5, "-0"),
            ("snan", "qnan_p", "Q:snan")],
    "fma": [("+0", "+inf", "qnan_p", "qnan_p"), ("+inf", "+0", 1.0, "default_nan"),
            ("qnan", 1.0, "qnan_p", "qnan"), ("-0", 1.0, "-0", "-0"), ("-0", 1.0, "+0", "+0"),
            (1.0, 1.0, -1.0, "+0"), ("+max", 2.0, "-max", "+max"), ("+inf", 1.0, "-inf", "default_nan"),
            (1.0, "snan_p", "qnan", "Q:snan_p")],
}


@pytest.mark.parametrize("t", FORMATS)
@pytest.mark.parametrize("name", ARITH)
def test_arithmetic_nans_zeros_and_overflow(t, name):
    if t == "f64" and name in ("sub", "subrev"):
        pytest.skip("gfx1030 has no v_sub_f64")
    rows = ARITH[name]
    srcs = [bits_array(t, [r[i] for r in rows]) for i in range(len(rows[0]) - 1)]
    want = [_value(t, r[-1]) for r in rows]
    expect(f"v_{name}_{t}", one(f"v_{name}_{t}", *srcs), want, rows)
    variants = {"fma": ["fmac", "fmaak", "fmamk"] if t != "f64" else []}.get(name, [])
    for v in variants:
        expect(f"v_{v}_{t}", one(f"v_{v}_{t}", *srcs), want, rows)
    if t == "f16" and name in ("add", "mul", "fma"):
        packed = one(f"v_pk_{name}_f16", *(s | (s << 16) for s in srcs))
        expect(f"v_pk_{name}_f16", packed, [w | (w << 16) for w in want], rows)


@pytest.mark.parametrize("t", FORMATS)
def test_neg_modifier_flips_a_nans_sign_before_it_propagates(t):
    got = one(f"v_add_{t}", bits_array(t, ["qnan_p"]), bits_array(t, [1.0]), neg=0b01)
    expect("neg NaN", got, [special(t, "-qnan_p")])


@pytest.mark.parametrize("t", FORMATS)
def test_denormal_modes_flush_inputs_and_outputs_separately(t):
    a, b = bits_array(t, ["+dmin", "+nmin"]), bits_array(t, [2.0, 0.5])
    # dmin * 2 = 2*dmin (denormal in, denormal out); nmin * 0.5 (normal in, denormal out).
    keep = [special(t, "+dmin") * 2, special(t, "+nmin") // 2]
    expect("keep", one(f"v_mul_{t}", a, b), keep)
    expect("flush inputs", one(f"v_mul_{t}", a, b, mode=flush_inputs_of(t)), [special(t, "+0"), keep[1]])
    expect("flush outputs", one(f"v_mul_{t}", a, b, mode=keep_inputs_flush_outputs(t)), [0, 0])
    neg = one(f"v_mul_{t}", bits_array(t, ["-nmin"]), bits_array(t, [0.5]), mode=keep_inputs_flush_outputs(t))
    expect("flushed to -0", neg, [special(t, "-0")])


def test_clamp_and_omod_follow_mode():
    """CLAMP: NaN -> +0 only with DX10_CLAMP ('otherwise, pass NaN through'); -0 stays -0.
    OMOD: 'ignored if the IEEE mode bit is set', 'ignored' with output denormals enabled;
    otherwise scales, flushes denormals and 'flushes -0 to +0'."""
    a, b = bits_array("f32", ["+inf", "-0", 3.0, -3.0]), bits_array("f32", ["+0", 1.0, 1.0, 1.0])
    expect("clamp dx10", one("v_mul_f32", a, b, clamp=True), [0, 0x80000000, 0x3F800000, 0])
    expect("clamp no dx10", one("v_mul_f32", a, b, clamp=True, mode=DX10_OFF),
           [0xFFC00000, 0x80000000, 0x3F800000, 0])
    x, y = bits_array("f32", [1.5, -1.0, "+nmin", "qnan_p"]), bits_array("f32", [1.0, "+0", 0.75, 1.0])
    expect("omod ieee", one("v_mul_f32", x, y, omod=1), [special("f32", 1.5), 0x80000000,
                                                      special("f32", "+nmin") * 3 // 4, special("f32", "qnan_p")])
    expect("omod with output denormals", one("v_mul_f32", x, y, omod=1, mode=IEEE_OFF),
           [special("f32", 1.5), 0x80000000, special("f32", "+nmin") * 3 // 4, special("f32", "qnan_p")])
    expect("omod shader", one("v_mul_f32", x, y, omod=1, mode=SHADER),
           [special("f32", 3.0), 0, special("f32", "+nmin") * 3 // 2, special("f32", "qnan_p")])
    expect("omod /2 flushes", one("v_mul_f32", bits_array("f32", ["+nmin"]), bits_array("f32", [1.0]),
                                  omod=3, mode=SHADER), [0])


# --- conversions ------------------------------------------------------------------------------
# V_CVT_{I,U}32_F{32,64}, V_CVT_{I,U}16_F16: truncate, "out-of-range floating point values
# (including infinity) saturate. NAN is converted to 0". V_CVT_FLOOR (flr): floor. V_CVT_NEAREST
# (rpi): floor(S0 + 0.5), the add in f32.

INT_MIN, INT_MAX, UMAX = -2**31, 2**31 - 1, 2**32 - 1
TO_INT = [  # input, i32, u32, flr_i32, rpi_i32
    ("qnan_p", 0, 0, 0, 0), ("-qnan", 0, 0, 0, 0), ("snan_p", 0, 0, 0, 0), ("-snan_p", 0, 0, 0, 0),
    ("+inf", INT_MAX, UMAX, INT_MAX, INT_MAX), ("-inf", INT_MIN, 0, INT_MIN, INT_MIN),
    ("+max", INT_MAX, UMAX, INT_MAX, INT_MAX), ("-max", INT_MIN, 0, INT_MIN, INT_MIN),
    ("-0", 0, 0, 0, 0), (-0.5, 0, 0, -1, 0), (0.5, 0, 0, 0, 1), (-1.5, -1, 0, -2, -1), (1.5, 1, 1, 1, 2),
    (-2.5, -2, 0, -3, -2), (2.5, 2, 2, 2, 3), (2.0**31, INT_MAX, 2**31, INT_MAX, INT_MAX),
    (-2.0**31, INT_MIN, 0, INT_MIN, INT_MIN), (2.0**32, INT_MAX, UMAX, INT_MAX, INT_MAX),
    (-1.0, -1, 0, -1, -1), ("-dmin", 0, 0, -1, 0), ("+dmin", 0, 0, 0, 0),
]


def _u32s(values):
    return [v & 0xFFFFFFFF for v in values]


def test_f32_and_f64_to_int_saturate_and_map_every_nan_to_zero():
    inputs = [r[0] for r in TO_INT]
    for t in ("f32", "f64"):
        x = bits_array(t, inputs)
        expect(f"v_cvt_i32_{t}", one(f"v_cvt_i32_{t}", x), _u32s(r[1] for r in TO_INT), inputs)
        expect(f"v_cvt_u32_{t}", one(f"v_cvt_u32_{t}", x), _u32s(r[2] for r in TO_INT), inputs)
    x = bits_array("f32", inputs)
    expect("v_cvt_flr_i32_f32", one("v_cvt_flr_i32_f32", x), _u32s(r[3] for r in TO_INT), inputs)
    expect("v_cvt_rpi_i32_f32", one("v_cvt_rpi_i32_f32", x), _u32s(r[4] for r in TO_INT), inputs)
    # f64 keeps what f32 cannot: just inside and outside the i32/u32 ranges.
    y = bits_array("f64", [2147483647.75, -2147483648.75, 4294967295.5, -0.999])
    expect("v_cvt_i32_f64", one("v_cvt_i32_f64", y), _u32s([INT_MAX, INT_MIN, INT_MAX, 0]))
    expect("v_cvt_u32_f64", one("v_cvt_u32_f64", y), _u32s([2147483647, 0, UMAX, 0]))


def test_f16_to_16_bit_ints_saturate_and_map_nans_to_zero():
    inputs = ["qnan_p", "-snan_p", "+inf", "-inf", "+max", "-max", "-0", -0.5, -1.5, 2.5, 40000.0, -40000.0]
    x = bits_array("f16", inputs)
    expect("v_cvt_i16_f16", one("v_cvt_i16_f16", x),
           [v & 0xFFFF for v in (0, 0, 32767, -32768, 32767, -32768, 0, 0, -1, 2, 32767, -32768)], inputs)
    expect("v_cvt_u16_f16", one("v_cvt_u16_f16", x), [0, 0, 65535, 0, 65504, 0, 0, 0, 0, 2, 40000, 0], inputs)


def test_normalized_and_byte_packs_clamp_and_zero_nans():
    inputs = ["qnan_p", "+inf", "-inf", "-0", 0.5, -0.5, 1.5, -2.5]
    x = bits_array("f32", inputs)
    lo = one("v_cvt_pknorm_i16_f32", x, x) & 0xFFFF
    expect("pknorm_i16", lo, [0, 32767, 0x8001, 0, 16384, 0xC000, 32767, 0x8001], inputs)
    lo = one("v_cvt_pknorm_u16_f32", x, x) & 0xFFFF
    expect("pknorm_u16", lo, [0, 65535, 0, 0, 32768, 0, 65535, 0], inputs)
    y = bits_array("f32", ["qnan_p", "+inf", "-inf", 255.5, 2.5, 3.5, -0.5])
    expect("cvt_pk_u8", one("v_cvt_pk_u8_f32", y, np.zeros(7, np.uint32), np.zeros(7, np.uint32)),
           [0, 255, 0, 255, 2, 4, 0])


# A NaN crossing widths keeps its sign and the high bits of its payload and is quieted.
NAN_WIDTHS = [  # op, input bits, output bits
    ("v_cvt_f16_f32", 0x7F800001, 0x7E00), ("v_cvt_f16_f32", 0xFFC00000, 0xFE00),
    ("v_cvt_f16_f32", 0x7FA12345, 0x7F09), ("v_cvt_f16_f32", 0x7FFFFFFF, 0x7FFF),
    ("v_cvt_f32_f16", 0x7C01, 0x7FC02000), ("v_cvt_f32_f16", 0xFD55, 0xFFEAA000),
    ("v_cvt_f64_f32", 0x7F800001, 0x7FF8000020000000), ("v_cvt_f64_f32", 0xFF812345, 0xFFF8000000000000 | 0x12345 << 29),
    ("v_cvt_f32_f64", 0x7FF0000000000001, 0x7FC00000), ("v_cvt_f32_f64", 0xFFF4000000000000, 0xFFE00000),
]


@pytest.mark.parametrize("name,x,want", NAN_WIDTHS)
def test_nans_change_width_quieted_with_their_payload(name, x, want):
    dtype = np.uint64 if alu.lookup(name).src_types[0] == "f64" else np.uint32
    expect(name, one(name, np.array([x], dtype)), [want])


F32_TO_F16 = [  # f32 input, nearest even, up, down, toward zero
    (1 / 3, 0x3555, 0x3556, 0x3555, 0x3555), (-1 / 3, 0xB555, 0xB555, 0xB556, 0xB555),
    (70000.0, 0x7C00, 0x7C00, 0x7BFF, 0x7BFF), (-70000.0, 0xFC00, 0xFBFF, 0xFC00, 0xFBFF),
    (65519.0, 0x7BFF, 0x7C00, 0x7BFF, 0x7BFF), (2.0**-25, 0x0000, 0x0001, 0x0000, 0x0000),
    (-(2.0**-25), 0x8000, 0x8000, 0x8001, 0x8000), (3 * 2.0**-26, 0x0001, 0x0001, 0x0000, 0x0000),
    ("+inf", 0x7C00, 0x7C00, 0x7C00, 0x7C00), ("+nmin", 0x0000, 0x0001, 0x0000, 0x0000),
]


def test_f32_to_f16_rounds_as_mode_fp_round_3_2_says():
    """V_CVT_F16_F32: 'Output rounding based on DP rounding mode' (FP_ROUND[3:2]); the f32
    field (FP_ROUND[1:0]) leaves it alone."""
    x = bits_array("f32", [r[0] for r in F32_TO_F16])
    for k, rm in enumerate((0, 1, 2, 3)):
        got = one("v_cvt_f16_f32", x, mode=round_mode("f16", rm))
        expect(f"v_cvt_f16_f32 round {rm}", got, [r[1 + k] for r in F32_TO_F16], [r[0] for r in F32_TO_F16])
    expect("f32 field", one("v_cvt_f16_f32", x, mode=round_mode("f32", 1)), [r[1] for r in F32_TO_F16])
    expect("f16 output flush", one("v_cvt_f16_f32", bits_array("f32", [2.0**-24]),
                                   mode=keep_inputs_flush_outputs("f16")), [0])


def test_pkrtz_rounds_each_half_toward_zero_and_quiets_nans():
    lo = bits_array("f32", ["snan_p", "+inf", 65520.0, "-max", 1 / 3, -(2.0**-25), 3 * 2.0**-26, "-0"])
    want = [0x7F00, 0x7C00, 0x7BFF, 0xFBFF, 0x3555, 0x8000, 0x0000, 0x8000]
    got = one("v_cvt_pkrtz_f16_f32", lo, lo)
    expect("pkrtz", got, [w | w << 16 for w in want])


# --- transcendentals ---------------------------------------------------------------------------
# The guide's functional examples (test_alu_transcendental.py) plus: f32 units flush denormal
# inputs and outputs ("denormals are flushed"), f16/f64 keep them; invalid -> default NaN;
# NaN inputs come back quieted; sin/cos of +-max are 0 / 1 (V_SIN_F32(0xff7fffff) = 0).

TRANSCENDENTAL = [  # op, input, result
    ("v_rcp_f32", "+dmin", "+inf"), ("v_rcp_f32", "-dmin", "-inf"), ("v_rcp_f32", "+max", "+0"),
    ("v_rcp_f32", "-max", "-0"), ("v_rcp_f32", "snan_p", "Q:snan_p"), ("v_rcp_iflag_f32", "-0", "-inf"),
    ("v_rsq_f32", "-dmin", "-inf"), ("v_rsq_f32", -1.0, "default_nan"), ("v_rsq_f32", "-qnan", "-qnan"),
    ("v_sqrt_f32", "-dmin", "-0"), ("v_sqrt_f32", "+dmin", "+0"), ("v_sqrt_f32", -1.0, "default_nan"),
    ("v_log_f32", "+dmin", "-inf"), ("v_log_f32", "-dmin", "-inf"), ("v_log_f32", "qnan_p", "qnan_p"),
    ("v_exp_f32", "-dmin", 1.0), ("v_exp_f32", "+max", "+inf"), ("v_exp_f32", "-max", "+0"),
    ("v_exp_f32", "snan", "Q:snan"), ("v_sin_f32", "-max", "+0"), ("v_sin_f32", "+max", "+0"),
    ("v_cos_f32", "-max", 1.0), ("v_sin_f32", "-dmin", float(np.float32(-2 * np.pi * 2.0**-149))), ("v_sin_f32", "qnan_p", "qnan_p"),
    ("v_rcp_f16", "+max", float(np.float16(1) / np.float16(65504))), ("v_rcp_f16", "+dmin", "+inf"),
    ("v_sqrt_f16", "-dmin", "default_nan"), ("v_rsq_f16", "-0", "-inf"), ("v_log_f16", "+dmin", -24.0),
    ("v_exp_f16", "-inf", "+0"), ("v_sin_f16", "-max", "+0"), ("v_cos_f16", "+max", 1.0),
    ("v_rcp_f64", "-0", "-inf"), ("v_rcp_f64", "+dmin", "+inf"), ("v_rcp_f64", "qnan_p", "qnan_p"),
    ("v_rsq_f64", "-0", "-inf"), ("v_rsq_f64", -1.0, "default_nan"), ("v_sqrt_f64", "-0", "-0"),
    ("v_sqrt_f64", "-dmin", "default_nan"), ("v_sqrt_f64", "+inf", "+inf"),
]


@pytest.mark.parametrize("name,x,want", TRANSCENDENTAL)
def test_transcendental_special_values(name, x, want):
    t = alu.lookup(name).src_types[0]
    expect(name, one(name, bits_array(t, [x])), [_value(t, want)], [x])


# --- frexp / ldexp ---------------------------------------------------------------------------
# V_FREXP_MANT: inf and NaN return S0 itself (a signalling NaN stays signalling), else the
# significand in [0.5, 1); V_FREXP_EXP: 0 for inf/NaN; V_LDEXP: S0 * 2^S1, rounded once
# (f16: S1 is the low 16 bits, signed).

FREXP = [  # input, mantissa, exponent (f32)
    ("+0", "+0", 0), ("-0", "-0", 0), ("+inf", "+inf", 0), ("-inf", "-inf", 0), ("qnan_p", "qnan_p", 0),
    ("snan_p", "snan_p", 0), ("-dmin", -0.5, -148), ("+max", "below_one", 128), ("+nmin", 0.5, -125),
    (1.5, 0.75, 1), (-2.5, -0.625, 2),
]


def test_frexp_special_values():
    x = bits_array("f32", [r[0] for r in FREXP])
    expect("mant", one("v_frexp_mant_f32", x), [special("f32", r[1]) for r in FREXP], [r[0] for r in FREXP])
    expect("exp", one("v_frexp_exp_i32_f32", x), _u32s(r[2] for r in FREXP), [r[0] for r in FREXP])
    assert one("v_frexp_exp_i32_f64", bits_array("f64", ["+dmin"]))[0] == 2**32 - 1073
    assert one("v_frexp_exp_i16_f16", bits_array("f16", ["+dmin"]))[0] == 0x10000 - 23
    flushed = flush_inputs_of("f32")
    expect("mant flushed", one("v_frexp_mant_f32", bits_array("f32", ["-dmin"]), mode=flushed), [special("f32", "-0")])
    expect("exp flushed", one("v_frexp_exp_i32_f32", bits_array("f32", ["-dmin"]), mode=flushed), [0])


LDEXP = [  # f32 value, exponent, result
    ("-0", 10, "-0"), ("+inf", -1000, "+inf"), ("qnan_p", 1, "qnan_p"), ("snan_p", 1, "Q:snan_p"),
    (1.0, INT_MIN, "+0"), (-1.0, INT_MIN, "-0"), (1.0, INT_MAX, "+inf"), (1.0, -149, "+dmin"),
    (1.0, -150, "+0"), (3.0, -150, 2.0**-148), ("+max", 1, "+inf"), ("+dmin", 149, 1.0),
]


def test_ldexp_special_values():
    x, e = bits_array("f32", [r[0] for r in LDEXP]), np.array(_u32s(r[1] for r in LDEXP), np.uint32)
    expect("v_ldexp_f32", one("v_ldexp_f32", x, e), [_value("f32", r[2]) for r in LDEXP], LDEXP)
    x16, e16 = bits_array("f16", [1.0, 1.0, 1.0, 1.0]), np.array([0x8000, 0x7FFF, 0x10000, 0xFFE8], np.uint32)
    expect("v_ldexp_f16", one("v_ldexp_f16", x16, e16), [0, 0x7C00, 0x3C00, 0x0001])
    x64 = bits_array("f64", [1.0, 1.0, 1.0])
    expect("v_ldexp_f64", one("v_ldexp_f64", x64, np.array(_u32s([-1074, -1075, 1024]), np.uint32)),
           [1, 0, special("f64", "+inf")])


# --- class tests and compares --------------------------------------------------------------
# V_CMP_CLASS bit k: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
# 8 +normal, 9 +inf; denormals stay denormals whatever MODE flushes (code tests for them).

CLASSES = [("snan_p", 0), ("-snan_p", 0), ("qnan", 1), ("-qnan", 1), ("-inf", 2), ("-max", 3), ("-nmin", 3),
           (-0.5, 3), ("-dmin", 4), ("-0", 5), ("+0", 6), ("+dmin", 7), ("+nmin", 8), ("+max", 8), ("+inf", 9)]


@pytest.mark.parametrize("t", FORMATS)
@pytest.mark.parametrize("mode", [DEFAULT, FLUSH_ALL])
def test_class_of_every_special_value(t, mode):
    x = bits_array(t, [c[0] for c in CLASSES])
    for bit in range(10):
        got = one(f"v_cmp_class_{t}", x, np.full(len(CLASSES), 1 << bit, np.uint32), mode=mode)
        assert list(got) == [k == bit for _, k in CLASSES], (t, bit)


@pytest.mark.parametrize("t", FORMATS)
def test_compares_with_nans_zeros_and_flushed_denormals(t):
    a, b = bits_array(t, ["-0", "snan", "qnan", "qnan", "+dmin"]), bits_array(t, ["+0", 1.0, "qnan", 1.0, "+0"])
    assert list(one(f"v_cmp_eq_{t}", a, b)) == [True, False, False, False, False]
    assert list(one(f"v_cmp_lt_{t}", a, b)) == [False] * 5
    assert list(one(f"v_cmp_u_{t}", a, b)) == [False, True, True, True, False]
    assert list(one(f"v_cmp_neq_{t}", a, b)) == [False, True, True, True, True]
    # Compares read inputs as MODE says: a flushed denormal equals zero.
    assert list(one(f"v_cmp_eq_{t}", a, b, mode=flush_inputs_of(t)))[4]


# --- division helpers, legacy multiplies, dot products, mixed fma ----------------------------

def test_div_fixup_special_values_by_the_pseudocode():
    """V_DIV_FIXUP: a NaN numerator (S2) first, then a NaN denominator, both quieted; 0/0 and
    inf/inf give 0xffc00000; then x/0 = +-inf and 0/x, x/inf = +-0 with the XOR of the signs."""
    rows = [("qnan_p", "snan", "qnan_p"), (1.0, "snan_p", "Q:snan_p"), ("+0", "-0", "default_nan"),
            ("+inf", "-inf", "default_nan"), (1.0, "+0", "+inf"), (-1.0, "+0", "-inf"), (1.0, "-0", "-inf"),
            ("+0", 5.0, "+0"), ("-0", 5.0, "-0"), (3.0, "+inf", "+0"), (-3.0, "+inf", "-0"), ("+inf", 2.0, "+inf")]
    for t in FORMATS:
        n, d = bits_array(t, [r[0] for r in rows]), bits_array(t, [r[1] for r in rows])
        q = bits_array(t, [7.0] * len(rows))
        expect(f"v_div_fixup_{t}", one(f"v_div_fixup_{t}", q, d, n), [_value(t, r[2]) for r in rows], rows)


def test_div_scale_of_a_zero_is_the_default_nan_and_div_fmas_propagates():
    for t in ("f32", "f64"):
        d, vcc = run(f"v_div_scale_{t}", bits_array(t, [1.0]), bits_array(t, ["+0"]), bits_array(t, [1.0]))
        expect(f"v_div_scale_{t}", d, [special(t, "default_nan")])
        assert not vcc[0]
        got = one(f"v_div_fmas_{t}", bits_array(t, ["qnan_p"]), bits_array(t, [1.0]), bits_array(t, [2.0]),
                  np.array([True]))
        expect(f"v_div_fmas_{t}", got, [special(t, "qnan_p")])


def test_legacy_multiplies_make_zero_times_anything_plus_zero():
    """V_MUL_LEGACY_F32 (DX9): 0 * anything, inf and NaN included, is +0. V_FMA_LEGACY_F32 adds
    S2 to that +0 product (LLVM's fold: +0.0 + S2), so -0 becomes +0 and a NaN S2 propagates."""
    a, b = bits_array("f32", ["+0", "-0", "+inf", "qnan", "qnan_p", -2.0]), bits_array("f32", ["+inf", 5.0, "-0", "+0", 2.0, 3.0])
    expect("mul_legacy", one("v_mul_legacy_f32", a, b), [0, 0, 0, 0, special("f32", "qnan_p"), special("f32", -6.0)])
    c = bits_array("f32", ["-0", 3.0, -2.0, "qnan_p", 1.0, 1.0])
    want = [0, special("f32", 3.0), special("f32", -2.0), special("f32", "qnan_p"), special("f32", "qnan_p"),
            special("f32", -5.0)]
    expect("fma_legacy", one("v_fma_legacy_f32", a, b, c), want)


def test_dot2_and_fma_mix_propagate_f16_nans_widened():
    nan16, one16, two16 = special("f16", "qnan_p"), special("f16", 1.0), special("f16", 2.0)
    a = np.array([one16 | nan16 << 16, special("f16", "+inf") | one16 << 16], np.uint32)
    b = np.array([two16 | two16 << 16, special("f16", "+0") | one16 << 16], np.uint32)
    c = bits_array("f32", [1.0, 1.0])
    # a.hi is the first NaN of (a.lo, b.lo, a.hi, b.hi, c); inf * 0 is invalid.
    expect("v_dot2_f32_f16", one("v_dot2_f32_f16", a, b, c), [0x7FC0A000, special("f32", "default_nan")])
    # fma_mix: f16 sources widened (NaN quieted, payload shifted), result rounded to f16.
    srcs = [np.array([nan16], np.uint32), bits_array("f32", [1.0]), bits_array("f32", [1.0])]
    expect("v_fma_mix_f32", one("v_fma_mix_f32", *srcs, op_sel_hi=0b001), [0x7FC0A000])
    expect("v_fma_mixlo_f16", one("v_fma_mixlo_f16", *srcs, op_sel_hi=0b001), [nan16])


def test_cube_ids_pick_faces_by_sign_including_negative_zero():
    x, y, z = (bits_array("f32", v) for v in (["+0", "+0", "-0", "qnan"], ["+0", "+0", "-0", 1.0],
                                              ["+0", "-0", "-0", 1.0]))
    expect("v_cubeid_f32", one("v_cubeid_f32", x, y, z), [special("f32", v) for v in (4.0, 4.0, 4.0, 0.0)])


# --- integer limits ------------------------------------------------------------------------------

INT_OPS = [  # op, sources, kwargs, results
    ("v_add_nc_i32", (INT_MAX, 1), {"clamp": True}, (INT_MAX,)), ("v_add_nc_i32", (INT_MAX, 1), {}, (INT_MIN,)),
    ("v_sub_nc_i32", (INT_MIN, 1), {"clamp": True}, (INT_MIN,)), ("v_sub_nc_u32", (0, 1), {"clamp": True}, (0,)),
    ("v_add_co_u32", (UMAX, 1), {"clamp": True}, (UMAX, True)), ("v_add_co_u32", (UMAX, 1), {}, (0, True)),
    ("v_add_nc_u16", (0xFFFF, 1), {"clamp": True}, (0xFFFF,)), ("v_add_nc_i16", (0x7FFF, 1), {"clamp": True}, (0x7FFF,)),
    ("v_sub_nc_i16", (0x8000, 1), {"clamp": True}, (0x8000,)), ("v_add_nc_i16", (0x7FFF, 1), {}, (0x8000,)),
    ("v_mul_hi_i32", (INT_MIN, INT_MIN), {}, (0x40000000,)), ("v_mul_hi_u32", (UMAX, UMAX), {}, (UMAX - 1,)),
    ("v_mul_lo_u32", (UMAX, UMAX), {}, (1,)), ("v_mad_i32_i24", (0x800000, 0x800000, 0), {"clamp": True}, (INT_MAX,)),
    ("v_mad_u32_u24", (0xFFFFFF, 0xFFFFFF, UMAX), {"clamp": True}, (UMAX,)),
    ("v_cvt_pk_i16_i32", (INT_MAX, INT_MIN), {}, (0x80007FFF,)), ("v_cvt_pk_u16_u32", (UMAX, 5), {}, (0x0005FFFF,)),
    ("v_sat_pk_u8_i16", (0x80007FFF,), {}, (0x00FF,)), ("v_lshlrev_b32", (32, 1), {}, (1,)),
    ("v_ashrrev_i32", (31, INT_MIN), {}, (UMAX,)), ("v_ffbh_u32", (0,), {}, (UMAX,)), ("v_ffbh_i32", (UMAX,), {}, (UMAX,)),
    ("v_ffbh_i32", (INT_MIN,), {}, (1,)), ("v_ffbl_b32", (0,), {}, (UMAX,)), ("v_bfe_i32", (INT_MIN, 31, 1), {}, (UMAX,)),
    ("v_bfe_u32", (UMAX, 0, 32), {}, (0,)), ("v_min_i32", (INT_MIN, INT_MAX), {}, (INT_MIN,)),
    ("v_med3_i32", (INT_MIN, INT_MAX, 0), {}, (0,)), ("v_sad_u32", (0, UMAX, 0), {}, (UMAX,)),
    ("s_abs_i32", (INT_MIN,), {}, (INT_MIN, True)), ("s_add_i32", (INT_MAX, 1), {}, (INT_MIN, True)),
    ("s_sub_u32", (0, 1), {}, (UMAX, True)), ("s_mul_i32", (INT_MIN, -1), {}, (INT_MIN,)),
    ("s_absdiff_i32", (INT_MIN, INT_MAX), {}, (UMAX, True)), ("s_flbit_i32", (UMAX,), {}, (UMAX,)),
    ("s_ff1_i32_b32", (0,), {}, (UMAX,)), ("s_bfe_i32", (INT_MIN, 31 | 1 << 16), {}, (UMAX, True)),
]


@pytest.mark.parametrize("name,srcs,kw,want", INT_OPS)
def test_integer_ops_at_the_limits(name, srcs, kw, want):
    op = lookup(name)
    args = [np.array([s & (2**64 - 1 if t.endswith("64") else 0xFFFFFFFF)],
                     dtype=np.uint64 if t.endswith("64") else np.uint32) for s, t in zip(srcs, op.src_types)]
    got = op(*args, **kw)
    for g, w, t in zip(got, want, op.dst_types):
        if t in ("mask", "scc"):
            assert bool(g[0]) == w, name
        else:
            assert int(g[0]) == w & 0xFFFFFFFF, (name, hex(int(g[0])))


def test_mad_u64_u32_at_the_limits_carries():
    d, carry = run("v_mad_u64_u32", np.array([UMAX], np.uint32), np.array([UMAX], np.uint32),
                   np.array([2**64 - 1], np.uint64))
    assert int(d[0]) == ((UMAX * UMAX + 2**64 - 1) & (2**64 - 1)) and carry[0]
