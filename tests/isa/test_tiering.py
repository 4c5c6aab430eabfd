"""Tiered execution (SOFTGPU_ENGINE=auto): a kernel starts on the interpreter while its
translation is made in the background, and whichever tier runs which workgroup, every buffer
comes back bit for bit as the interpreter alone leaves it."""
import math
import os
import struct
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


class Costs:
    """Injected costs of the tiering policy (core/isa/tiering.py), so its choices do not
    depend on this machine's speed: the cost model predicts `predicted` seconds for every
    interpreter run, a translation is expected to take `translation` seconds, and (when
    `measured` is given) every interpreter run is taken to have cost that many seconds.
    Translations this process loaded before are forgotten (a kernel translated by an
    earlier test would be found at once): each test starts with an empty cache."""

    def __init__(self, monkeypatch, predicted, translation, measured=None):
        from core.isa import tiering
        from core.isa.interp.dispatch import Dispatch
        from core.isa.native import compiler
        from core.isa.native.translator import translator
        monkeypatch.setattr(compiler, "_loaded", {})
        self.predicted, self.translation, self.run_seconds = predicted, translation, measured
        monkeypatch.setattr(tiering, "model", self)
        monkeypatch.setattr(translator, "expected_seconds", lambda instructions: self.translation)
        if measured is not None:
            run = Dispatch.run

            def measured_run(dispatch, *args, **kwargs):
                stats = run(dispatch, *args, **kwargs)
                stats.seconds = self.run_seconds
                return stats
            monkeypatch.setattr(Dispatch, "run", measured_run)

    def interp_seconds(self, plan, instructions, per_chunk, workgroups=None):
        return self.predicted

    def measured(self, predicted, seconds):
        pass


def _dispatches(session, path, times, between=None):
    """Launch CASE `times` times on one fresh copy of its code object under
    SOFTGPU_ENGINE=auto (calling between(kernel) after each): the DispatchStats, and the
    `tier` and `native_compile` events traced meanwhile as (event, tier or cached, why or
    background)."""
    from core.isa.layout import layout
    kernel, executable = fresh_kernel(session, path, CASE.kernel)
    since = trace.recent(1)[-1]["t"] if trace.recent(1) else 0
    stats = []
    try:
        args, _ = CASE.inputs(32)
        with engine("auto"):
            for _ in range(times):
                _, one = launch(session, path, CASE.kernel, args, CASE.grid, CASE.workgroup,
                                with_stats=True, kernel=kernel)
                stats.append(one)
                if between is not None:
                    between(kernel, layout(kernel))
    finally:
        session.loader.destroy_executable(executable)
    events = [(e["event"], e["tier"], e["why"]) if e["event"] == "tier"
              else (e["event"], e["cached"], e.get("background", False))
              for e in _tier_events(CASE.kernel, since)]
    return stats, events


def _made(kernel, desc):
    """Wait for the kernel's translation if it is being made."""
    from core.isa.native.dispatch import Pending, translation_state
    found = translation_state(kernel, desc)
    if isinstance(found, Pending):
        found.result(timeout=120)


def test_short_cold_dispatch_translates_nothing(session, cold_cache, monkeypatch):
    from core.isa.native.dispatch import Unmade, translation_state
    Costs(monkeypatch, predicted=0.01, translation=100.0)
    unread = []
    stats, events = _dispatches(session, CASE.compile("-O1", 32), 2, between=lambda kernel, desc: unread.append(
        isinstance(translation_state(kernel, desc), Unmade) and translation_state(kernel, desc).work is None))
    assert [s.tier for s in stats] == ["interp", "interp"]
    assert events == [("tier", "interp", "deferred")] * 2      # no native_compile
    assert unread == [True, True]       # nor its code decoded for a cache key (no hint of it)


def test_dispatch_predicted_at_the_threshold_starts_the_translation(session, cold_cache, monkeypatch):
    from core.isa import tiering
    # PREDICTION_LOW * predicted == RENT_FRACTION * translation: due (x2 and /2 are exact)
    Costs(monkeypatch, predicted=1.0, translation=tiering.PREDICTION_LOW / tiering.RENT_FRACTION)
    stats, events = _dispatches(session, CASE.compile("-O1", 32), 2, between=_made)
    assert events[0] == ("tier", "interp", "translating")
    assert ("native_compile", False, True) in events
    assert events[-1] == ("tier", "native", "ready") and stats[-1].tier == "native"


def test_dispatch_predicted_just_below_the_threshold_translates_nothing(session, cold_cache, monkeypatch):
    from core.isa import tiering
    Costs(monkeypatch, predicted=1.0,
          translation=math.nextafter(tiering.PREDICTION_LOW, 2.0) / tiering.RENT_FRACTION)
    _, events = _dispatches(session, CASE.compile("-O1", 32), 1, between=_made)
    assert events == [("tier", "interp", "deferred")]


def test_accumulated_interpreter_time_starts_the_translation(session, cold_cache, monkeypatch):
    """Runs of 1 s each against a rent of 2 s: the third dispatch (2 s paid) asks for the
    translation, the fourth runs it."""
    from core.isa import tiering
    Costs(monkeypatch, predicted=0.0, translation=2.0 / tiering.RENT_FRACTION, measured=1.0)
    stats, events = _dispatches(session, CASE.compile("-O1", 32), 4, between=_made)
    tiers = [e for e in events if e[0] == "tier"]
    assert tiers == [("tier", "interp", "deferred"), ("tier", "interp", "deferred"),
                     ("tier", "interp", "translating"), ("tier", "native", "ready")]
    assert events.index(("native_compile", False, True)) == 3   # after the third dispatch
    assert stats[-1].tier == "native"


