"""gfx11's and gfx12's mixed-sign integer dot products (v_dot4_i32_iu8, v_dot8_i32_iu4), which
HIP's and OpenCL's __builtin_amdgcn_sudot4/sudot8 lower to, and which int8 inference kernels
(llama.cpp's on RDNA) run: each product's sources are signed or unsigned as neg_lo's bits say,
the accumulator is signed, clamp saturates to int32. Built by clang-15 for gfx1100 and by the
ROCm 6.4 root's clang-21 for gfx1201 (skipped without the root on a developer's machine,
failed in CI), run on both tiers against numpy's sums."""
import re
import subprocess

import numpy as np
import pytest

from tests.support import rocm64
from tests.support.differential import engine, launch
from tests.support.kernels import compile_opencl

# Every sign pair and clamp of both forms: out[16 * i + 8 * form + 2 * signs + clamp].
SOURCE = "kernel void dots(global const uint *a, global const uint *b, global const int *c, " \
         "global int *out) {\n  size_t i = get_global_id(0);\n  global int *o = out + 16 * i;\n" + "".join(
             f"  o[{8 * form + 2 * (sa + 2 * sb) + clamp}] = __builtin_amdgcn_sudot{4 if form == 0 else 8}("
             f"{'true' if sa else 'false'}, a[i], {'true' if sb else 'false'}, b[i], c[i], "
             f"{'true' if clamp else 'false'});\n"
             for form in (0, 1) for sb in (0, 1) for sa in (0, 1) for clamp in (0, 1)) + "}\n"

LANES = 256


def fields(words, width, signed):
    """[lane, field] of `width`-bit fields, low field first, as int64."""
    x = words.astype(np.int64)
    f = np.stack([(x >> (width * k)) & ((1 << width) - 1) for k in range(32 // width)], axis=1)
    return np.where(f >= 1 << (width - 1), f - (1 << width), f) if signed else f


def expected(a, b, c):
    out = np.zeros((LANES, 16), np.int64)
    for form, width in ((0, 8), (1, 4)):
        for sb in (0, 1):
            for sa in (0, 1):
                total = c.astype(np.int64) + (fields(a, width, sa) * fields(b, width, sb)).sum(axis=1)
                wrapped = (total + 2 ** 31) % 2 ** 32 - 2 ** 31
                saturated = np.clip(total, -2 ** 31, 2 ** 31 - 1)
                out[:, 8 * form + 2 * (sa + 2 * sb)] = wrapped
                out[:, 8 * form + 2 * (sa + 2 * sb) + 1] = saturated
    return out.astype(np.int32)


def inputs():
    """Random words, with the fields' extremes (0x80, 0x7F, 0xFF bytes; 8, 7, 15 nibbles) in
    some lanes, and accumulators at both ends of int32 so that sums overflow either way."""
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2 ** 32, LANES, dtype=np.uint32)
    b = rng.integers(0, 2 ** 32, LANES, dtype=np.uint32)
    a[:4] = [0x80808080, 0xFFFFFFFF, 0x7F7F7F7F, 0x88888888]
    b[:4] = [0x80808080, 0xFFFFFFFF, 0x7F7F7F7F, 0x77777777]
    c = rng.integers(-2 ** 31, 2 ** 31, LANES, dtype=np.int64).astype(np.int32)
    c[: LANES // 4] = 2 ** 31 - 1 - np.arange(LANES // 4, dtype=np.int32) * 1000
    c[LANES // 4: LANES // 2] = -2 ** 31 + np.arange(LANES // 4, dtype=np.int32) * 1000
    return a, b, c


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    out = {"gfx1100": compile_opencl(SOURCE, mcpu="gfx1100")}
    out.update(rocm64.opencl_builds(tmp_path_factory.mktemp("dots"), "dots", SOURCE, ["gfx1201"]))
    return out


def test_the_builds_run_the_mixed_sign_forms_with_every_sign_pair(builds):
    for target in builds:
        text = rocm64.objdump(builds[target], target) if target == "gfx1201" else subprocess.run(
            ["llvm-objdump-15", "-d", f"--mcpu={target}", builds[target]], capture_output=True,
            text=True, check=True).stdout
        for form in ("v_dot4_i32_iu8", "v_dot8_i32_iu4"):
            lines = [line for line in text.splitlines() if form in line]
            seen = {(re.search(r"neg_lo:(\[[01,]+\])", line) or [None, "[0,0,0]"])[1] for line in lines}
            assert seen == {"[0,0,0]", "[1,0,0]", "[0,1,0]", "[1,1,0]"}, (target, form, seen)
            assert any(" clamp" in line for line in lines) and not all(" clamp" in line for line in lines)


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("target", ["gfx1100", "gfx1201"])
def test_each_source_is_signed_as_neg_lo_says_and_clamp_saturates(session, builds, target, tier):
    a, b, c = inputs()
    with engine(tier):
        *_, out = launch(session, builds[target], "dots", [a, b, c, np.zeros(16 * LANES, np.int32)],
                         LANES, 64)
    want = expected(a, b, c)
    got = out.reshape(LANES, 16)
    # The inputs reach every case: some sums overflow, so clamp and wrap differ
    assert (want[:, 1::2] != want[:, 0::2]).any()
    np.testing.assert_array_equal(got, want)
