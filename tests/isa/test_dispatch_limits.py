"""A dispatch's limits on both engine tiers: no instruction limit (a kernel runs until it ends),
an opt-in time limit (SOFTGPU_TIME_LIMIT) that stops a spinning kernel with a fault report,
a notice naming where the waves of a long dispatch stand, and grids at the edges of what an
agent takes (2^32 - 1 work-items run; one past GRID_MAX_SIZE is refused, never wrapped)."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from core.isa.plan import time_limit_setting
from core.settings import InvalidSetting
from softgpu_shim.hsa_abi import Status
from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import launch

TIERS = ["interp", "native"]
OLD_LIMIT = 1 << 26             # the per-wave instruction limit SoftGPU used to impose

LONG_LOOP = """
kernel void long_loop(global uint *out, uint n) {
  uint x = out[0];
  for (uint i = 0; i < n; i++) x = x * 1664525u + 1013904223u;
  out[0] = x;
}
"""

SPIN = """
kernel void spin(global volatile int *flag) {
  while (flag[0] == 0) { }
}
"""

TRAP_AT_5 = """
kernel void trap_at_5(global int *out) {
  if (get_global_id(0) == 5 && get_global_id(1) == 0) __builtin_trap();
}
"""


def lcg(x, n):
    """x after n steps of x = x * 1664525 + 1013904223 (mod 2^32), by squaring the step."""
    a, c = 1664525, 1013904223
    while n:
        if n & 1:
            x = (a * x + c) & 0xFFFFFFFF
        a, c = (a * a) & 0xFFFFFFFF, (a * c + c) & 0xFFFFFFFF
        n >>= 1
    return x


def test_a_wave_runs_past_the_old_instruction_limit_on_the_native_tier(session):
    co = compile_opencl(LONG_LOOP, opt="-O2")
    n = 1 << 24                 # four instructions or more an iteration: past 2^26 in one wave
    with engine("native"):
        (out,), stats = launch(session, co, "long_loop", [np.array([7], np.uint32), np.uint32(n)],
                               1, 1, with_stats=True)
    assert stats.tier == "native"
    assert stats.wave_instructions > OLD_LIMIT
    assert int(out[0]) == lcg(7, n)


def test_the_interpreter_sets_no_instruction_limit_of_its_own(session):
    # The interpreter (tens of microseconds a step) cannot reach 2^26 in a test; it runs this
    # loop whole, and its plan carries no limit the caller did not give.
    from core.isa.interp import dispatch as interp_dispatch
    co = compile_opencl(LONG_LOOP, opt="-O2")
    seen = []
    original = interp_dispatch.Dispatch.__init__

    def spy(self, session_, plan):
        original(self, session_, plan)
        seen.append(self.plan)
    n = 1 << 12
    with engine("interp"), pytest.MonkeyPatch.context() as mp:
        mp.setattr(interp_dispatch.Dispatch, "__init__", spy)
        (out,), stats = launch(session, co, "long_loop", [np.array([7], np.uint32), np.uint32(n)],
                               1, 1, with_stats=True)
    assert int(out[0]) == lcg(7, n) and stats.wave_instructions > 4 * n
    # The interpreter runs under its plan's limit (it keeps none of its own): none was given.
    assert [plan.instruction_limit for plan in seen] == [None]
    assert [plan.time_limit for plan in seen] == [None]


@pytest.mark.parametrize("tier", TIERS)
def test_the_time_limit_stops_a_spinning_kernel_with_a_report(session, tier, monkeypatch, capfd,
                                                               tmp_path):
    import json
    co = compile_opencl(SPIN, opt="-O2")
    trace_path = tmp_path / "trace.jsonl"
    monkeypatch.setenv("SOFTGPU_TRACE", str(trace_path))
    monkeypatch.setenv("SOFTGPU_TIME_LIMIT", "0.2")
    monkeypatch.delenv("SOFTGPU_QUIET", raising=False)
    from tests.support import launch as testlaunch
    original = testlaunch.run_dispatch
    # notice_seconds=0: the first look at the clock reports where the waves stand.
    monkeypatch.setattr(testlaunch, "run_dispatch",
                        lambda *a, **kw: original(*a, notice_seconds=0.0, **kw))
    with engine(tier), pytest.raises(KernelFault) as caught:
        launch(session, co, "spin", [np.zeros(1, np.int32)], 64, 32)
    fault = caught.value
    assert fault.status == Status.ERROR_EXCEPTION
    assert fault.report["reason"] == ("time limit: the dispatch ran longer than "
                                      "SOFTGPU_TIME_LIMIT=0.2 s")
    assert fault.report["kernel"] == "spin" and fault.report["pc"] is not None
    assert fault.report["workgroup"][0] in (0, 1)
    err = capfd.readouterr().err
    assert "softgpu: spin has run" in err and "its waves stand at" in err
    assert "at 0x" in err                           # the PCs, not "no PC"
    events = [json.loads(line) for line in trace_path.read_text().splitlines()]
    notices = [e for e in events if e["event"] == "long_dispatch"]
    assert notices and notices[0]["kernel"] == "spin"
    waves = sum(notices[0]["pcs"].values())
    assert 1 <= waves <= 2                          # the grid's two waves, or the one thread's


@pytest.mark.parametrize("tier", TIERS)
def test_a_kernel_that_ends_within_the_time_limit_completes(session, tier, monkeypatch):
    co = compile_opencl(LONG_LOOP, opt="-O2")
    monkeypatch.setenv("SOFTGPU_TIME_LIMIT", "3600")
    with engine(tier):
        (out,) = launch(session, co, "long_loop", [np.array([1], np.uint32), np.uint32(100)], 1, 1)
    assert int(out[0]) == lcg(1, 100)


def test_a_native_entry_time_limit_fault_names_the_limit_it_ran_under(session, monkeypatch):
    # A packet the queue's C loop runs through a kernel's native entry runs under the time
    # limit of the dispatch that bound it; its fault says that limit, whatever the variable
    # says by the time the fault is reported.
    from core.isa.native.dispatch import entry_fault
    from core.isa.native import runner_layout
    from core.native import ffi
    from tests.support.launch import loaded_kernel
    co = compile_opencl(LONG_LOOP, opt="-O2")
    monkeypatch.setenv("SOFTGPU_TIME_LIMIT", "0.2")
    with engine("native"):
        (out,), stats = launch(session, co, "long_loop", [np.array([1], np.uint32), np.uint32(100)],
                               1, 1, with_stats=True)
    assert stats.tier == "native" and int(out[0]) == lcg(1, 100)
    monkeypatch.setenv("SOFTGPU_TIME_LIMIT", "5")
    fault = ffi.new("sg_fault *")
    fault.native_code = runner_layout.SG_FAULT_TIME_LIMIT
    fault.lane = 0xFFFFFFFF
    reported = entry_fault(session, loaded_kernel(session, co, "long_loop"), fault)
    assert reported.status == Status.ERROR_EXCEPTION
    assert reported.report["reason"] == ("time limit: the dispatch ran longer than "
                                         "SOFTGPU_TIME_LIMIT=0.2 s")


@pytest.mark.parametrize("text, seconds", [("", None), ("0.001", 0.001), (" 2 ", 2.0),
                                           ("1e3", 1000.0)])
def test_time_limit_values_taken(text, seconds):
    assert time_limit_setting({"SOFTGPU_TIME_LIMIT": text}) == seconds
    assert time_limit_setting({}) is None


@pytest.mark.parametrize("text", ["0", "-1", "-0.001", "abc", "nan", "inf", "1s"])
def test_time_limit_values_refused(text):
    with pytest.raises(InvalidSetting):
        time_limit_setting({"SOFTGPU_TIME_LIMIT": text})


# ---- grid edges -------------------------------------------------------------------------
@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("grid", [(0xFFFFFFFF, 1, 1), (65535, 65537, 1)])
def test_a_grid_of_2_32_minus_1_items_runs(session, tier, grid):
    """At GRID_MAX_SIZE exactly, in 64-item workgroups (the x count ceil((2^32 - 1) / 64) wrapped
    to 0 in 32 bits): the dispatch runs, its first workgroup's trap proves it."""
    co = compile_opencl(TRAP_AT_5, opt="-O2")
    with engine(tier), pytest.raises(KernelFault) as caught:
        launch(session, co, "trap_at_5", [np.zeros(1, np.int32)], grid, (64, 1, 1))
    assert caught.value.status == Status.ERROR_EXCEPTION
    assert caught.value.report["workgroup"] == (0, 0, 0)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("grid, workgroup", [
    ((65536, 65536, 1), (64, 1, 1)),                # 2^32 work-items: one past GRID_MAX_SIZE
    ((0xFFFFFFFF,) * 3, (1, 1, 1)),                 # a product past 2^64
    ((1025, 1, 1), (1025, 1, 1)),                   # one past WORKGROUP_MAX_SIZE
    ((0xFFFF, 1, 1), (0xFFFF, 1, 1)),               # the AQL field's largest
    ((1, 1025, 1), (1, 1025, 1)),                   # one past WORKGROUP_MAX_DIM y
])
def test_sizes_past_the_agents_limits_are_refused(session, tier, grid, workgroup):
    co = compile_opencl(TRAP_AT_5, opt="-O2")
    with engine(tier), pytest.raises(KernelFault) as caught:
        launch(session, co, "trap_at_5", [np.zeros(1, np.int32)], grid, workgroup)
    assert caught.value.status == Status.ERROR_INVALID_ARGUMENT
    assert "exceeds the agent's" in caught.value.report["reason"]


@pytest.mark.parametrize("tier", TIERS)
def test_a_workgroup_at_the_agents_limit_runs(session, tier):
    co = compile_opencl(TRAP_AT_5, opt="-O2")
    with engine(tier), pytest.raises(KernelFault) as caught:
        launch(session, co, "trap_at_5", [np.zeros(1, np.int32)], 1024, 1024)
    assert caught.value.status == Status.ERROR_EXCEPTION
