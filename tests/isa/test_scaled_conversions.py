"""gfx950's scaled conversions up from the 8-bit floats and fp4 (v_cvt_scalef32_*: each value
times an f32 scale, to f32, f16 or bf16), in every byte and word position they name, on both
engine tiers, against ml_dtypes' OCP formats. Built by the ROCm 6.4 root's clang-21 from the
builtins Triton's tl.dot_scaled upcasts lower to (tests/isa/test_triton.py runs those
kernels). The scales are powers of two, as MX scales are.

A byte is op_sel[1:0], as Triton's kernels (newer llvm) and llvm PR 151286 say; the root's
clang-21.1 predates that fix and encodes a builtin's byte 1 as op_sel:[0,1], which names
byte 2, and byte 2 as byte 1: the expected values follow the encoding it made. Skipped
without the root on a developer's machine, failed in CI."""
import re

import ml_dtypes
import numpy as np
import pytest

from tests.support import rocm64
from tests.support.differential import engine, launch

SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half2_t __attribute__((ext_vector_type(2)));
typedef __bf16 bf162_t __attribute__((ext_vector_type(2)));
typedef float float2_t __attribute__((ext_vector_type(2)));
#define BITS(v) __builtin_bit_cast(uint, v)
#define PAIR(v) __builtin_bit_cast(ulong, v)
kernel void up(global const uint *in, global const float *scales, global uint *f32_fp8,
               global uint *f32_bf8, global ulong *pk_f32_fp8, global ulong *pk_f32_bf8,
               global ulong *pk_f32_fp4, global uint *pk_f16_fp4, global uint *pk_bf16_fp4,
               global uint *pk_f16_fp8, global uint *pk_bf16_bf8) {
  size_t i = get_global_id(0);
  uint x = in[i];
  float s = scales[i];
#define BYTES(OUT, F) OUT[4 * i] = F(x, s, 0); OUT[4 * i + 1] = F(x, s, 1); \
                      OUT[4 * i + 2] = F(x, s, 2); OUT[4 * i + 3] = F(x, s, 3);
#define F32_FP8(x, s, b) BITS(__builtin_amdgcn_cvt_scalef32_f32_fp8(x, s, b))
#define F32_BF8(x, s, b) BITS(__builtin_amdgcn_cvt_scalef32_f32_bf8(x, s, b))
#define PK_F32_FP4(x, s, b) PAIR(__builtin_amdgcn_cvt_scalef32_pk_f32_fp4(x, s, b))
#define PK_F16_FP4(x, s, b) BITS(__builtin_amdgcn_cvt_scalef32_pk_f16_fp4(x, s, b))
#define PK_BF16_FP4(x, s, b) BITS(__builtin_amdgcn_cvt_scalef32_pk_bf16_fp4(x, s, b))
  BYTES(f32_fp8, F32_FP8) BYTES(f32_bf8, F32_BF8) BYTES(pk_f32_fp4, PK_F32_FP4)
  BYTES(pk_f16_fp4, PK_F16_FP4) BYTES(pk_bf16_fp4, PK_BF16_FP4)
  pk_f32_fp8[2 * i] = PAIR(__builtin_amdgcn_cvt_scalef32_pk_f32_fp8(x, s, false));
  pk_f32_fp8[2 * i + 1] = PAIR(__builtin_amdgcn_cvt_scalef32_pk_f32_fp8(x, s, true));
  pk_f32_bf8[2 * i] = PAIR(__builtin_amdgcn_cvt_scalef32_pk_f32_bf8(x, s, false));
  pk_f32_bf8[2 * i + 1] = PAIR(__builtin_amdgcn_cvt_scalef32_pk_f32_bf8(x, s, true));
  pk_f16_fp8[2 * i] = BITS(__builtin_amdgcn_cvt_scalef32_pk_f16_fp8(x, s, false));
  pk_f16_fp8[2 * i + 1] = BITS(__builtin_amdgcn_cvt_scalef32_pk_f16_fp8(x, s, true));
  pk_bf16_bf8[2 * i] = BITS(__builtin_amdgcn_cvt_scalef32_pk_bf16_bf8(x, s, false));
  pk_bf16_bf8[2 * i + 1] = BITS(__builtin_amdgcn_cvt_scalef32_pk_bf16_bf8(x, s, true));
}
"""
LANES = 256
# Lane i holds codes i, i+1, i+2, i+3 (mod 256): every code in every byte.
WORDS = np.array([sum(((i + b) % 256) << (8 * b) for b in range(4)) for i in range(LANES)], np.uint32)
SCALES = np.ldexp(1.0, np.arange(LANES) % 13 - 6).astype(np.float32)     # 2^-6 .. 2^6


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return rocm64.opencl_builds(tmp_path_factory.mktemp("scalef32"), "up", SOURCE, ("gfx950",))["gfx950"]


# Builtin byte index -> the byte clang-21.1's encoding names (its op_sel:[b >> 1, b & 1]).
CLANG21_BYTE = (0, 2, 1, 3)


def test_clang21_encodes_a_builtins_byte_with_its_bits_swapped(build):
    """What the expected values assume; should the root's clang be fixed, this says so."""
    listing = rocm64.objdump(build, "gfx950")
    ops = re.findall(r"v_cvt_scalef32_f32_fp8 \S+, \S+, \S+(?: op_sel:\[(\d),(\d),0\])?", listing)
    assert [(int(a or 0), int(b or 0)) for a, b in ops[:4]] == [(0, 0), (0, 1), (1, 0), (1, 1)]


