"""gfx942 (the MI300X, CDNA3) and gfx950 (the MI355X, CDNA4) as the ROCm 6.4 root's clang-21
builds for them: the decoder reads every build of the kernel sources as llvm-objdump-21 does
(scratch with a VGPR offset beside the SGPR base, the cache-policy bits sc0/sc1/nt), and every
CDNA case of the kernel suite runs on that target's board in the ISA tests' machine on both
engine tiers (-O0 builds natively where their frames are big: BIG_FRAMES_O0) with its numpy
results (as clang-21 and ROCm 6.4's device libraries compute them: CLANG21_REFERENCES). Without
the root these skip on a developer's machine and fail in CI (tests/support/rocm64)."""
import glob
import os
from dataclasses import replace

import pytest

from tests.isa.test_decoder_kernels import OWN_KERNELS
from tests.kernels.suite import CASES
from tests.support import rocm64
from tests.support.clang21 import build, isa_report_gaps, misread, run_case_on_both_tiers, source_path
from tests.support.kernels import KERNELS

# The CDNA targets clang-21 builds for, past gfx90a (tests/isa/test_decoder_kernels.py's).
TARGETS = ("gfx942", "gfx950")

# Sources clang-21 refuses for gfx940+, or builds into words they lack, and why.
NOT_FOR_GFX94X = {
    "buffer_bounds.cl": "at -O0 its \"s\" asm operands are not in SGPRs; its asm spells glc, "
                        "which gfx940+ calls sc0",
    "callout_atomics.cl": "gfx942 has no image instructions",
    "global_sync.cl": "gfx940+ has no GDS",
    "image_asm.cl": "inline image asm in gfx10 syntax",
    "images.cl": "gfx942 has no image instructions (clang-21 still emits MIMG words, which "
                 "llvm-objdump-21 prints as .long)",
    "loader_extern.cl": "clang-21's link refuses the externals it leaves to the loader",
    "matrix_gfx1100.hip": "WMMA is gfx11 only",
}
# gfx90a cases of what gfx940+ lacks, and why.
NOT_ON_GFX94X = {"mfma_i32_16x16x16i8": "gfx940 dropped the i8 16x16x16 MFMA (gfx942 has 16x16x32)"}
# gfx942 cases gfx950 runs otherwise (their "_fnuz" references hold gfx942's 8-bit float
# bytes; gfx950's "_ocp" cases hold OCP's).
NOT_ON_GFX950 = {c.name: "gfx950's fp8/bf8 are OCP's formats, not FNUZ" for c in CASES
                 if c.name.endswith("_fnuz")}

# The -O0 builds the native tier runs: those whose translated frame outgrows an 8 MiB thread
# stack (fast codegen gives every spill its own slot), which killed the process until frames
# were measured and run on threads that hold them (tests/isa/test_native_stack.py). The other
# -O0 builds run on the interpreter, and natively at -O2: an -O0 translation costs 10-60 s.
BIG_FRAMES_O0 = {
    "atomic64", "cross_lane_builtins", "double_convert", "double_transcendental", "float_native",
    "long_math", "mad_family", "mfma_f32_32x32x8f16", "mfma_f64_16x16x4f64",
    "mfma_i32_16x16x32i8", "ndrange_1d", "ndrange_1d_offset", "ndrange_2d", "ndrange_3d",
    "noinline_calls", "noinline_calls_flat_scratch", "round_down", "round_toward_zero",
    "round_up", "rounding_signs", "saturating_conversions", "upper_lanes"}

# Builds whose kernels the native tier leaves to the interpreter, and the instruction why.
# Strict: a build that translates fails until its entry is removed.
NOT_TRANSLATED = {("mfma_f32_32x32x8f16", "-O0"): "s_set_gpr_idx_on"}

# The suite's cases of each target: gfx90a's (CDNA) but what gfx940+ lacks, gfx942's, and on
# gfx950 its own too. Matrix products are exact here (small integers and halves), so they are
# compared bit for bit.
CASES_OF = {target: [replace(c, tolerance={}) if c.source.startswith("matrix_") else c
                     for c in CASES
                     if (set(c.targets) & set(TARGETS[:TARGETS.index(target) + 1])
                         or "gfx90a" in c.targets and c.name not in NOT_ON_GFX94X
                         and c.source not in NOT_FOR_GFX94X)
                     and not (target == "gfx950" and c.name in NOT_ON_GFX950)]
            for target in TARGETS}


@pytest.fixture(scope="module")
def root():
    return rocm64.require_tools()


def _objects():
    """(target, source, extra flags, opt) of every build: each kernel source plainly, and the
    suite's CDNA cases with their own flags, for each target."""
    paths = glob.glob(os.path.join(KERNELS, "*.cl")) + glob.glob(os.path.join(KERNELS, "*.hip"))
    sources = sorted(os.path.basename(p) for p in paths) + sorted(OWN_KERNELS)
    builds = {(s, (), opt) for s in sources for opt in ("-O0", "-O2")}
    return [pytest.param(t, *b, id=" ".join((t, b[0], *b[1], b[2]))) for t in TARGETS
            for b in sorted(builds | {(c.source, c.extra, opt) for c in CASES_OF[t] for opt in c.opts})
            if b[0] not in NOT_FOR_GFX94X]


@pytest.mark.parametrize("target,source,extra,opt", _objects())
def test_decoder_reads_clang21_cdna_builds_as_llvm_objdump_21(root, tmp_path, target, source,
                                                              extra, opt):
    assert misread(build(target, source_path(tmp_path, source), opt, *extra), target,
                   wave64=True) == []


@pytest.mark.parametrize("target", TARGETS)
def test_isa_report_has_nothing_clang21_emits_as_missing(root, tmp_path, target):
    """`softgpu isa-report --target T` over every build above: each opcode clang-21 emits
    for the target is tested on the interpreter and not missing on the native tier."""
    paths = [build(target, source_path(tmp_path, source), opt, *extra)
             for _, source, extra, opt in (p.values for p in _objects() if p.values[0] == target)]
    emitted, gaps = isa_report_gaps(paths, target)
    assert emitted > 300
    assert gaps == []


def _runs():
    """Each build on the interpreter; the -O2 builds (and the -O0 ones in BIG_FRAMES_O0) on both
    tiers."""
    for target in TARGETS:
        for case in CASES_OF[target]:
            for opt in case.opts:
                tiers = "both" if opt == "-O2" or case.name in BIG_FRAMES_O0 else "interp"
                yield pytest.param(target, case, opt, tiers, id=f"{target}-{case.name}{opt}-{tiers}")


@pytest.mark.parametrize("target,case,opt,tiers", list(_runs()))
def test_clang21_cdna_kernels_match_numpy_on_their_board(root, session, target, case, opt, tiers):
    """On the MI300X (gfx942) or the MI355X (gfx950) of the session's machine, each tier's
    results match numpy; where both tiers run, the native tier's are the interpreter's bit for
    bit (the differential test on these targets)."""
    run_case_on_both_tiers(session, target, case, opt, 64, tiers, NOT_TRANSLATED.get((case.name, opt)))
