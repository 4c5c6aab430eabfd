"""Tiered execution (SOFTGPU_ENGINE=auto): which engine tier runs each workgroup of a dispatch.

Holds these invariants:
- a kernel whose translation is ready (made in this process, or loaded from the disk cache
  without waiting on another kernel's compile) runs natively; one the translator cannot take
  runs on the interpreter;
- a kernel's translation is asked of the translator thread (core/isa/native/translator.py)
  only once the kernel has cost the interpreter RENT_FRACTION of what translating it is
  expected to cost (ski rental, rent_due): the seconds its earlier dispatches took, in this
  process and in earlier ones that used the same disk cache (a test suite's many short
  processes pay one rent together), plus the cost model's (CostModel) low prediction for the
  current one (PREDICTION_LOW), or, during a dispatch, the seconds it has run so far (asked
  at each chunk boundary). Below that the dispatch runs on the interpreter alone (why
  "deferred") and nothing is translated: a program of short kernels pays no translation, so
  auto costs what the interpreter alone does;
- once asked, the dispatch waits for the translation only when the cost model expects the
  interpreter to take longer than the wait; else the interpreter runs it, and when the
  translation may be ready before the dispatch ends, the interpreter's run is cut at
  SWITCH_POINTS boundaries where the remaining workgroups go to the translation once it is
  ready (and at every chunk boundary of a dispatch that asked for it midway);
- a workgroup runs on one tier: the interpreter's workgroups precede the native tier's in
  grid order and have all ended before the first native one starts (the interpreter's
  chunks end at a switch), and results are bit-identical whichever tier ran which;
- every dispatch is traced with the tiers that ran it (`tier`: tier, interp_workgroups,
  native_workgroups, why: ready, waited, translating, deferred, untranslatable or forced),
  and a translation finished in the background as `native_compile` with background=True.
"""
import threading
import time

from core import progress, settings, trace
from core.isa.plan import DispatchStats

# The interpreter's cost of a dispatch, fitted to the suite's kernels (-O2, wave32, warm) on
# this 2-core machine from what is known before it runs: the kernel's static instructions,
# issued once per chunk (a step: decode lookup, operand plans, numpy calls) at ~150 us, and
# once per wave at ~1 us more (the numpy work on its lanes). Loops make a dispatch cost more,
# branches not taken less (the fit's median run took 1.3x its estimate, the 10th and 90th
# percentiles 0.6x and 2x); each interpreted dispatch then moves a correction factor a quarter
# of the way (SCALE_WEIGHT) to its own ratio, clamped to SCALE_CLAMP either way (a process's
# first dispatch pays for imports and decoding).
STEP_SECONDS = 150e-6
WAVE_INSTRUCTION_SECONDS = 1e-6
SCALE_WEIGHT = 0.25
SCALE_CLAMP = 8.0
# A dispatch the interpreter runs while its translation is being made is cut into this many
# runs of the interpreter, when the translation may be ready before it ends, so the rest can
# switch: each cut costs a pass of the kernel's instructions over fewer waves.
SWITCH_POINTS = 4
# The share of a kernel's expected translation time (translator.expected_seconds) its
# interpreter runs may cost before its translation is asked for. What a translation costs
# the program is not its time (LLVM runs on another core, at the lowest priority) but the
# IR it builds in Python, which takes the GIL from the interpreter: measured 45-55% of the
# translation of kernels of 2,000-5,000 instructions (-O0), 15-30% of small -O2 ones. Renting
# the interpreter up to about that cost before buying bounds what a translation never used
# again wastes by what the interpreter already spent (ski rental: at most twice the cost of
# the better choice made in hindsight), while a kernel that keeps running gets its native
# code after about one translation's time.
RENT_FRACTION = 0.5
# What of the cost model's prediction a dispatch is taken to cost when it starts: the fit's
# 10th percentile (a kernel's branches not taken made 10% of runs take 0.6x their estimate or
# less), so a prediction asks for a translation only when the dispatch is likely to cost the
# rent; the seconds it then runs are counted at each chunk boundary.
PREDICTION_LOW = 0.6


