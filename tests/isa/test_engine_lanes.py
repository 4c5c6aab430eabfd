"""Cross-lane operations as clang emits them for gfx1030 builtins: DPP8, v_permlane16,
ds_permute/ds_bpermute, and M0-relative VGPR indexing of private arrays."""
import numpy as np
import pytest

from tests.support.launch import launch
from tests.support.kernels import compile_opencl

REVERSE8 = sum(sel << (3 * i) for i, sel in enumerate(range(7, -1, -1)))

LANES = f"""
kernel void lanes(global const int *in, global int *out) {{
  size_t i = get_global_id(0);
  int v = in[i];
  int lane = get_local_id(0) & 31;
  global int *o = out + 4 * i;
  o[0] = __builtin_amdgcn_mov_dpp8(v, {REVERSE8});
  o[1] = __builtin_amdgcn_permlane16(0, v, 0x01234567, 0x89abcdef, false, false);
  o[2] = __builtin_amdgcn_ds_permute((lane ^ 5) * 4, v);
  o[3] = __builtin_amdgcn_ds_bpermute((31 - lane) * 4, v);
}}
"""


def test_cross_lane_builtins_move_values_between_lanes(session):
    co = compile_opencl(LANES, opt="-O2")
    n = 128
    values = np.random.default_rng(4).integers(-1000, 1000, n).astype(np.int32)
    _, out = launch(session, co, "lanes", [values, np.zeros(4 * n, np.int32)], n, 64)
    out = out.reshape(n, 4)
    lane = np.arange(n) % 32
    wave_base = np.arange(n) - lane
    np.testing.assert_array_equal(out[:, 0], values[np.arange(n) ^ 7])             # dpp8 reverse
    select = np.array([7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8])
    np.testing.assert_array_equal(out[:, 1], values[wave_base + lane // 16 * 16 + select[lane % 16]])
    np.testing.assert_array_equal(out[:, 2], values[wave_base + (lane ^ 5)])       # forward permute
    np.testing.assert_array_equal(out[:, 3], values[wave_base + 31 - lane])        # backward permute


RELATIVE = """
kernel void relative(global float *out, int n) {
  float p[16];
  for (int k = 0; k < 16; k++) p[k] = get_global_id(0) * k + n;
  out[get_global_id(0)] = p[n & 15];
}
"""


@pytest.mark.parametrize("n", [3, 14])
def test_a_uniform_index_into_a_register_array_reads_through_m0(session, n):
    # clang -O2 keeps p[] in VGPRs and reads p[n & 15] with v_movrels_b32 (M0 = index).
    co = compile_opencl(RELATIVE, opt="-O2")
    out, = launch(session, co, "relative", [np.zeros(64, np.float32), np.int32(n)], 64, 64)
    np.testing.assert_array_equal(out, np.arange(64) * (n & 15) + n)
