"""The native ALU emitters against the numpy ALU, bit for bit: every op with an emitter over
grids of special values and random patterns, in every MODE that matters to it and with every
modifier it takes, as wave32 vectors (every variant), wave64 vectors and scalars (the default
MODE).

Holds these invariants:
- the grids hold, per operand type, the values IEEE and integer corner cases live at: +-0,
  +-denormals, +-inf, quiet and signalling NaNs with payloads of both signs, +-FLT_MAX and
  +-FLT_MIN, halves (+-0.5, +-1.5, +-2.5), integer limits, shift counts around the width;
  16-bit operands carry junk in their high half (the executor passes whole VGPRs);
- arrays are a whole number of 64 lanes: numpy's NaN choice for two NaN operands differs
  between its SIMD body and its scalar tail (a + b gives b's NaN in the tail), so both
  implementations are compared where numpy itself is consistent;
- a mismatch names the op, the modifiers, the shape, and the first inputs that differ.
"""
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.isa import alu
from core.isa.alu.table import (DEFAULT_MODE, FLOAT_TYPES, HALF_TYPES, MODE_DX10_CLAMP, MODE_FP16_OVFL,
                                MODE_IEEE)
from core.isa.native.alu import coverage, emitter
from tests.support.native_alu import compile_all, native_op

FLUSH_ALL = DEFAULT_MODE & ~(0xF << 4)
FLUSH_IN_ONLY = (DEFAULT_MODE & ~(0xF << 4)) | (0b1010 << 4)
FLUSH_OUT_ONLY = (DEFAULT_MODE & ~(0xF << 4)) | (0b0101 << 4)
IEEE_OFF = DEFAULT_MODE & ~MODE_IEEE
DX10_OFF = DEFAULT_MODE & ~MODE_DX10_CLAMP
SHADER = IEEE_OFF & ~(0b1010 << 4)        # IEEE off, output denormals flushed: omod applies


def _round(rm):
    return DEFAULT_MODE | rm | (rm << 2)


def _f32(*values):
    return [int(np.float32(v).view(np.uint32)) for v in values]


def _f64(*values):
    return [int(np.float64(v).view(np.uint64)) for v in values]


def _f16(*values):
    return [int(np.float16(v).view(np.uint16)) for v in values]


def _signed(patterns, sign):
    return patterns + [p | sign for p in patterns]


_F32 = _signed([0, 1, 3, 0x007FFFFF, 0x00800000, 0x00C00000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x7FC01234,
                0x7F800001, 0x7FA00000] + _f32(0.5, 1.0, 1.5, 2.5, 2.0, 3.0, 0.75, 1 / 3, 2**24, 2**31, 2**32,
                                              65504, 65520, 2**100, 2**-100, 255.5, 1e10, 0.1, 2**-64, 2**64,
                                              2**126, 2**-126 * 3, 127.9, 32767.5), 0x80000000)
_F64 = _signed([0, 1, 3, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
                0x7FF8000000000000, 0x7FF8000000001234, 0x7FF0000000000001, 0x7FF4000000000000]
               + _f64(0.5, 1.0, 1.5, 2.5, 2.0, 3.0, 0.75, 1 / 3, 2.0**53, 2.0**31, 2.0**32, 1e300, 1e-300,
                      2.0**-1000, 255.5, 1e10, 0.1, 2.0**-128, 2.0**128, 2.0**1000, 2.0**-1022 * 3, 65504.0,
                      -2.0**31 - 1, 4294967295.5), 1 << 63)
_F16 = _signed([0, 1, 3, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0x7E00, 0x7E15, 0x7C01, 0x7D00]
               + _f16(0.5, 1.0, 1.5, 2.5, 2.0, 3.0, 0.75, 1 / 3, 2048, 255.5, 0.1, 1000, 2**-14 * 3, 32767,
                      1 / 1024), 0x8000)
_U32 = [0, 1, 2, 3, 7, 8, 15, 16, 17, 23, 24, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 0x3FF, 0x200, 0x7FFF,
        0x8000, 0xFFFF, 0x10000, 0x7FFFFF, 0x800000, 0xFFFFFF, 0x1000000, 0x7FFFFFFF, 0x80000000, 0x80000001,
        0xFFFFFFFE, 0xFFFFFFFF, 0x3F800000, 0xBF800000, 0x00080004, 0x0010001F, 0x7F800000, 0xDEADBEEF,
        0x01020304, 0x0C0A0801]
_U64 = [0, 1, 2, 31, 32, 63, 64, 0xFFFFFFFF, 0x100000000, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000,
        0x8000000000000001, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFF00000000, 0x00000001FFFFFFFF, 0x0123456789ABCDEF]
_U16 = [0, 1, 2, 7, 15, 16, 17, 31, 0xFF, 0x100, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0xFFFE, 0x3C00, 0x7C00]

SPECIALS = {"f32": _F32, "f64": _F64, "f16": _F16,
            **{t: _U32 for t in ("b32", "u32", "i32")}, **{t: _U64 for t in ("b64", "u64", "i64")},
            **{t: _U16 for t in ("b16", "u16", "i16")},
            "pk16": None, "mask": [0, 1], "scc": [0, 1], "lane": list(range(64))}
