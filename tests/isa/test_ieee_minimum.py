"""IEEE 754-2019's minimum and maximum, which clang-21 lowers llvm.minimum/llvm.maximum to on
RDNA4 (gfx1201: v_minimum_f32, s_minimum_f32 on uniform values, the packed f16 forms; its
three-source forms through inline assembly) and on the MI355X (gfx950: v_minimum3_f32,
v_pk_minimum3_f16): a NaN source gives a NaN (the first NaN source, quieted, as every SoftGPU
arithmetic op makes it) and -0 orders below +0, on both engine tiers. Built by the ROCm 6.4
root's clang-21 (skipped without the root on a developer's machine, failed in CI)."""
import re

import numpy as np
import pytest

from tests.support import rocm64
from tests.support.differential import engine, launch

SELECT = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void select(global const float *a, global const float *b, global const float *c,
                   global float *out, global const half *ha, global const half *hb,
                   global half *hout, float ua, float ub, global float *uout) {
  size_t i = get_global_id(0);
  float x = a[i], y = b[i], z = c[i];
  out[4 * i] = __builtin_elementwise_minimum(x, y);
  out[4 * i + 1] = __builtin_elementwise_maximum(x, y);
#if defined(__gfx1201__)
  // clang-21 does not fuse the chains on gfx12: its three-source forms by hand
  float chain, mixed;
  __asm__("v_minimum3_f32 %0, %1, %2, %3" : "=v"(chain) : "v"(x), "v"(y), "v"(z));
  __asm__("v_minimummaximum_f32 %0, %1, %2, %3" : "=v"(mixed) : "v"(x), "v"(y), "v"(z));
  out[4 * i + 2] = chain;
  out[4 * i + 3] = mixed;
#else
  out[4 * i + 2] = __builtin_elementwise_minimum(__builtin_elementwise_minimum(x, y), z);
  out[4 * i + 3] = __builtin_elementwise_maximum(__builtin_elementwise_minimum(x, y), z);
#endif
  half2 p = vload2(i, ha), q = vload2(i, hb);
  vstore2(__builtin_elementwise_minimum(p, q), 2 * i, hout);
  vstore2(__builtin_elementwise_maximum(p, q), 2 * i + 1, hout);
  if (i == 0) {
    uout[0] = __builtin_elementwise_minimum(ua, ub);
    uout[1] = __builtin_elementwise_maximum(ua, ub);
  }
}
"""

# Each target's forms the build must hold, so the test runs them and not a compare-and-select.
FORMS = {"gfx1201": ("v_minimum_f32", "v_maximum_f32", "v_minimum3_f32", "v_minimummaximum_f32",
                     "s_minimum_f32", "s_maximum_f32", "v_pk_minimum_f16", "v_pk_maximum_f16"),
         "gfx950": ("v_minimum3_f32", "v_maximum3_f32", "v_pk_minimum3_f16", "v_pk_maximum3_f16")}

F32 = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, np.inf, -np.inf, 1e-45, -1e-45, 3.4e38,
       np.uint32(0x7FC00001).view(np.float32),            # a quiet NaN with a payload
       np.uint32(0xFF800123).view(np.float32),            # a signalling one, negative
       np.uint32(0x7FA00000).view(np.float32)]            # a signalling one
F16 = [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x0001, 0x8001, 0x7BFF,
       0x7E01, 0xFD23, 0x7D00]                            # qNaN, sNaN (negative), sNaN


def _key(bits, sign, width):
    """Sort key of non-NaN float bits: -0 below +0."""
    magnitude = bits & (sign - 1)
    return np.where(bits & sign, -magnitude.astype(np.int64) - 1, magnitude.astype(np.int64))


def reference(sources, want_max, width):
    """IEEE minimum/maximum over bit patterns, chained over `sources` ((x, y), then z), each
    NaN result the first NaN among all the sources, quieted."""
    uint = np.uint32 if width == 32 else np.uint16
    sign, exponent, quiet = (0x80000000, 0x7F800000, 0x00400000) if width == 32 else (0x8000, 0x7C00, 0x0200)
    nan = [(s & (sign - 1)) > exponent for s in sources]
    picks = want_max if isinstance(want_max, tuple) else (want_max,)
    r = sources[0]
    for s, pick_max in zip(sources[1:], picks):
        kr, ks = _key(r, sign, width), _key(s, sign, width)
        r = np.where((kr >= ks) if pick_max else (kr <= ks), r, s)
    first_nan = sources[-1]
    for s, n in reversed(list(zip(sources, nan))):
        first_nan = np.where(n, s, first_nan)
    return np.where(np.any(nan, axis=0), first_nan | quiet, r).astype(uint)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    return rocm64.opencl_builds(tmp_path_factory.mktemp("minimum"), "select", SELECT, FORMS)


@pytest.mark.parametrize("target", sorted(FORMS))
def test_clang21_lowers_ieee_minimum_to_the_targets_own_forms(builds, target):
    listing = rocm64.objdump(builds[target], target)
    mnemonics = set(re.findall(r"^\s+([sv]_\w+)", listing, re.M))
    missing = [f for f in FORMS[target] if not any(m.startswith(f) for m in mnemonics)]
    assert not missing, sorted(mnemonics)


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("target", sorted(FORMS))
def test_minimum_and_maximum_order_zeros_and_propagate_nans(session, builds, target, tier):
    f32 = np.array(F32, np.float32).view(np.uint32)
    x, y = (m.reshape(-1) for m in np.meshgrid(f32, f32, indexing="ij"))
    z = np.roll(x, 5)
    n = x.size
    lanes = -(-n // 64) * 64
    pad = lambda v: np.resize(v, lanes)                    # noqa: E731
    x, y, z = pad(x), pad(y), pad(z)
    f16 = np.array(F16, np.uint16)
    hx, hy = (m.reshape(-1) for m in np.meshgrid(f16, f16, indexing="ij"))
    hx, hy = np.resize(hx, 2 * lanes), np.resize(hy, 2 * lanes)
    ua, ub = np.float32(-0.0), np.float32(0.0)
    with engine(tier):
        _, _, _, out, _, _, hout, uout = launch(
            session, builds[target], "select",
            [x.view(np.float32), y.view(np.float32), z.view(np.float32), np.zeros(4 * lanes, np.float32),
             hx.view(np.float16), hy.view(np.float16), np.zeros(4 * lanes, np.float16), ua, ub,
             np.zeros(2, np.float32)], lanes, 64)
    out = out.view(np.uint32).reshape(lanes, 4)
    np.testing.assert_array_equal(out[:, 0], reference([x, y], False, 32), err_msg="minimum")
    np.testing.assert_array_equal(out[:, 1], reference([x, y], True, 32), err_msg="maximum")
    np.testing.assert_array_equal(out[:, 2], reference([x, y, z], (False, False), 32), err_msg="minimum3")
    np.testing.assert_array_equal(out[:, 3], reference([x, y, z], (False, True), 32),
                                  err_msg="maximum of minimum")
    hout = hout.view(np.uint16).reshape(lanes, 2, 2)      # [lane, min/max, element]
    pairs = [hx.reshape(lanes, 2), hy.reshape(lanes, 2)]
    for which, pick_max in ((0, False), (1, True)):
        want = reference([pairs[0], pairs[1]], pick_max, 16)
        np.testing.assert_array_equal(hout[:, which], want, err_msg=f"f16 {'max' if pick_max else 'min'}")
    # Uniform values (SALU on gfx1201): -0 is the minimum of -0 and +0, +0 the maximum.
    assert uout.view(np.uint32).tolist() == [0x80000000, 0x00000000]
