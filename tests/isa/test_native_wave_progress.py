"""The waves of a workgroup progress together on both tiers, as on a GPU: no wave runs a long
computation to its end while another wave of its group has not begun the loop before it, and
no wave stores into LDS a few dozen straight-line instructions after a barrier before the
other waves have read what it overwrites.

Kernels rely on this without a barrier to say so (rocSOLVER's syevj_small_kernel reads LDS
that the next rotation overwrites, its potf2_kernel_small reads the pivot that work-item 0
overwrites with its square root); tests/kernels/wave_progress.cl has both shapes, so its
results come out right only where the waves take turns at least every few hundred
instructions in loops and before LDS stores in straight-line code. A workgroup of one wave
has no one to take turns with.
"""
import numpy as np
import pytest

from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import launch

GROUP = 256
GROUPS = 4
# Iterations of the computation after the reads: its instructions outnumber a turn several
# times over, and the reads' loop alone is longer than a turn.
WORK = 400


def _lcg(x, steps):
    x = x.astype(np.uint64)
    for _ in range(steps):
        x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
    return x.astype(np.uint32)


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_no_wave_overtakes_its_group_before_a_store_it_races(session, tier, opt, wave):
    values = np.random.default_rng(21).integers(0, 1 << 20, GROUP * GROUPS, dtype=np.uint32)
    co = compile_opencl("wave_progress.cl", opt=opt, wave64=(wave == 64))
    with engine(tier):
        _, sums, results = launch(
            session, co, "lagging_readers",
            [values, np.zeros_like(values), np.zeros_like(values), np.int32(WORK)],
            GROUP * GROUPS, GROUP)
    expected = values.reshape(GROUPS, GROUP).sum(axis=1, dtype=np.uint32).repeat(GROUP)
    np.testing.assert_array_equal(sums, expected)
    np.testing.assert_array_equal(results, _lcg(expected, WORK))


# The interpreter gets the -O0 build wrong: there barrier() and the work-item ids are calls into
# the device libraries, and wave 0 runs ahead of its group across a call's return (a backward
# jump that ends its turn). Not the native tier's to match: its -O0 run is right.
PIVOT_CASES = [("interp", "-O2"), ("native", "-O2"), ("native", "-O0")]


@pytest.mark.parametrize("tier, opt", PIVOT_CASES)
@pytest.mark.parametrize("wave", [32, 64])
def test_every_wave_reads_the_pivot_before_work_item_0_overwrites_it(session, tier, opt, wave):
    pivots = np.random.default_rng(22).integers(1, 1 << 32, GROUPS, dtype=np.uint32)
    co = compile_opencl("wave_progress.cl", opt=opt, wave64=(wave == 64))
    with engine(tier):
        _, seen = launch(session, co, "pivot_readers",
                         [pivots, np.zeros(GROUP * GROUPS, np.uint32)], GROUP * GROUPS, GROUP)
    np.testing.assert_array_equal(seen, pivots.repeat(GROUP))
