"""The 8-bit float conversions of the MI300X (gfx942: FNUZ formats), the MI355X (gfx950)
and RDNA4 (gfx1201), both OCP's: v_cvt_f32_fp8/bf8 on each byte of a register,
v_cvt_pk_f32_fp8/bf8 on each word, and v_cvt_pk_fp8/bf8_f32 into either word (rounded to
nearest even, an overflow NaN or infinity, clamped under MODE.FP16_OVFL), on both engine
tiers, against ml_dtypes' definitions of the four formats; and the byte each form names, as
llvm-mc-21 encodes it (SDWA's src0_sel on gfx942/gfx950, gfx12's byte_sel and op_sel). Built
by the ROCm 6.4 root's clang-21 from the builtins HIP's and Triton's fp8 types lower to
(skipped without the root on a developer's machine, failed in CI)."""
import re

import ml_dtypes
import numpy as np
import pytest

from core.isa.alu.bits import F32
from core.isa.decoder import decode_all
from core.isa.disasm import format_instruction
from tests.support import rocm64
from tests.support.differential import engine, launch

WIDEN = r"""
kernel void widen(global const uint *in, global uint *fp8, global uint *bf8,
                  global uint *pk_fp8, global uint *pk_bf8) {
  size_t i = get_global_id(0);
  uint x = in[i];
  fp8[4 * i] = as_uint(__builtin_amdgcn_cvt_f32_fp8(x, 0));
  fp8[4 * i + 1] = as_uint(__builtin_amdgcn_cvt_f32_fp8(x, 1));
  fp8[4 * i + 2] = as_uint(__builtin_amdgcn_cvt_f32_fp8(x, 2));
  fp8[4 * i + 3] = as_uint(__builtin_amdgcn_cvt_f32_fp8(x, 3));
  bf8[4 * i] = as_uint(__builtin_amdgcn_cvt_f32_bf8(x, 0));
  bf8[4 * i + 1] = as_uint(__builtin_amdgcn_cvt_f32_bf8(x, 1));
  bf8[4 * i + 2] = as_uint(__builtin_amdgcn_cvt_f32_bf8(x, 2));
  bf8[4 * i + 3] = as_uint(__builtin_amdgcn_cvt_f32_bf8(x, 3));
  vstore2(as_uint2(__builtin_amdgcn_cvt_pk_f32_fp8(x, false)), 2 * i, pk_fp8);
  vstore2(as_uint2(__builtin_amdgcn_cvt_pk_f32_fp8(x, true)), 2 * i + 1, pk_fp8);
  vstore2(as_uint2(__builtin_amdgcn_cvt_pk_f32_bf8(x, false)), 2 * i, pk_bf8);
  vstore2(as_uint2(__builtin_amdgcn_cvt_pk_f32_bf8(x, true)), 2 * i + 1, pk_bf8);
}
"""

# The formats by ml_dtypes' names: gfx942 reads FNUZ, gfx950 and gfx12 OCP's.
FORMATS = {"gfx942": (ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2fnuz),
           "gfx950": (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2),
           "gfx1201": (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)}
# Each byte position sees every code: lane i holds codes i, i+1, i+2, i+3 (mod 256).
LANES = 256
WORDS = np.array([sum(((i + b) % 256) << (8 * b) for b in range(4)) for i in range(LANES)], np.uint32)


def widened(dtype, codes):
    """f32 bits of 8-bit codes by ml_dtypes; a NaN code gives the f32 default NaN (SoftGPU's
    rule for a NaN no NaN source passes on: core/isa/alu/__init__.py)."""
    values = np.asarray(codes, np.uint8).view(dtype).astype(np.float32)
    bits = values.view(np.uint32).copy()
    bits[np.isnan(values)] = F32.default_nan
    return bits


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    return rocm64.opencl_builds(tmp_path_factory.mktemp("fp8"), "widen", WIDEN, FORMATS)


