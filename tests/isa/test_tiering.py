"""Tiered execution (SOFTGPU_ENGINE=auto): a kernel starts on the interpreter while its
translation is made in the background, and whichever tier runs which workgroup, every buffer
comes back bit for bit as the interpreter alone leaves it."""
import os
import subprocess
import sys

import numpy as np
import pytest

from core import trace
from tests.kernels.suite import CASES
from tests.support.differential import engine, run_on
from tests.support.launch import fresh_kernel, launch

CASE = next(c for c in CASES if c.name == "int_arith")      # 4 workgroups of 64 work-items
WORKGROUPS = 4


@pytest.fixture
def cold_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))


def _tier_events(kernel_name, since):
    return [e for e in trace.recent() if e["t"] > since and e["event"] in ("tier", "native_compile")
            and e["kernel"] == kernel_name]


@pytest.mark.parametrize("after", [0, 1, WORKGROUPS - 1, WORKGROUPS])
def test_switch_after_n_workgroups_matches_interpreter(session, cold_cache, monkeypatch, after):
    path = CASE.compile("-O2", 32)
    oracle, oracle_stats, _ = run_on(session, CASE, path, 32, "interp")
    monkeypatch.setenv("SOFTGPU_TIER_SWITCH_AFTER", str(after))
    tiered, stats, _ = run_on(session, CASE, path, 32, "auto")
    for want, got in zip(oracle, tiered):
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(want).view(np.uint8))
    assert (stats.workgroups, stats.waves) == (oracle_stats.workgroups, oracle_stats.waves)
    expected = {0: "native", WORKGROUPS: "interp"}.get(after, "interp+native")
    assert stats.tier == expected


def test_short_cold_dispatch_does_not_wait_and_next_runs_native(session, cold_cache):
    path = CASE.compile("-O1", 32)
    kernel, executable = fresh_kernel(session, path, CASE.kernel)
    since = trace.recent(1)[-1]["t"] if trace.recent(1) else 0
    try:
        args, _ = CASE.inputs(32)
        with engine("auto"):
            _, first = launch(session, path, CASE.kernel, args, CASE.grid, CASE.workgroup,
                              with_stats=True, kernel=kernel)
            from core.isa.layout import layout
            from core.isa.native.dispatch import Pending, _claim
            found, _ = _claim(kernel, layout(kernel))
            if isinstance(found, Pending):
                found.result(timeout=120)
            _, second = launch(session, path, CASE.kernel, args, CASE.grid, CASE.workgroup,
                               with_stats=True, kernel=kernel)
    finally:
        session.loader.destroy_executable(executable)
    assert first.tier == "interp"
    assert second.tier == "native"
    events = _tier_events(CASE.kernel, since)
    kinds = [(e["event"], e.get("tier"), e.get("why"), e.get("background")) for e in events]
    assert kinds[0] == ("tier", "interp", "translating", None)
    assert ("native_compile", None, None, True) in kinds
    assert kinds[-1] == ("tier", "native", "ready", None)


SHUTDOWN = r"""
import ctypes, os, sys, time
sys.path.insert(0, os.getcwd())
from tests.support.paths import LIBRARY
from tests.kernels.suite import CASES
from tests.support.launch import launch
import core.runtime as runtime
case = next(c for c in CASES if c.name == sys.argv[1])
path = case.compile("-O0", 32)
lib = ctypes.CDLL(LIBRARY)
assert lib.hsa_init() == 0
args, _ = case.inputs(32)
_, stats = launch(runtime.require(), path, case.kernel, args, case.grid, case.workgroup, with_stats=True)
from core.isa.native.translator import translator
assert translator._busy or translator._queue, "no translation in flight"
if sys.argv[2] == "shutdown":
    assert lib.hsa_shut_down() == 0
    assert not translator._busy
print("ok", stats.tier, flush=True)
"""


@pytest.mark.parametrize("how", ["shutdown", "exit"])
def test_translation_in_flight_at_shutdown_or_exit_is_clean(tmp_path, how):
    env = dict(os.environ, SOFTGPU_ENGINE="auto", XDG_CACHE_HOME=str(tmp_path))
    env.pop("SOFTGPU_TIER_SWITCH_AFTER", None)
    big = "private_sort"        # ~3,000 instructions at -O2: its translation takes seconds
    proc = subprocess.run([sys.executable, "-c", SHUTDOWN, big, how], env=env, cwd=os.getcwd(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok interp"
