"""Running one kernel-suite variant on both engine tiers, for the differential test.

Holds these invariants:
- each tier runs on its own copy of the code object with inputs from the case's seeded
  generator, so program globals and buffers start identical and neither run sees the other's
  writes;
- a tier is chosen the way users choose it, through SOFTGPU_ENGINE around run_dispatch
  (core.harness.launch.engine).
"""
from core.harness.launch import engine, fresh_kernel, launch  # noqa: F401  (engine: the tests' name)


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