def test_the_builds_name_bytes_and_words_as_each_target_encodes_them(builds):
    """The byte and word selections run through the forms under test, not shifts before them."""
    gfx942 = rocm64.objdump(builds["gfx942"], "gfx942")
    assert re.search(r"v_cvt_f32_fp8_sdwa .*src0_sel:BYTE_3", gfx942)
    assert re.search(r"v_cvt_pk_f32_bf8_sdwa .*src0_sel:WORD_1", gfx942)
    gfx1201 = rocm64.objdump(builds["gfx1201"], "gfx1201")
    assert re.search(r"v_cvt_f32_fp8_e64 .* byte_sel:3", gfx1201)
    assert re.search(r"v_cvt_pk_f32_bf8_e64 .* op_sel:\[1,0\]", gfx1201)


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("target", sorted(FORMATS))
def test_every_code_widens_exactly_in_every_position(session, builds, target, tier):
    zeros = [np.zeros(4 * LANES, np.uint32) for _ in range(4)]
    with engine(tier):
        _, fp8, bf8, pk_fp8, pk_bf8 = launch(session, builds[target], "widen", [WORDS, *zeros],
                                             LANES, 64)
    bytes_ = WORDS.view(np.uint8).reshape(LANES, 4)        # [lane, byte], low byte first
    for dtype, one, pk in zip(FORMATS[target], (fp8, bf8), (pk_fp8, pk_bf8)):
        want = widened(dtype, bytes_)
        np.testing.assert_array_equal(one.reshape(LANES, 4), want, err_msg=f"{dtype.__name__} by byte")
        np.testing.assert_array_equal(pk.reshape(LANES, 4), want, err_msg=f"{dtype.__name__} by word")


NARROW = r"""
kernel void narrow(global const float *in, global uint *fp8, global uint *bf8, uint clamp) {
  size_t i = get_global_id(0);
  float a = in[4 * i], b = in[4 * i + 1], c = in[4 * i + 2], d = in[4 * i + 3];
  if (clamp)        // MODE.FP16_OVFL: a finite overflow clamps to the largest finite value
    __asm__ volatile("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1");
  uint old = 0xA5A5A5A5u;          // each pair goes into one word; the other keeps its bits
  fp8[2 * i] = __builtin_amdgcn_cvt_pk_fp8_f32(a, b, old, false);
  fp8[2 * i + 1] = __builtin_amdgcn_cvt_pk_fp8_f32(c, d, old, true);
  bf8[2 * i] = __builtin_amdgcn_cvt_pk_bf8_f32(a, b, old, false);
  bf8[2 * i + 1] = __builtin_amdgcn_cvt_pk_bf8_f32(c, d, old, true);
}
"""
# Values that round each way, ties, overflows (448 + 18 is RCCL's example), subnormals,
# infinities, NaNs and signed zeros, then random ones over the formats' range and beyond.
SPECIAL = [0.0, -0.0, 1.0, -1.0, 448.0, 466.0, 464.0, -464.0, 480.0, 240.0, 248.0, 256.0,
           57344.0, 61440.0, 65536.0, -1e9, 2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -11, 2.0 ** -17,
           2.0 ** -16, 1e-30, np.inf, -np.inf, np.nan, 1.0625, 1.1875, 0.1, -0.3]


def narrowed(dtype, values, saturate):
    """ml_dtypes' rounding (to nearest even, overflowing to NaN or infinity), and with
    `saturate` a finite overflow clamped to the largest finite value."""
    codes = values.astype(dtype).view(np.uint8).astype(np.uint32)
    if saturate:
        top = float(ml_dtypes.finfo(dtype).max)
        finite = np.isfinite(values) & (np.abs(values.astype(np.float64)) > top)
        clamped = np.where(values < 0, -top, top).astype(np.float32).astype(dtype)
        codes = np.where(finite, clamped.view(np.uint8), codes)
    return codes


@pytest.fixture(scope="module")
def narrow_builds(tmp_path_factory):
    return rocm64.opencl_builds(tmp_path_factory.mktemp("narrow"), "narrow", NARROW, FORMATS)


@pytest.mark.parametrize("target", sorted(FORMATS))
def test_the_narrowing_builds_write_either_word(narrow_builds, target):
    listing = rocm64.objdump(narrow_builds[target], target)
    for kind in ("fp8", "bf8"):
        assert re.search(rf"v_cvt_pk_{kind}_f32(_e64)? .* op_sel:\[0,0,1\]", listing), listing


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("target, clamp", [("gfx942", 0), ("gfx950", 0), ("gfx1201", 0), ("gfx1201", 1)])
def test_f32_narrows_to_the_nearest_even_code_into_the_word_it_names(session, narrow_builds, target,
                                                                      clamp, tier):
    rng = np.random.default_rng(11)
    random = (rng.uniform(-1, 1, 4 * LANES) * 2.0 ** rng.integers(-20, 20, 4 * LANES)).astype(np.float32)
    values = np.concatenate([np.array(SPECIAL, np.float32), random])[:4 * LANES]
    with engine(tier):
        _, fp8, bf8 = launch(session, narrow_builds[target], "narrow",
                             [values, np.zeros(2 * LANES, np.uint32), np.zeros(2 * LANES, np.uint32),
                              np.uint32(clamp)], LANES, 64)
    for dtype, got in zip(FORMATS[target], (fp8, bf8)):
        codes = narrowed(dtype, values, clamp).reshape(LANES, 4)
        low = codes[:, 0] | codes[:, 1] << 8 | 0xA5A50000           # word 0, word 1 kept
        high = 0xA5A5 | codes[:, 2] << 16 | codes[:, 3] << 24        # word 1, word 0 kept
        np.testing.assert_array_equal(got.reshape(LANES, 2)[:, 0], low, err_msg=dtype.__name__)
        np.testing.assert_array_equal(got.reshape(LANES, 2)[:, 1], high, err_msg=dtype.__name__)


