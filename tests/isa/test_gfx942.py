"""gfx942 (the MI300X, CDNA3) as the ROCm 6.4 root's clang-21 builds for it: the decoder reads
every build of the kernel sources as llvm-objdump-21 does (scratch with a VGPR offset beside
the SGPR base, the cache-policy bits sc0/sc1/nt), and every CDNA case of the kernel suite runs
on the MI300X of the ISA tests' machine on both engine tiers (-O0 builds natively where their
frames are big: BIG_FRAMES_O0) with its numpy results (as
clang-21 and ROCm 6.4's device libraries compute them: CLANG21_REFERENCES). Without the root
these skip on a developer's machine and fail in CI (tests/support/rocm64)."""
import glob
import os
import re
from dataclasses import replace

import pytest
from elftools.elf.elffile import ELFFile

from core.isa.decoder import decode_all
from core.isa.disasm import format_instruction
from tests.isa.test_decoder_kernels import OWN_KERNELS
from tests.support.suite_run import run_checked
from tests.kernels.checks import c_round
from tests.kernels.suite import CASES
from tests.support import rocm64
from tests.support.differential import engine
from tests.support.kernels import KERNELS

# Sources clang-21 refuses for gfx942, or builds into words gfx942 lacks, and why.
NOT_FOR_GFX942 = {
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
# gfx90a cases of what gfx942 lacks, and why.
NOT_ON_GFX942 = {"mfma_i32_16x16x16i8": "gfx940 dropped the i8 16x16x16 MFMA (gfx942 has 16x16x32)"}

# Runs the engine does not get right yet on gfx942, and why: {(case, opt, tier): reason}.
# Strict: a fix makes the run fail until its entry is removed.
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

# The suite's cases on gfx942: its own, and gfx90a's (CDNA) but what gfx942 lacks. Matrix
# products are exact here (small integers and halves), so they are compared bit for bit.
CASES_942 = [replace(c, tolerance={}) if c.source.startswith("matrix_") else c for c in CASES
             if "gfx942" in c.targets or "gfx90a" in c.targets and c.name not in NOT_ON_GFX942
             and c.source not in NOT_FOR_GFX942]


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
    """(source, extra flags, opt) of every gfx942 build: each kernel source plainly, and the
    suite's CDNA cases with their own flags."""
    paths = glob.glob(os.path.join(KERNELS, "*.cl")) + glob.glob(os.path.join(KERNELS, "*.hip"))
    sources = sorted(os.path.basename(p) for p in paths) + sorted(OWN_KERNELS)
    builds = {(s, (), opt) for s in sources for opt in ("-O0", "-O2")}
    builds |= {(c.source, c.extra, opt) for c in CASES_942 for opt in c.opts}
    return [pytest.param(*b, id=" ".join((b[0], *b[1], b[2]))) for b in sorted(builds)
            if b[0] not in NOT_FOR_GFX942]


def _build(path, opt, *extra):
    return rocm64.clang21(path, "gfx942", opt, "-mcode-object-version=5", *extra,
                          hip=path.endswith(".hip"))


@pytest.mark.parametrize("source,extra,opt", _objects())
def test_decoder_reads_clang21_gfx942_builds_as_llvm_objdump_21(root, tmp_path, source, extra,
                                                                 opt):
    path = os.path.join(KERNELS, source)
    if source in OWN_KERNELS:
        path = str(tmp_path / source)
        with open(path, "w") as f:
            f.write(OWN_KERNELS[source])
    built = _build(path, opt, *extra)
    with open(built, "rb") as f:
        text = ELFFile(f).get_section_by_name(".text")
        code, base = text.data(), text["sh_addr"]
    expected = {int(m.group(2), 16): m.group(1)
                for m in map(LINE.match, rocm64.objdump(built, "gfx942").splitlines()) if m}
    decoded = {i.address: format_instruction(i) for i in decode_all(code, base, True, "gfx942")}
    assert decoded.keys() == expected.keys()
    assert [(hex(a), expected[a], decoded[a]) for a in sorted(expected)
            if decoded[a] != expected[a]] == []


def _runs():
    for case in CASES_942:
        for opt in case.opts:
            for tier in ("interp", "native"):
                if tier == "native" and opt == "-O0" and case.name not in BIG_FRAMES_O0:
                    continue
                yield pytest.param(case, opt, tier, id=f"{case.name}{opt}-{tier}")


@pytest.mark.parametrize("case,opt,tier", list(_runs()))
def test_clang21_gfx942_kernels_match_numpy_on_the_mi300x(root, session, case, opt, tier):
    path = _build(os.path.join(KERNELS, case.source), opt, *case.extra)
    with engine(tier):
        run_checked(session, case, path, 64, CLANG21_REFERENCES.get(case.name))
