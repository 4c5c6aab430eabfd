"""Raw buffer accesses near and past num_records, as Tensile's kernels make them, on both
tiers: a lane is in bounds when its whole element lies below num_records (at the limit in,
one byte past out); out-of-bounds loads read 0, stores and atomics change nothing, and an
instruction none of whose lanes is in bounds is no fault (it once raised ValueError
'zero-size array to reduction operation minimum' in the interpreter's range check)."""
import numpy as np
import pytest

from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import fresh_kernel, launch

LANES = 64
STORE_OFFSET, ATOMIC_OFFSET = 256, 512


def _expected(records, data):
    lane = np.arange(LANES)
    load_in = 4 * lane + 4 <= records
    store_in = STORE_OFFSET + 4 * lane + 4 <= records
    atomic_in = ATOMIC_OFFSET + 4 * lane + 4 <= records
    after = data.copy()
    after[STORE_OFFSET // 4 + lane[store_in]] = lane[store_in] + 1000
    after[ATOMIC_OFFSET // 4 + lane[atomic_in]] += 5
    out = np.zeros(2 * LANES, np.int32)
    out[0::2] = np.where(load_in, data[lane], 0)
    out[1::2] = np.where(atomic_in, data[ATOMIC_OFFSET // 4 + lane], 0)
    return after, out


# 0 and 128: no lane of the store or the atomic in bounds (128: half the loads are);
# 260/259: the store's lane 0 exactly at the limit, then one byte short; 772: every access.
@pytest.mark.parametrize("records", [0, 128, 259, 260, 515, 516, 772])
@pytest.mark.parametrize("tier", ["interp", "native"])
def test_buffer_lanes_out_of_bounds_read_zero_and_write_nothing(session, tier, records):
    path = compile_opencl("buffer_bounds.cl")
    data = (np.arange(256, dtype=np.int32) * 7 + 3)
    kernel, executable = fresh_kernel(session, path, "buffer_bounds")
    try:
        with engine(tier):
            after, out = launch(session, path, "buffer_bounds",
                                [data.copy(), np.zeros(2 * LANES, np.int32), np.uint32(records)],
                                LANES, LANES, kernel=kernel)
    finally:
        session.loader.destroy_executable(executable)
    want_data, want_out = _expected(records, data)
    np.testing.assert_array_equal(out, want_out)
    np.testing.assert_array_equal(after, want_data)