# Forms llvm-mc-21 encodes, read back: (target, the text llvm prints).
FORMS = [
    ("gfx1201", "v_cvt_f32_fp8_e32 v1, v3"),
    ("gfx1201", "v_cvt_f32_fp8_e64 v1, v3 byte_sel:1"),
    ("gfx1201", "v_cvt_f32_fp8_e64 v1, v3 byte_sel:2"),
    ("gfx1201", "v_cvt_f32_bf8_e64 v1, v3 byte_sel:3"),
    ("gfx1201", "v_cvt_f32_bf8_e64 v255, s7"),
    ("gfx1201", "v_cvt_pk_f32_fp8_e32 v[2:3], v3"),
    ("gfx1201", "v_cvt_pk_f32_fp8_e64 v[2:3], v3 op_sel:[1,0]"),
    ("gfx942", "v_cvt_f32_fp8_sdwa v1, v3 src0_sel:BYTE_2"),
    ("gfx942", "v_cvt_pk_f32_bf8_sdwa v[2:3], v3 src0_sel:WORD_1"),
    ("gfx942", "v_cvt_f32_fp8_e64 v1, v3 clamp mul:2"),
]


@pytest.mark.parametrize("target", sorted({t for t, _ in FORMS}))
def test_decoder_reads_the_byte_each_form_names_as_llvm_mc_21_encodes_it(target):
    texts = [text for t, text in FORMS if t == target]
    done = rocm64.encodings(target, texts)
    printed = re.findall(r"^\s*(\S.*?)\s*; encoding: \[([^\]]*)\]", done.stdout, re.M)
    assert [p for p, _ in printed] == texts, done.stdout + done.stderr
    for text, encoding in printed:
        inst = decode_all(bytes(int(b, 16) for b in encoding.split(",")), 0, False, target)[0]
        assert format_instruction(inst) == text
        m = re.search(r"byte_sel:(\d)", text)
        assert inst.mods.get("byte_sel", 0) == (int(m.group(1)) if m else 0), text


SCALED = r"""
kernel void scaled(global const float *in, global uint *fp8, global uint *bf8, float scale) {
  size_t i = get_global_id(0);
  short2 old = (short2)(0x1234, 0x5678);
  fp8[i] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_fp8_f32(old, in[2 * i], in[2 * i + 1], scale, true));
  bf8[i] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_bf8_f32(old, in[2 * i], in[2 * i + 1], scale, false));
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("scale", [1.0, 0.25, 16.0])
def test_gfx950_scaled_narrowing_divides_by_a_power_of_two_scale(session, tmp_path, scale, tier):
    """gfx950's v_cvt_scalef32_pk_fp8/bf8_f32 (what Triton's f32 to fp8 casts become there, with
    scale 1.0): each value divided by the scale, then converted as v_cvt_pk_fp8_f32 does."""
    co = rocm64.opencl_builds(tmp_path, "scaled", SCALED, ["gfx950"])["gfx950"]
    rng = np.random.default_rng(5)
    values = np.concatenate([np.array(SPECIAL, np.float32),
                             (rng.uniform(-1, 1, 2 * LANES) * 2.0 ** rng.integers(-20, 20, 2 * LANES))
                             .astype(np.float32)])[:2 * LANES]
    with engine(tier):
        _, fp8, bf8 = launch(session, co, "scaled", [values, np.zeros(LANES, np.uint32),
                                                     np.zeros(LANES, np.uint32), np.float32(scale)], LANES, 64)
    quotients = (values / np.float32(scale)).astype(np.float32)
    for dtype, got, word in ((ml_dtypes.float8_e4m3fn, fp8, 1), (ml_dtypes.float8_e5m2, bf8, 0)):
        codes = narrowed(dtype, quotients, False).reshape(LANES, 2)
        pair = codes[:, 0] | codes[:, 1] << 8
        want = (pair << 16 | 0x1234) if word else (pair | 0x5678 << 16)
        np.testing.assert_array_equal(got, want, err_msg=dtype.__name__)