def test_rent_paid_by_earlier_processes_counts(session, cold_cache, monkeypatch):
    """Each fresh copy of the code object stands for a process of its own (nothing of the
    kernel is held in memory): runs of 1 s against a rent of 2 s. After one earlier run the
    next copy's first dispatch is deferred; after two (the rent, paid on disk) it asks for
    the translation."""
    from core.isa import tiering
    Costs(monkeypatch, predicted=0.0, translation=2.0 / tiering.RENT_FRACTION, measured=1.0)
    path = CASE.compile("-O1", 32)
    _, first = _dispatches(session, path, 1)
    _, second = _dispatches(session, path, 1)
    _, third = _dispatches(session, path, 1, between=_made)
    assert first == second == [("tier", "interp", "deferred")]
    assert third[0] == ("tier", "interp", "translating")


def test_a_damaged_rent_file_counts_as_nothing(session, cold_cache, tmp_path, monkeypatch):
    from core.isa import tiering
    from core.isa.native import dispatch
    Costs(monkeypatch, predicted=0.0, translation=2.0 / tiering.RENT_FRACTION, measured=1.0)
    path = CASE.compile("-O1", 32)
    _dispatches(session, path, 1)
    (rent,) = (tmp_path / "softgpu").glob("*.rent")
    assert dispatch.rent_paid(rent.name.split(".")[0]) == 1.0
    # NaN, a negative run, one past the limit and a torn record: none counts.
    rent.write_bytes(struct.pack("<4d", math.nan, -5.0, math.nextafter(dispatch.RENT_RUN_MAX_SECONDS, math.inf),
                                 dispatch.RENT_RUN_MAX_SECONDS) + b"\x01\x02\x03")
    assert dispatch.rent_paid(rent.name.split(".")[0]) == dispatch.RENT_RUN_MAX_SECONDS
    # Counted, a huge record would make the rent due at once.
    rent.write_bytes(struct.pack("<2d", math.nan, 1e300))
    _, events = _dispatches(session, path, 1)
    assert events == [("tier", "interp", "deferred")]


def test_dispatch_running_past_the_rent_asks_for_the_translation_midway(session, cold_cache, monkeypatch):
    """A dispatch predicted to cost nothing whose run passes the rent (a loop the model does
    not see) asks for its translation at the next chunk boundary; the next dispatch runs it."""
    Costs(monkeypatch, predicted=0.0, translation=1e-9)
    stats, events = _dispatches(session, CASE.compile("-O1", 32), 2, between=_made)
    assert events[0][2] == "translating" and events[0][1] in ("interp", "interp+native")
    assert ("native_compile", False, True) in events
    assert events[-1] == ("tier", "native", "ready")


def test_cached_translation_runs_at_once(session, cold_cache, monkeypatch):
    Costs(monkeypatch, predicted=0.01, translation=100.0)
    path = CASE.compile("-O1", 32)
    from core.isa.native import compiler
    run_on(session, CASE, path, 32, "native")           # translated, in the disk cache
    compiler._loaded.clear()                            # as in a process started since
    stats, events = _dispatches(session, path, 1)
    assert stats[0].tier == "native"
    assert events == [("native_compile", True, False), ("tier", "native", "ready")]


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
from core.isa import tiering
tiering.RENT_FRACTION = 0.0     # its translation is asked for at its first dispatch
_, stats = launch(runtime.require(), path, case.kernel, args, case.grid, case.workgroup, with_stats=True)
from core.isa.native import dispatch
from core.isa.native.translator import Cancelled, translator
assert translator._busy or translator._queue, "no translation in flight"
pending = next(p for c in dispatch._BY_CODE_OBJECT.values() for p in c.values()
               if isinstance(p, dispatch.Pending))
if sys.argv[2] == "shutdown":
    assert lib.hsa_shut_down() == 0
    assert not translator._busy
    try:
        pending.result(timeout=0)
        outcome = "made"
    except Cancelled:
        outcome = "cancelled"
    print("ok", stats.tier, outcome, flush=True)
else:
    print("ok", stats.tier, "exiting", flush=True)
"""


@pytest.mark.parametrize("how", ["shutdown", "exit"])
def test_translation_in_flight_at_shutdown_or_exit_is_clean(tmp_path, how):
    env = dict(os.environ, SOFTGPU_ENGINE="auto", XDG_CACHE_HOME=str(tmp_path))
    env.pop("SOFTGPU_TIER_SWITCH_AFTER", None)
    big = "private_sort"        # ~3,000 instructions at -O2: its translation takes seconds
    proc = subprocess.run([sys.executable, "-c", SHUTDOWN, big, how], env=env, cwd=os.getcwd(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # Its rent was paid, so shutting down or exiting finishes it and leaves it in the disk
    # cache for the next process.
    assert proc.stdout.strip() == {"shutdown": "ok interp made", "exit": "ok interp exiting"}[how]
    assert list((tmp_path / "softgpu").glob("*.so"))


def test_hint_without_its_translation_is_only_a_hint(session, cold_cache, tmp_path, monkeypatch):
    """The cache's entry removed but its hint left: the kernel is read, found missing, and
    runs on the interpreter as any other short cold dispatch."""
    Costs(monkeypatch, predicted=0.01, translation=100.0)
    from core.isa.native import compiler
    path = CASE.compile("-O1", 32)
    run_on(session, CASE, path, 32, "native")
    compiler._loaded.clear()
    cache = tmp_path / "softgpu"
    assert [p.name for p in cache.glob("*.hint")]
    for entry in cache.glob("*.so"):
        entry.unlink()
    stats, events = _dispatches(session, path, 1)
    assert stats[0].tier == "interp"
    assert events == [("tier", "interp", "deferred")]