_BITS = {**{t: 32 for t in ("b32", "u32", "i32", "f32", "pk16", "b16", "u16", "i16", "f16", "lane")},
         **{t: 64 for t in ("b64", "u64", "i64", "f64")}}
_DTYPE = {32: np.uint32, 64: np.uint64}
_CAP = {1: 10**6, 2: 60, 3: 18}           # specials per source by source count (3-source grids stay small)


def _specials(t, op, i, count):
    if t == "pk16":
        halves = SPECIALS[op.elem_types[i]]
        step = max(1, len(halves) // 8)
        return [lo | (hi << 16) for lo in halves[:count] for hi in halves[::step]][:count * 4]
    values = SPECIALS[t]
    if len(values) > count:
        values = values[:: -(-len(values) // count)]
    if t in HALF_TYPES:   # junk in the high half, which the op must ignore (op_sel 0)
        values = values + [v | 0xABCD0000 for v in values[:4]]
    return values


def _random(t, rng, n):
    if t in ("mask", "scc"):
        return rng.random(n) < 0.5
    if t == "lane":
        return rng.integers(0, 64, n).astype(np.uint32)
    bits = _BITS[t]
    return rng.integers(0, 2**bits, n, dtype=np.uint64).astype(_DTYPE[bits])


def sources(name, n_random=448):
    """Arrays (a multiple of 64 long) of every combination of special values, then random
    patterns: the inputs every variant of op `name` is compared on."""
    op = alu.lookup(name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    count = _CAP[min(len(op.src_types), 3)]
    grids = [np.array(_specials(t, op, i, count), dtype=np.uint64) for i, t in enumerate(op.src_types)]
    mesh = np.meshgrid(*grids, indexing="ij") if grids else []
    flat = [m.reshape(-1) for m in mesh]
    n = len(flat[0]) if flat else 0
    total = -(-(n + n_random) // 64) * 64
    out = []
    for t, f in zip(op.src_types, flat):
        r = _random(t, rng, total - n)
        if t in ("mask", "scc"):
            out.append(np.concatenate([f.astype(bool), r]))
        else:
            out.append(np.concatenate([f.astype(_DTYPE[_BITS[t]]), r]))
    return out


# Ops whose variants cover the shared pipeline (table.py): input modifiers, omod and clamp,
# op_sel, separate input/output flushing, for each float width and source count; and the
# paired min/max, whose bodies run two more pipelines inside their own (minmax.py). Every
# other op is compared in the modes and with the modifiers its own body reads.
PIPELINE_OPS = {"v_add_f32", "v_fma_f32", "v_min_f32", "v_sqrt_f32", "v_cvt_f64_f32", "v_add_f16", "v_fma_f16",
                "v_med3_f16", "v_cvt_f32_f16", "v_sin_f16", "v_add_f64", "v_fma_f64", "v_div_fixup_f64",
                "v_cvt_f16_f32", "v_cmp_lt_f16", "v_cmp_class_f32", "v_ldexp_f16", "v_frexp_exp_i16_f16",
                "v_add_nc_u16", "v_mad_u32_u16", "v_cvt_pkrtz_f16_f32", "v_cndmask_b32", "v_div_scale_f32",
                "v_maxmin_f16", "v_minmax_f32"}


def _sweep(op):
    """The MODE variants test_alu_special_values sweeps every op with (compiled once for both
    tests): IEEE off, DX10_CLAMP off with clamp, flushing, shader MODE with omod, rounding."""
    omod = 0 if op.packed or op.mix or op.int_clamp else 1
    return [{"mode": IEEE_OFF}, {"mode": DX10_OFF, "clamp": True}, {"mode": FLUSH_ALL},
            {"mode": SHADER, "omod": omod}, {"mode": DEFAULT_MODE | 0b0101}, {"mode": DEFAULT_MODE | 0b1111}]


def variants(name):
    """The modifier/MODE combinations worth comparing for op `name` (an 8-bit float op's in
    both flavours, and each byte gfx12's byte_sel names)."""
    op = alu.lookup(name)
    if op.uses_fp8:
        picks = [{"byte_sel": b} for b in range(4)] if op.byte_sel else [{}]
        if op.uses_mode:                                # the narrowing conversions' clamp
            picks.append({"mode": DEFAULT_MODE | MODE_FP16_OVFL})
        return [{**v, **pick, "fp8": flavour} for v in _plain_variants(name, op)
                for pick in picks for flavour in ("fnuz", "ocp")]
    return _plain_variants(name, op)


def _plain_variants(name, op):
    floats = [i for i, t in enumerate(op.src_types) if t in FLOAT_TYPES]
    float_dst = op.dst_types[0] in FLOAT_TYPES
    out = [{}] + _sweep(op)
    if op.int_clamp:
        out.append({"clamp": True})
    if op.neg_signs:                    # each source's sign from neg_lo, with and without clamp
        out += [{"neg": signs, "clamp": clamp} for signs in (1, 2, 3) for clamp in (False, True)]
    if op.uses_mode:
        out += [{"mode": _round(2)}, {"mode": _round(1) & FLUSH_ALL}, {"mode": _round(2) & FLUSH_ALL}]
    if op.packed:
        out += [{"op_sel": 0b101, "op_sel_hi": 0b010}, {"op_sel": 0b111, "op_sel_hi": 0}, {"op_sel_hi": 0b111}]
        if op.elem_types[0] in FLOAT_TYPES:
            out += [{"neg": 0b101, "neg_hi": 0b011}, {"clamp": True}]
        return out
    if op.mix:
        out += [{"op_sel_hi": 0b111}, {"op_sel_hi": 0b101, "op_sel": 0b011}, {"op_sel_hi": 0b010, "neg": 0b110},
                {"op_sel_hi": 0b110, "neg_hi": 0b011, "op_sel": 0b100}, {"clamp": True, "op_sel_hi": 0b001},
                {"mode": FLUSH_ALL, "op_sel_hi": 0b011}, {"mode": FLUSH_IN_ONLY}]
        return out
    if name not in PIPELINE_OPS:
        return out
    halves = [i for i, t in enumerate(op.src_types) if t in HALF_TYPES]
    if halves:
        out += [{"op_sel": sum(1 << i for i in halves)}, {"op_sel": 1 << halves[0]}]
    if floats or float_dst:
        out += [{"mode": FLUSH_IN_ONLY}, {"mode": FLUSH_OUT_ONLY}]
    if floats:
        all_bits = sum(1 << i for i in floats)
        out += [{"neg": all_bits}, {"abs": all_bits}, {"neg": 0b101 & all_bits, "abs": 0b011 & all_bits}]
    if float_dst:
        out += [{"omod": 1}, {"omod": 3, "clamp": True}, {"clamp": True}, {"omod": 2, "mode": SHADER},
                {"omod": 3, "clamp": True, "mode": SHADER}, {"omod": 1, "mode": SHADER & ~MODE_DX10_CLAMP},
                {"omod": 1, "mode": FLUSH_ALL}]
    return out


def _shapes(variant):
    """Wave32 for every variant; wave64 and scalars for the default one."""
    return (32, 64, None) if not variant else (32,)


def _hex(x):
    x = np.asarray(x)
    return [hex(int(v)) if x.dtype != bool else bool(v) for v in x.reshape(-1)[:1]][0]


def compare(name, srcs, variant, lanes):
    want = alu.lookup(name)(*srcs, **variant)
    got = native_op(name, lanes)(*srcs, **variant)
    for j, (w, g) in enumerate(zip(want, got)):
        bad = np.flatnonzero(np.asarray(w) != np.asarray(g))
        if bad.size:
            i = bad[0]
            args = ", ".join(_hex(s[i]) for s in srcs)
            raise AssertionError(f"{name}({args}) {variant} lanes={lanes}: result {j} numpy {_hex(w[i])} "
                                 f"native {_hex(g[i])} ({bad.size} of {len(w)} lanes differ)")


_NAMES = sorted(alu.coverage())


@pytest.mark.parametrize("name", _NAMES)
def test_native_op_matches_numpy_bit_for_bit(name):
    if emitter(name) is None:
        pytest.skip(f"{name} has no native emitter")
    plan = [(v, lanes) for v in variants(name) for lanes in _shapes(v)]
    compile_all([(native_op(name, lanes), v) for v, lanes in plan])
    srcs = sources(name)
    for v, lanes in plan:
        compare(name, srcs, v, lanes)


def test_every_numpy_op_has_an_emitter():
    """The translator runs a kernel natively only if each of its ALU ops has an emitter
    (`python3 -m tests.isa.test_alu_native_exact` lists any op without one)."""
    assert coverage() == alu.coverage(), sorted(alu.coverage() - coverage())


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_NAMES), st.data())
def test_random_patterns_in_every_variant(name, data):
    """Random bit patterns (hypothesis picks the op, the variant and the seed; the grids above
    pick the corners)."""
    op = alu.lookup(name)
    variant = data.draw(st.sampled_from(variants(name)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    compare(name, [_random(t, rng, 64) for t in op.src_types], variant, 32)


_F16_UNARY = [n for n in _NAMES if alu.lookup(n).src_types == ("f16",)]


@pytest.mark.parametrize("name", _F16_UNARY)
def test_every_f16_input(name):
    """One-source f16 ops (rcp, exp, sin, conversions, ...) on all 65536 patterns."""
    every = np.arange(2**16, dtype=np.uint32)
    for mode in (DEFAULT_MODE, FLUSH_ALL):
        compare(name, [every], {"mode": mode}, 64)


if __name__ == "__main__":
    missing = sorted(alu.coverage() - coverage())
    print(f"{len(coverage())} of {len(alu.coverage())} ALU ops have native emitters; missing {len(missing)}:")
    print(" ".join(missing))
