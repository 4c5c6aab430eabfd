"""The engine runs real clang-15 kernels: launch ABI, wave sizes, grids, divergence, calls, scratch."""
import numpy as np
import pytest

from tests.support.launch import launch
from tests.support.kernels import compile_opencl

VADD = """
kernel void vadd(global const float *a, global const float *b, global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("wave64", [False, True])
def test_vector_add_matches_numpy(session, opt, wave64):
    co = compile_opencl(VADD, opt=opt, wave64=wave64)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    _, _, c = launch(session, co, "vadd", [a, b, np.zeros(1000, np.float32)], 1000, 64)
    np.testing.assert_array_equal(c, a + b)


IDS = """
kernel void ids(global uint *out) {
  size_t lin = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0)
               + get_global_id(0);
  global uint *o = out + 9 * lin;
  for (uint d = 0; d < 3; d++) {
    o[3 * d] = get_local_id(d);
    o[3 * d + 1] = get_group_id(d);
    o[3 * d + 2] = get_local_size(d);
  }
}
"""


@pytest.mark.parametrize("code_object", [4, 5])
def test_partial_workgroups_in_three_dimensions_see_their_real_sizes(session, code_object):
    # v4 device libraries read sizes from the AQL packet (dispatch pointer), v5 from hidden args.
    grid, group = (9, 7, 5), (4, 4, 2)
    co = compile_opencl(IDS, opt="-O2", code_object=code_object)
    out, = launch(session, co, "ids", [np.zeros(9 * 9 * 7 * 5, np.uint32)], grid, group)
    out = out.reshape(5, 7, 9, 3, 3)                      # z, y, x, dim, (lid, group, size)
    z, y, x = np.meshgrid(np.arange(5), np.arange(7), np.arange(9), indexing="ij")
    for d, coord in enumerate((x, y, z)):
        size = np.minimum(group[d], grid[d] - coord // group[d] * group[d])
        np.testing.assert_array_equal(out[..., d, 0], coord % group[d])
        np.testing.assert_array_equal(out[..., d, 1], coord // group[d])
        np.testing.assert_array_equal(out[..., d, 2], size)


DIVERGE = """
int steps(uint n) {
  int s = 0;
  while (n != 1) { n = (n & 1) ? 3 * n + 1 : n / 2; s++; }
  return s;
}
kernel void diverge(global const uint *in, global int *out) {
  size_t i = get_global_id(0);
  uint v = in[i];
  if (v % 3 == 0) out[i] = steps(v);
  else if (v % 3 == 1) out[i] = -(int)v;
  else return;
}
"""


def _collatz(n):
    s = 0
    while n != 1:
        n = 3 * n + 1 if n & 1 else n // 2
        s += 1
    return s


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_divergent_lanes_and_data_dependent_loops_reconverge(session, opt):
    co = compile_opencl(DIVERGE, opt=opt)
    values = np.arange(1, 301, dtype=np.uint32)
    out = np.full(300, 12345, np.int32)
    _, got = launch(session, co, "diverge", [values, out], 300, 32)
    want = np.array([_collatz(int(v)) if v % 3 == 0 else -int(v) if v % 3 == 1 else 12345
                     for v in values], np.int32)
    np.testing.assert_array_equal(got, want)


PRIVATE = """
__attribute__((noinline)) float pick(float *p, int k) { return p[k & 31]; }
kernel void priv(global const int *k, global float *out) {
  float p[32];
  size_t i = get_global_id(0);
  for (int j = 0; j < 32; j++) p[j] = (float)(i * 100 + j);
  out[i] = pick(p, k[i]);
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_private_arrays_through_calls_stay_per_lane(session, opt):
    # The callee reaches the caller's array through a flat pointer into scratch; -O0 also
    # spills through the private segment buffer descriptor.
    co = compile_opencl(PRIVATE, opt=opt)
    k = np.random.default_rng(2).integers(0, 1000, 256).astype(np.int32)
    _, got = launch(session, co, "priv", [k, np.zeros(256, np.float32)], 256, 64)
    np.testing.assert_array_equal(got, np.arange(256) * 100 + (k & 31))


def test_a_grid_larger_than_one_chunk_runs_in_bounded_chunks(session, monkeypatch):
    from core.isa.interp import dispatch
    monkeypatch.setattr(dispatch, "CHUNK_STATE_BYTES", 1 << 16)
    co = compile_opencl(VADD, opt="-O2")
    n = 8192
    a = np.arange(n, dtype=np.float32)
    _, _, c = launch(session, co, "vadd", [a, a, np.zeros(n, np.float32)], n, 128)
    np.testing.assert_array_equal(c, 2 * a)


def test_dispatch_stats_count_waves_and_lane_instructions(session, monkeypatch):
    from core.harness import launch as testlaunch
    co = compile_opencl(VADD, opt="-O2")
    seen = []
    original = testlaunch.run_dispatch
    monkeypatch.setattr(testlaunch, "run_dispatch", lambda *a, **k: seen.append(original(*a, **k)))
    launch(session, co, "vadd", [np.ones(256, np.float32)] * 3, 256, 64)
    stats, = seen
    assert stats.waves == 8 and stats.workgroups == 4
    assert stats.lane_instructions == 32 * stats.wave_instructions   # every lane active throughout


MAYBE = """
kernel void maybe(global int *out, global const int *extra) {
  size_t i = get_global_id(0);
  out[i] = extra ? extra[i] : -1;
}
"""


def test_none_passes_a_null_pointer(session):
    co = compile_opencl(MAYBE, opt="-O2")
    out, = launch(session, co, "maybe", [np.zeros(32, np.int32), None], 32, 32)
    np.testing.assert_array_equal(out, -1)


def test_repeated_launch_shapes_still_give_each_dispatch_its_own_arguments_and_scratch(session):
    """The second dispatch of a shape starts from the kernel's launch template: only its
    ids and sizes come from it, never the first dispatch's buffers or scratch."""
    co = compile_opencl(PRIVATE, opt="-O0")
    shapes = ((256, 64), (100, 32), (256, 64))
    for run, (n, group) in enumerate(shapes):
        k = np.random.default_rng(run).integers(0, 1000, n).astype(np.int32)
        _, got = launch(session, co, "priv", [k, np.zeros(n, np.float32)], n, group)
        np.testing.assert_array_equal(got, np.arange(n) * 100 + (k & 31))
    co = compile_opencl(IDS, opt="-O2")
    for grid, group in (((9, 7, 5), (4, 4, 2)), ((9, 7, 5), (4, 4, 2))):
        out, = launch(session, co, "ids", [np.zeros(9 * 9 * 7 * 5, np.uint32)], grid, group)
        assert out.reshape(5, 7, 9, 3, 3)[4, 6, 8, 0].tolist() == [0, 2, 1]   # x: lid, group, size