def scaled(codes, dtype, to):
    """ml_dtypes' values of `codes` times each lane's scale, as `to` (f32, f16, bf16)."""
    values = np.asarray(codes, np.uint8).view(dtype).astype(np.float64)
    scale = SCALES.astype(np.float64).reshape((LANES,) + (1,) * (values.ndim - 1))
    return (values * scale).astype(np.float32).astype(to)


def same(got, want, what):
    """Bit for bit, but any NaN for a NaN (an 8-bit NaN has no payload to keep)."""
    got = np.asarray(got).view(want.dtype).reshape(want.shape)
    nan = np.isnan(want.astype(np.float32))
    assert np.array_equal(np.isnan(got.astype(np.float32)), nan), what
    assert np.array_equal(got[~nan].view(np.uint8), want[~nan].view(np.uint8)), what


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_every_code_in_every_position_times_its_scale(session, build, tier):
    outs = [np.zeros(n, dtype) for n, dtype in ((4 * LANES, np.uint32), (4 * LANES, np.uint32),
                                                 (2 * LANES, np.uint64), (2 * LANES, np.uint64),
                                                 (4 * LANES, np.uint64), (4 * LANES, np.uint32),
                                                 (4 * LANES, np.uint32), (2 * LANES, np.uint32),
                                                 (2 * LANES, np.uint32))]
    with engine(tier):
        _, _, f32_fp8, f32_bf8, pk_fp8, pk_bf8, pk_fp4, f16_fp4, bf16_fp4, f16_fp8, bf16_bf8 = launch(
            session, build, "up", [WORDS, SCALES, *outs], LANES, 64)
    fp8, bf8, fp4 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float4_e2m1fn
    byte = WORDS.view(np.uint8).reshape(LANES, 4)[:, CLANG21_BYTE]   # [lane, builtin's byte]
    nibbles = np.stack([byte & 0xF, byte >> 4], axis=-1)               # [lane, byte, low/high]
    same(f32_fp8, scaled(byte, fp8, np.float32), "f32_fp8")
    same(f32_bf8, scaled(byte, bf8, np.float32), "f32_bf8")
    words = WORDS.view(np.uint8).reshape(LANES, 2, 2)                  # [lane, word, low/high byte]
    same(pk_fp8, scaled(words, fp8, np.float32), "pk_f32_fp8")
    same(pk_bf8, scaled(words, bf8, np.float32), "pk_f32_bf8")
    same(f16_fp8, scaled(words, fp8, np.float16), "pk_f16_fp8")
    same(bf16_bf8, scaled(words, bf8, ml_dtypes.bfloat16), "pk_bf16_bf8")
    same(pk_fp4, scaled(nibbles, fp4, np.float32), "pk_f32_fp4")
    same(f16_fp4, scaled(nibbles, fp4, np.float16), "pk_f16_fp4")
    same(bf16_fp4, scaled(nibbles, fp4, ml_dtypes.bfloat16), "pk_bf16_fp4")
