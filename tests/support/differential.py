"""Running one kernel-suite variant on both engine tiers, for the differential test.

Holds these invariants:
- each tier runs on its own copy of the code object with inputs from the case's seeded
  generator, so program globals and buffers start identical and neither run sees the other's
  writes;
- a tier is chosen the way users choose it, through SOFTGPU_ENGINE around run_dispatch
  (core.harness.launch.engine).
"""
import numpy as np

from core.harness.launch import engine, fresh_kernel, launch  # noqa: F401  (engine: the tests' name)
from core.isa.report import mnemonics_in


def run_on(session, case, path, wave, tier):
    """(outputs, DispatchStats, why the native tier could not take the kernel or None) of one
    run of the case on `tier`; outputs are every global buffer the kernel was given."""
    from core.isa.layout import layout
    from core.isa.native.dispatch import Fallback, native_for
    kernel, executable = fresh_kernel(session, path, case.kernel)
    try:
        args, _ = case.inputs(wave)
        with engine(tier):
            outputs, stats = launch(session, path, case.kernel, args, case.grid, case.workgroup,
                                    group_segment_size=case.group_segment,
                                    global_offset=case.global_offset, with_stats=True,
                                    kernel=kernel)
        fallback = None
        if tier == "native":
            translation = native_for(session, kernel, layout(kernel))
            if isinstance(translation, Fallback):
                fallback = translation.error
        return outputs, stats, fallback
    finally:
        session.loader.destroy_executable(executable)


def order_dependent(case, wave):
    """Whether the case's results depend on the order atomics happen in across waves (its
    check names an order, not values): then no two runs need agree byte for byte."""
    _, expected = case.inputs(wave)
    return any(isinstance(key, tuple) for key in expected)


def assert_same_run(path, target, native, native_stats, oracle, oracle_stats):
    """The native run gave back every buffer of the interpreter's bit for bit, with the same
    wave and workgroup counts, and instruction counts unless the code has a compare-and-swap
    (whose retry loops run as often as waves happen to collide)."""
    for index, (got, want) in enumerate(zip(native, oracle)):
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), \
            f"buffer {index} differs from the interpreter's"
    counts = ("waves", "workgroups")
    if not any("cmpswap" in m or "cmpst" in m for m in mnemonics_in(path, target)):
        counts += ("wave_instructions", "lane_instructions")
    assert [getattr(native_stats, c) for c in counts] == [getattr(oracle_stats, c) for c in counts]
