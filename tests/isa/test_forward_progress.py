"""Forward progress: kernels whose waves and workgroups wait on each other end, as on a GPU.

A GPU runs every resident wave whatever the others are waiting for, and holds many workgroups
at once (compute units x occupancy), dispatching more as earlier ones finish. Kernels built on
that (flags between waves, producer/consumer workgroups, decoupled look-back scans, rocSPARSE's
csrsv analysis, grid barriers of persistent threads) must end here too, with the right result,
whichever engine tier runs them (they go through core.isa.launch.run_dispatch).

A regression would make these kernels spin: the watchdog is set low enough that it fails the
test in seconds instead of hanging it, and high enough that the native tier's waiting waves
outlast a pool thread the OS leaves unscheduled for a while on a loaded machine (they keep
spinning, and counting, while the groups they wait on cannot run).
"""
import numpy as np
import pytest

from tests.support.kernels import compile_hip, compile_opencl
from tests.support.launch import launch

WATCHDOG = 1 << 22
# A packet may ask for more private memory than the kernel needs; 16 KiB a work-item makes a
# wave's scratch 512 KiB (wave32), so a chunk of resident state holds far fewer workgroups than
# the GPU does and the kernels below wait on workgroups beyond it.
BIG_PRIVATE = 16 << 10


def _opencl(opt, wave):
    return compile_opencl("forward_progress.cl", opt=opt, wave64=(wave == 64))


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_a_wave_polling_a_flag_lets_the_wave_that_sets_it_run(session, opt, wave):
    groups, size = 4, 128
    flags, out = launch(session, _opencl(opt, wave), "wave_handoff",
                        [np.zeros(groups, np.int32), np.zeros(groups * size, np.int32),
                         np.int32(100)],
                        groups * size, size, watchdog_instructions=WATCHDOG)
    published = sum(range(100)) + 1
    np.testing.assert_array_equal(flags, published)
    lid = np.tile(np.arange(size), groups)
    wave_of = lid // wave
    want = np.where(wave_of == 0, published + lid, np.where(wave_of == size // wave - 1, -1, -2))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_a_workgroup_waits_for_a_later_workgroup(session, opt):
    groups, size = 16, 64
    flag, out = launch(session, _opencl(opt, 32), "group_handoff",
                       [np.zeros(1, np.int32), np.zeros(groups * size, np.int32)],
                       groups * size, size, watchdog_instructions=WATCHDOG)
    want = np.repeat(np.arange(groups), size)
    want[:size] = 1234
    np.testing.assert_array_equal(out, want)
    assert flag[0] == 1234


def test_a_workgroup_waits_for_the_last_of_many_chunks(session):
    # 64 workgroups a chunk (see BIG_PRIVATE); the first waits for the 400th while the rest
    # finish, as a GPU holding 1152 such workgroups keeps dispatching around it.
    groups, size = 400, 64
    flag, out = launch(session, _opencl("-O2", 32), "group_handoff",
                       [np.zeros(1, np.int32), np.zeros(groups * size, np.int32)],
                       groups * size, size, private_segment_size=BIG_PRIVATE,
                       watchdog_instructions=WATCHDOG)
    want = np.repeat(np.arange(groups), size)
    want[:size] = 1234
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("private", [0, BIG_PRIVATE], ids=["one-chunk", "beyond-a-chunk"])
def test_every_workgroup_waits_for_the_next_one(session, private):
    # 160 workgroups of 64 fit a 72-CU gfx1030 at once (16 a CU); with 512 KiB of scratch a
    # wave, a 64 MiB chunk of resident state holds 64 of them.
    groups = 160
    ready, value = launch(session, _opencl("-O2", 32), "reverse_chain",
                          [np.zeros(groups, np.int32), np.zeros(groups, np.int32)],
                          groups * 64, 64, private_segment_size=private,
                          watchdog_instructions=WATCHDOG)
    np.testing.assert_array_equal(value, groups - np.arange(groups))
    np.testing.assert_array_equal(ready, 1)


@pytest.mark.parametrize("private", [0, BIG_PRIVATE], ids=["one-chunk", "beyond-a-chunk"])
def test_a_grid_barrier_of_persistent_workgroups(session, private):
    groups, size = 150, 64
    arrived, slots, out = launch(session, _opencl("-O2", 32), "counter_grid_barrier",
                                 [np.zeros(1, np.int32), np.zeros(groups, np.int32),
                                  np.zeros(groups * size, np.int32)],
                                 groups * size, size, private_segment_size=private,
                                 watchdog_instructions=WATCHDOG)
    g = np.arange(groups)
    np.testing.assert_array_equal(slots, g * g + 7)
    neighbour = (np.repeat(g, size) + 1) % groups
    np.testing.assert_array_equal(out, neighbour * neighbour + 7 + np.tile(np.arange(size), groups))
    assert arrived[0] == groups


# -O0 walks back through every earlier tile in ~50 instructions a step: fewer tiles there.
@pytest.mark.parametrize("opt,tiles", [("-O0", 32), ("-O2", 96)])
def test_decoupled_look_back_scan_equals_cumsum(session, opt, tiles):
    size = 256
    n = tiles * size - 77                       # a partial last tile
    data = np.random.default_rng(10).integers(0, 1 << 20, n, dtype=np.uint32)
    co = compile_hip("forward_progress.hip", opt=opt)
    _, out, status, counter = launch(
        session, co, "lookback_scan",
        [data, np.zeros(n, np.uint32), np.zeros(tiles, np.uint64), np.zeros(1, np.uint32),
         np.uint32(n)],
        tiles * size, size, watchdog_instructions=WATCHDOG)
    np.testing.assert_array_equal(out, np.cumsum(data, dtype=np.uint32))
    assert counter[0] == tiles
    assert (status >> np.uint64(32) == 2).all()          # every tile ends with its prefix


def _lower_triangular(rows, per_row, rng):
    """CSR of a random lower-triangular matrix: the diagonal and up to per_row of the 16
    columns before it, so dependency chains are long."""
    row_ptr, cols = [0], []
    for i in range(rows):
        deps = sorted(set((i - 1 - rng.integers(0, min(i, 16), per_row)).tolist())) if i else []
        cols += deps + [i]
        row_ptr.append(len(cols))
    return np.array(row_ptr, np.int32), np.array(cols, np.int32)


# A row's wave runs ~1500 instructions at -O0 once its dependencies are done: fewer rows there.
@pytest.mark.parametrize("opt,rows", [("-O0", 96), ("-O2", 384)])
def test_csrsv_analysis_levels(session, opt, rows):
    rng = np.random.default_rng(11)
    row_ptr, cols = _lower_triangular(rows, 3, rng)
    want = np.zeros(rows, np.int32)
    for i in range(rows):
        deps = cols[row_ptr[i]:row_ptr[i + 1]]
        deps = deps[deps < i]
        want[i] = want[deps].max() + 1 if deps.size else 0
    co = compile_hip("forward_progress.hip", opt=opt)
    _, _, done, depth = launch(session, co, "csr_levels",
                               [row_ptr, cols, np.zeros(rows, np.int32), np.zeros(rows, np.int32),
                                np.int32(rows)],
                               rows * 32, 64, watchdog_instructions=WATCHDOG)
    np.testing.assert_array_equal(depth, want)
    np.testing.assert_array_equal(done, 1)
