"""Gathers and scatters: lanes whose addresses are not contiguous, which the native tier moves
out of line (sg_native_move) once it has checked them. Every element size, dword pairs and
triples and quads, lanes that share an address (a scatter's highest lane wins, as the
hardware orders a wave's lanes), and inactive lanes: numpy's answer on both tiers."""
import numpy as np
import pytest

from core.harness.launch import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import launch

KERNELS = """
#define PERMUTED(T, name)                                                                 \\
kernel void gather_##name(global const T *in, global const int *index, global T *out) {  \\
  size_t i = get_global_id(0);                                                            \\
  if (index[i] >= 0) out[i] = in[index[i]];                                               \\
}                                                                                         \\
kernel void scatter_##name(global const T *in, global const int *index, global T *out) { \\
  size_t i = get_global_id(0);                                                            \\
  if (index[i] >= 0) out[index[i]] = in[i];                                               \\
}
PERMUTED(uchar, u8) PERMUTED(ushort, u16) PERMUTED(uint, u32) PERMUTED(ulong, u64)
PERMUTED(uint4, u128)
// Three packed dwords a lane (a uint3 would be padded to four).
kernel void gather_u96(global const uint *in, global const int *index, global uint *out) {
  size_t i = get_global_id(0);
  if (index[i] >= 0) vstore3(vload3(index[i], in), i, out);
}
kernel void scatter_u96(global const uint *in, global const int *index, global uint *out) {
  size_t i = get_global_id(0);
  if (index[i] >= 0) vstore3(vload3(i, in), index[i], out);
}
"""

# Element type name -> (numpy dtype, dwords per element; 0 for a sub-dword element).
ELEMENTS = {"u8": (np.uint8, 0), "u16": (np.uint16, 0), "u32": (np.uint32, 1), "u64": (np.uint64, 2),
            "u96": (np.uint32, 3), "u128": (np.uint32, 4)}
ITEMS = 2048
RUN = 32        # lanes share addresses only within a run (one wave32, half a wave64)


def _index(rng, scatter):
    """Each run of RUN items permuted within itself; then a fifth of the lanes share an
    address (a gather's with its run's first lane; a scatter's with the next lane, so that
    lane order decides) and a tenth are off (-1)."""
    runs = np.arange(ITEMS) // RUN * RUN
    index = runs + np.concatenate([rng.permutation(RUN) for _ in range(ITEMS // RUN)])
    shared = np.flatnonzero((rng.random(ITEMS) < 0.2) & (np.arange(ITEMS) % RUN < RUN - 1))
    index[shared] = index[shared + 1] if scatter else index[runs[shared]]
    index[rng.random(ITEMS) < 0.1] = -1
    return index.astype(np.int32)


def _expected(kind, data, index, width):
    rows = data.reshape(ITEMS, width)
    out = np.zeros_like(rows)
    for lane, at in enumerate(index):        # lane order: a later lane's store wins
        if at >= 0:
            if kind == "gather":
                out[lane] = rows[at]
            else:
                out[at] = rows[lane]
    return out.reshape(-1)


@pytest.mark.parametrize("wave64", [False, True], ids=["wave32", "wave64"])
@pytest.mark.parametrize("kind", ["gather", "scatter"])
@pytest.mark.parametrize("element", list(ELEMENTS))
def test_gathers_and_scatters_move_each_lanes_element_in_lane_order(session, element, kind, wave64):
    dtype, dwords = ELEMENTS[element]
    width = 1 if dwords <= 2 else dwords
    rng = np.random.default_rng(ITEMS + len(element) + (kind == "scatter"))
    info = np.iinfo(dtype)
    data = rng.integers(0, info.max, ITEMS * width, dtype=dtype, endpoint=True)
    index = _index(rng, kind == "scatter")
    want = _expected(kind, data, index, width)
    co = compile_opencl(KERNELS, opt="-O2", wave64=wave64)
    for tier in ("interp", "native"):
        with engine(tier):
            _, _, out = launch(session, co, f"{kind}_{element}", [data, index, np.zeros_like(data)],
                               ITEMS, 256)
        np.testing.assert_array_equal(out, want, err_msg=f"{tier} tier")
