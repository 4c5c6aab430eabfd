"""The native tier against the interpreter (the oracle): every variant of the kernel suite
(gfx1030, gfx1100 and gfx90a builds, -O0/-O2, wave32/wave64, code object v4/v5) runs on both, and every global buffer the kernel
was given must come back bit for bit identical, with the same DispatchStats counts (waves and
workgroups always; instructions unless the code has a compare-and-swap, whose retry loops
run as often as waves happen to collide).

Kernels whose results depend on the order atomics happen in across waves (their case checks
an order, not values) are held to the case's own order check on the native tier instead of
to the interpreter's bytes. A variant the native tier cannot translate runs on the
interpreter: that is allowed only for the builds tests/isa/native_fallbacks.txt declares, with
the reason (reported as skipped); any other fallback fails, and so does a declared build that
now translates, so the list stays exactly what falls back.
"""
import os

import pytest

from core.isa.disasm import format_instruction
from tests.isa.test_kernel_suite import VARIANTS
from tests.support.differential import assert_same_run, order_dependent, run_on
from tests.support.suite_run import output_buffers


FALLBACKS_FILE = os.path.join(os.path.dirname(__file__), "native_fallbacks.txt")


def _declared_fallbacks():
    """{variant id: why it runs on the interpreter} from native_fallbacks.txt."""
    declared = {}
    with open(FALLBACKS_FILE) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                variant, _, why = line.partition(" ")
                declared[variant] = why.strip()
    return declared


DECLARED = _declared_fallbacks()


def _sample(variants):
    """One variant of every case on every target, alternating -O0 at the case's smallest wave
    size and -O2 at its largest along the suite (every kernel; both optimisation levels and
    wave sizes): all 1,432 variants (798 gfx1030, 406 gfx1100, 228 gfx90a) take more than
    ten minutes from an empty translation cache here, too much of CI's budget.
    SOFTGPU_DIFFERENTIAL=all runs every variant."""
    if os.environ.get("SOFTGPU_DIFFERENTIAL") == "all":
        return variants
    by_case = {}
    for v in variants:
        by_case.setdefault((v.values[4], v.values[0].name), []).append(v)
    chosen = []
    for index, found in enumerate(by_case.values()):
        waves = sorted({v.values[2] for v in found})
        wanted = ("-O2", waves[-1]) if index % 2 else ("-O0", waves[0])
        chosen.append(next((v for v in found if v.values[1:3] == wanted), found[0]))
    return chosen


@pytest.mark.parametrize("case,opt,wave,code_object,target", _sample(VARIANTS))
def test_native_matches_interpreter(request, session, case, opt, wave, code_object, target):
    variant = request.node.callspec.id
    path = case.compile(opt, wave, code_object, target)
    native, native_stats, fallback = run_on(session, case, path, wave, "native")
    if fallback is not None:
        inst = fallback.instruction
        why = fallback.reason + (f" ({format_instruction(inst)})" if inst is not None else "")
        assert variant in DECLARED, (f"{variant} now falls back to the interpreter: {why}; translate it, "
                                     f"or declare it in {os.path.basename(FALLBACKS_FILE)} with the reason")
        pytest.skip(f"runs on the interpreter (declared: {DECLARED[variant]}): {why}")
    assert variant not in DECLARED, \
        f"{variant} is translated now: remove it from {os.path.basename(FALLBACKS_FILE)}"
    if order_dependent(case, wave):
        _, expected = case.inputs(wave)
        case.check(expected, output_buffers(path, case, native))
        return
    oracle, oracle_stats, _ = run_on(session, case, path, wave, "interp")
    assert_same_run(path, target, native, native_stats, oracle, oracle_stats)
