"""Global wave sync and GDS: the ds_gws_* barrier and semaphores across every workgroup of a
grid, with state that persists between dispatches of a queue (HIP initialises the barrier in
one dispatch and uses it in the next), and ds_append/ds_consume counters in LDS and GDS.
Kernels in tests/kernels/global_sync.cl, run through core.isa.launch.run_dispatch."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from core.isa.global_sync import GlobalSync
from softgpu_shim.hsa_abi import Status
from tests.support.kernels import compile_opencl
from tests.support.launch import launch

WATCHDOG = 1 << 20


def _code(opt="-O2", wave=32):
    return compile_opencl("global_sync.cl", opt=opt, wave64=(wave == 64))


def _init(session, co, sync, value, resource):
    launch(session, co, "gws_init", [np.uint32(value), np.uint32(resource)], 1, 1, global_sync=sync)


def _rounds(session, co, sync, groups, size, rounds, **kw):
    """gws_grid_rounds with workgroups that reach each barrier at different times: (slots, out)."""
    delays = (np.arange(groups) * 37 % 11 * 20).astype(np.int32)
    slots, out, _, _ = launch(session, co, "gws_grid_rounds",
                              [np.zeros(groups, np.int32),
                               np.zeros(rounds * groups * size, np.int32), delays,
                               np.zeros(groups * size, np.int32), np.int32(rounds)],
                              groups * size, size, global_sync=sync,
                              watchdog_instructions=WATCHDOG, **kw)
    return slots, out


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_a_gws_grid_barrier_holds_every_workgroup_until_all_arrive(session, engine, opt, wave):
    co, sync = _code(opt, wave), GlobalSync(gws=True)
    groups, size, rounds = 24, 128, 3
    _init(session, co, sync, groups - 1, 0)
    slots, out = _rounds(session, co, sync, groups, size, rounds)
    g = np.arange(groups)
    want = np.repeat((np.arange(rounds)[:, None] * 1000 + (g + 1) % groups).reshape(-1), size)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(slots, (rounds - 1) * 1000 + g)
    assert sync.counters[0] == groups - 1          # reset by the last arrival, ready again


def test_a_grid_barrier_admits_workgroups_beyond_one_chunk(session):
    # 512 KiB of scratch a wave: a chunk of resident state holds 64 of the 100 workgroups,
    # which must all be resident at the barrier (as a cooperative launch guarantees).
    co, sync = _code(), GlobalSync(gws=True)
    groups, size = 100, 64
    _init(session, co, sync, groups - 1, 0)
    _, out = _rounds(session, co, sync, groups, size, 1, private_segment_size=16 << 10)
    np.testing.assert_array_equal(out, np.repeat((np.arange(groups) + 1) % groups, size))


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_gws_semaphores_let_waves_through_one_by_one_or_all_at_once(session, opt):
    co, sync = _code(opt), GlobalSync(gws=True)
    groups = 12
    data, out = launch(session, co, "gws_semaphores",
                       [np.zeros(1, np.int32), np.zeros(groups, np.int32)], groups * 64, 64,
                       global_sync=sync, watchdog_instructions=WATCHDOG)
    consumers = 4242 + np.arange(groups - 1)
    np.testing.assert_array_equal(out, np.append(consumers, consumers.sum()))
    assert sync.counters[1] == sync.counters[2] == 0


def test_gws_release_all_lets_every_waiting_wave_go(session):
    co, sync = _code(), GlobalSync(gws=True)
    groups = 9
    out, = launch(session, co, "gws_release_all", [np.zeros(groups, np.int32)], groups * 32, 32,
                  global_sync=sync, watchdog_instructions=WATCHDOG)
    np.testing.assert_array_equal(out, np.append(np.arange(groups - 1) - 1, -1))


def test_a_gws_barrier_nobody_completes_is_reported_not_hung(session):
    co, sync = _code(), GlobalSync(gws=True)
    _init(session, co, sync, 7, 0)              # eight waves expected, four come
    with pytest.raises(KernelFault) as caught:
        _rounds(session, co, sync, 4, 32, 1)
    assert "GWS deadlock" in caught.value.report["reason"]
    assert caught.value.report["kernel"] == "gws_grid_rounds"


def test_gws_needs_a_cooperative_queue(session):
    co = _code()
    for sync in (None, GlobalSync(gws=False)):
        with pytest.raises(KernelFault) as caught:
            _init(session, co, sync, 1, 0)
        assert caught.value.status == Status.ERROR_ILLEGAL_INSTRUCTION
        assert "cooperative queue" in caught.value.report["reason"]
        assert caught.value.report["instruction"].startswith("ds_gws_init")


@pytest.fixture(params=["interp", "native"])
def engine(request, monkeypatch):
    """Both tiers: the native tier leaves kernels with GWS to the interpreter, and runs GDS
    instructions as callouts to it."""
    monkeypatch.setenv("SOFTGPU_ENGINE", request.param)
    return request.param


@pytest.mark.parametrize("wave", [32, 64])
def test_append_and_consume_count_active_lanes_in_lds_and_gds(session, engine, wave):
    co, sync = _code(wave=wave), GlobalSync(gws=False)
    groups, size = 6, 256
    waves_per_group = size // wave
    waves = groups * waves_per_group
    (seen, after), stats = launch(session, co, "append_consume",
                                  [np.zeros(2 * waves, np.uint32), np.zeros(groups, np.uint32)],
                                  groups * size, size, global_sync=sync, with_stats=True)
    assert stats.tier == engine                    # ds_append gds: a callout on the native tier
    lds, gds = seen[0::2].reshape(groups, waves_per_group), seen[1::2]
    # LDS: each workgroup's waves took half their lanes each, in some order.
    np.testing.assert_array_equal(np.sort(lds, axis=1),
                                  np.tile(np.arange(waves_per_group) * (wave // 2), (groups, 1)))
    np.testing.assert_array_equal(after, waves_per_group * (wave // 2) - 1)
    # GDS: one counter for the whole grid, each wave took all its lanes.
    np.testing.assert_array_equal(np.sort(gds), np.arange(waves) * wave)
    assert sync.gds.view(np.uint32)[2] == waves * wave
