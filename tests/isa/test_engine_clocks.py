"""What kernels read from the GPU's counters: s_memtime counts shader cycles at the agent's
engine clock (HIP's clockRate), s_memrealtime the 100 MHz reference clock (the GPU agent's
HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY), so clock64() and wall_clock64() deltas converted
with the rates the runtime reports agree. On the interpreter the host clock is frozen so the
values are exact; translated code reads CLOCK_MONOTONIC itself, so there they are bracketed."""
import time

import numpy as np

from core.isa import clocks
from tests.support.kernels import compile_opencl
from tests.support.launch import launch

COUNTERS = """
kernel void counters(global ulong *out) {
  out[0] = __builtin_amdgcn_s_memtime();
  out[1] = __builtin_amdgcn_s_memrealtime();
}
"""


def test_counters_tick_at_the_engine_clock_and_the_reference_clock(session, monkeypatch):
    monkeypatch.setenv("SOFTGPU_ENGINE", "interp")
    now_ns = 1_234_567_890_123
    monkeypatch.setattr(clocks.time, "monotonic_ns", lambda: now_ns)
    out, = launch(session, compile_opencl(COUNTERS), "counters", [np.zeros(2, np.uint64)], 1, 1)
    engine_mhz = session.profile.gpu["max_clock_mhz"]
    assert engine_mhz == 2575
    assert int(out[0]) == now_ns * engine_mhz // 1000            # cycles at 2575 MHz
    assert int(out[1]) == now_ns // 10                            # ticks at 100 MHz
    assert clocks.REFERENCE_CLOCK_HZ == 100_000_000


def test_translated_counters_read_the_same_clocks_at_the_same_rates(session, monkeypatch):
    monkeypatch.setenv("SOFTGPU_ENGINE", "native")
    before = time.monotonic_ns()
    out, = launch(session, compile_opencl(COUNTERS), "counters", [np.zeros(2, np.uint64)], 1, 1)
    after = time.monotonic_ns()
    engine_mhz = session.profile.gpu["max_clock_mhz"]
    assert before * engine_mhz // 1000 <= int(out[0]) <= after * engine_mhz // 1000
    assert before // 10 <= int(out[1]) <= after // 10
