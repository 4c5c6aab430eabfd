"""gfx942 (the MI300X, CDNA3) and gfx950 (the MI355X, CDNA4) as the ROCm 6.4 root's clang-21
builds for them: the decoder reads every build of the kernel sources as llvm-objdump-21 does
(scratch with a VGPR offset beside the SGPR base, the cache-policy bits sc0/sc1/nt), and every
CDNA case of the kernel suite runs on that target's board in the ISA tests' machine on both
engine tiers (-O0 builds natively where their frames are big: BIG_FRAMES_O0) with its numpy
results (as clang-21 and ROCm 6.4's device libraries compute them: CLANG21_REFERENCES). Without
the root these skip on a developer's machine and fail in CI (tests/support/rocm64)."""
import glob
import os
import re
from dataclasses import replace

import pytest
from elftools.elf.elffile import ELFFile

from core.isa.decoder import decode_all
from core.isa.disasm import format_instruction
from core.isa.report import classify, coverage_of
from tests.isa.test_decoder_kernels import OWN_KERNELS
from tests.support.suite_run import output_buffers
from tests.kernels.checks import c_round
from tests.kernels.suite import CASES
from tests.support import rocm64
from tests.support.differential import assert_same_run, order_dependent, run_on
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


def _float_round_by_llvm21(args, expected):
    """clang-21 lowers round() as C defines it (clang-15 turned round(-0.25) into +0.0)."""
    expected[1][:, 2] = c_round(args[0])


def _rounding_signs_by_llvm21(args, expected):
    expected[3][:, 4] = c_round(args[0])
    expected[4][:, 4] = c_round(args[1])


def _double_convert_by_llvm21(args, expected):
    expected[4][:, 3] = c_round(args[0])


def _local_linear_id_by_llvm21(args, expected):
    """ROCm 6.4's device libraries compute get_local_linear_id from the actual local sizes, as
    the OpenCL spec says (ROCm 5.2's took the packet's sizes, also in partial groups); the
    columns of ndrange_2d/ndrange_3d (tests/kernels/suite.py) give the ids and sizes."""
    table = expected[0]
    if table.shape[1] == 12:        # ndrange_2d: per dimension lid, group, size, ...; col 5 adds the id
        lid0, size0, lid1 = table[:, 0], table[:, 2], table[:, 6]
        table[:, 5] = table[:, 5] % 1000 + 1000 * (lid1 * size0 + lid0)
    else:                           # ndrange_3d: lid + 100 * group, size + 100 * enqueued, ...
        lid, size = table[:, 0:9:3] % 100, table[:, 1:9:3] % 100
        table[:, 9] = (lid[:, 2] * size[:, 1] + lid[:, 1]) * size[:, 0] + lid[:, 0] + 3000


# The suite's references that follow clang-15's lowering or ROCm 5.2's device libraries, as
# clang-21 builds with ROCm 6.4's compute them (the same builds run right on both tiers).
CLANG21_REFERENCES = {"float_round": _float_round_by_llvm21,
                      "rounding_signs": _rounding_signs_by_llvm21,
                      "double_convert": _double_convert_by_llvm21,
                      "ndrange_2d": _local_linear_id_by_llvm21,
                      "ndrange_3d": _local_linear_id_by_llvm21}
LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]{12}):")


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


def _source(tmp_path, source):
    """The path of a kernel source: tests/kernels', or one of OWN_KERNELS written out."""
    if source not in OWN_KERNELS:
        return os.path.join(KERNELS, source)
    path = str(tmp_path / source)
    with open(path, "w") as f:
        f.write(OWN_KERNELS[source])
    return path


def _build(target, path, opt, *extra):
    return rocm64.clang21(path, target, opt, "-mcode-object-version=5", *extra,
                          hip=path.endswith(".hip"))


@pytest.mark.parametrize("target,source,extra,opt", _objects())
def test_decoder_reads_clang21_cdna_builds_as_llvm_objdump_21(root, tmp_path, target, source,
                                                              extra, opt):
    built = _build(target, _source(tmp_path, source), opt, *extra)
    with open(built, "rb") as f:
        text = ELFFile(f).get_section_by_name(".text")
        code, base = text.data(), text["sh_addr"]
    expected = {int(m.group(2), 16): m.group(1)
                for m in map(LINE.match, rocm64.objdump(built, target).splitlines()) if m}
    decoded = {i.address: format_instruction(i) for i in decode_all(code, base, True, target)}
    assert decoded.keys() == expected.keys()
    assert [(hex(a), expected[a], decoded[a]) for a in sorted(expected)
            if decoded[a] != expected[a]] == []


@pytest.mark.parametrize("target", TARGETS)
def test_isa_report_has_nothing_clang21_emits_as_missing(root, tmp_path, target):
    """`softgpu isa-report --target T` over every build above: each opcode clang-21 emits
    for the target is tested on the interpreter and not missing on the native tier."""
    from core.isa.interp.handlers import implemented
    from core.isa.native.routing import handed_over, translated
    paths = []
    for _, source, extra, opt in (p.values for p in _objects() if p.values[0] == target):
        paths.append(_build(target, _source(tmp_path, source), opt, *extra))
    covered = coverage_of(paths, target)
    rows = classify(implemented(), covered, target, translated(), handed_over())
    emitted = [r for r in rows if r["mnemonic"] in covered]
    assert len(emitted) > 300
    assert [r for r in emitted if r["status"] != "tested" or r["native"] == "missing"] == []


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
    path = _build(target, os.path.join(KERNELS, case.source), opt, *case.extra)
    args, expected = case.inputs(64)
    if case.name in CLANG21_REFERENCES:
        CLANG21_REFERENCES[case.name](args, expected)
    oracle, oracle_stats, _ = run_on(session, case, path, 64, "interp")
    case.check(expected, output_buffers(path, case, oracle))
    if tiers == "interp":
        return
    native, native_stats, fallback = run_on(session, case, path, 64, "native")
    declared = NOT_TRANSLATED.get((case.name, opt))
    if declared:
        assert fallback is not None and declared in fallback.reason, "translated now: undeclare it"
    else:
        assert fallback is None, f"the native tier left it to the interpreter: {fallback.reason}"
    case.check(expected, output_buffers(path, case, native))
    if not order_dependent(case, 64):
        assert_same_run(path, target, native, native_stats, oracle, oracle_stats)