def rent_due(paid, translation_seconds):
    """Whether a kernel whose interpreter runs cost (or are predicted to cost) `paid` seconds
    should have its translation, expected to take `translation_seconds`, asked for."""
    return paid >= RENT_FRACTION * translation_seconds


class CostModel:
    """Expected seconds of running a dispatch on the interpreter, corrected by measurement."""

    def __init__(self):
        self.scale = 1.0
        self._lock = threading.Lock()

    def interp_seconds(self, plan, instructions, per_chunk, workgroups=None):
        """The interpreter's expected time for `workgroups` (default: all) of `plan` whose
        kernel has `instructions` static instructions, `per_chunk` workgroups a chunk."""
        workgroups = plan.total_workgroups if workgroups is None else workgroups
        chunks = -(-workgroups // max(1, per_chunk))
        waves = workgroups * plan.waves_per_group
        return self.scale * instructions * (chunks * STEP_SECONDS + waves * WAVE_INSTRUCTION_SECONDS)

    def measured(self, predicted, seconds):
        """Correct the model by an interpreter run that took `seconds` against `predicted`."""
        if predicted <= 0 or seconds <= 0:
            return
        with self._lock:
            ratio = min(max(seconds / (predicted / self.scale), 1 / SCALE_CLAMP), SCALE_CLAMP)
            self.scale += SCALE_WEIGHT * (ratio - self.scale)


model = CostModel()


def run_tiered(session, plan):
    """Run a planned dispatch on the tiers the translation's state and the cost model choose:
    its DispatchStats (tier "interp", "native" or "interp+native"), or KernelFault /
    DispatchStopped as core.isa.launch.run_plan."""
    from core.isa.interp.dispatch import Dispatch
    from core.isa.native.dispatch import (Fallback, Pending, Unmade, run_translation,
                                          start_translation, translation_or_unmade)
    from core.isa.native.translator import translator
    session.translations            # made on first use: hsa_shut_down quiesces the translator
    start = time.perf_counter()
    found = translation_or_unmade(session, plan.kernel, plan.desc)
    forced = settings.get("SOFTGPU_TIER_SWITCH_AFTER")
    if isinstance(found, Fallback):
        return _interp_alone(session, plan, "untranslatable")
    if forced is None and not isinstance(found, (Pending, Unmade)):
        return _traced(plan, run_translation(session, plan, found), 0, "ready")
    if isinstance(found, Pending) and found.instructions is None:
        return _interp_alone(session, plan, "translating")      # another thread reads the kernel
    dispatch = Dispatch(session, plan)
    total = plan.total_workgroups
    instructions = (found.instructions if isinstance(found, (Pending, Unmade))
                    else len(found.program.instructions))
    predicted = model.interp_seconds(plan, instructions, dispatch.per_chunk)
    unmade = found if isinstance(found, Unmade) else None
    translation_seconds = translator.expected_seconds(instructions)
    if (unmade is not None and forced is None and unmade.work is None
            and rent_due(unmade.paid + PREDICTION_LOW * predicted, translation_seconds)):
        if not unmade.read():       # the exact size, for the choice and the cost model
            return _interp_alone(session, plan, "untranslatable", dispatch)
        instructions = unmade.instructions
        predicted = model.interp_seconds(plan, instructions, dispatch.per_chunk)
        translation_seconds = translator.expected_seconds(instructions)
    if unmade is not None and (forced is not None
                               or rent_due(unmade.paid + PREDICTION_LOW * predicted, translation_seconds)):
        found, unmade = start_translation(unmade, translator), None
        if isinstance(found, Fallback):
            return _interp_alone(session, plan, "untranslatable", dispatch)
        if forced is None and not isinstance(found, Pending):
            return _traced(plan, run_translation(session, plan, found), 0, "ready")
        instructions = found.instructions if isinstance(found, Pending) else instructions
    asked = []                      # the Pending a deferred dispatch asked for midway
    if forced is not None:
        points, hand_over, why = [forced], (lambda done: done >= forced), "forced"
    elif unmade is not None:
        points, why = [], "deferred"
        run_start = time.perf_counter()

        def hand_over(done):
            if asked:
                return _ready(asked[0])
            paid = unmade.paid + time.perf_counter() - run_start
            if rent_due(paid, translation_seconds) and unmade.read() and rent_due(
                    paid, translator.expected_seconds(unmade.instructions)):
                asked.append(start_translation(unmade, translator))
            return False
    else:
        expected_ready = found.expected_ready or time.monotonic() + translation_seconds
        wait = max(0.0, expected_ready - time.monotonic())
        if predicted > wait:
            native = _translation(found)
            if native is not None:
                return _traced(plan, run_translation(session, plan, native), 0, "waited")
            return _interp_alone(session, plan, "untranslatable", dispatch)
        points = ([total * k // SWITCH_POINTS for k in range(1, SWITCH_POINTS)]
                  if predicted * SWITCH_POINTS > wait else [])
        hand_over, why = (lambda done: _ready(found)), "translating"
    first = _interp_run(dispatch, points, hand_over)
    if unmade is not None:
        unmade.pay(first.seconds)
        instructions = unmade.instructions      # exact if the kernel was read midway
        if asked:
            found, why = asked[0], "translating"
    done = first.workgroups
    native = _translation(found) if done < total else None
    if native is None:
        if done < total:            # handed over to a translation that fell back after all
            first = _interp_run(dispatch)
        return _traced(plan, _measured(plan, instructions, dispatch, first), total, why)
    _measured(plan, instructions, dispatch, first, done)
    rest = run_translation(session, plan, native, first_group=done)
    if not done:
        return _traced(plan, rest, 0, why)
    both = DispatchStats(waves=first.waves + rest.waves, workgroups=first.workgroups + rest.workgroups,
                         wave_instructions=first.wave_instructions + rest.wave_instructions,
                         lane_instructions=first.lane_instructions + rest.lane_instructions,
                         batches=first.batches + rest.batches,
                         seconds=time.perf_counter() - start, tier="interp+native")
    return _traced(plan, both, done, why)


def _ready(found):
    """Whether the rest of a dispatch can switch to `found` now: a Native, or a Pending made
    (and not fallen back)."""
    from core.isa.native.dispatch import Fallback, Pending
    if isinstance(found, Pending):
        return found.ready() and _translation(found) is not None
    return not isinstance(found, Fallback)


def _translation(found):
    """The Native translation `found` (waiting for it if Pending), or None when the kernel runs
    on the interpreter after all (untranslatable, or its translation cancelled at shutdown)."""
    from core.isa.native.dispatch import Fallback, Pending
    from core.isa.native.translator import Cancelled
    if isinstance(found, Pending):
        try:
            found = found.result()
        except Cancelled:
            return None
    return None if isinstance(found, Fallback) else found


def _interp_alone(session, plan, why, dispatch=None):
    from core.isa.interp.dispatch import Dispatch
    dispatch = dispatch or Dispatch(session, plan)
    return _traced(plan, _interp_run(dispatch), plan.total_workgroups, why)


def _interp_run(dispatch, points=(), hand_over=None):
    # Every tier's dispatch counts `workgroups_done` of `total_workgroups` as it goes.
    from core.isa.native.translator import translator
    plan = dispatch.plan
    with progress.shown(plan.name, plan.total_workgroups, lambda: dispatch.workgroups_done), \
            translator.interpreter_running():
        return dispatch.run(points, hand_over)


def _measured(plan, instructions, dispatch, stats, workgroups=None):
    """Correct the cost model by an interpreter run of `workgroups` (default: all)."""
    if stats.workgroups and instructions:
        model.measured(model.interp_seconds(plan, instructions, dispatch.per_chunk, workgroups),
                       stats.seconds)
    return stats


def _traced(plan, stats, interp_workgroups, why):
    trace.event("tier", kernel=plan.name, tier=stats.tier, interp_workgroups=interp_workgroups,
                native_workgroups=plan.total_workgroups - interp_workgroups if stats.tier != "interp" else 0,
                why=why)
    return stats
