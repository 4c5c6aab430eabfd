"""gfx1201 (the RX 9070 XT) and gfx1200 (the RX 9060 XT), RDNA4, as the ROCm 6.4 root's clang-21
builds for them: the decoder reads every build of the kernel sources as llvm-objdump-21 does
(gfx12's three-dword VGLOBAL/VSCRATCH/VFLAT, VBUFFER and VIMAGE/VSAMPLE words, SMEM's signed
24-bit offsets, the temporal hints th and scope, the split wait counters), `isa-report` finds nothing clang-21 emits
missing, and every RDNA case of the kernel suite runs on that target's board in the ISA tests'
machine, wave32, on the interpreter at -O0 and on both tiers at -O2, the native tier's results
the interpreter's bit for bit. Without the root these skip on a developer's machine and fail in
CI (tests/support/rocm64)."""
import glob
import os

import pytest

from tests.isa.test_decoder_kernels import OWN_KERNELS
from tests.kernels.suite import CASES
from tests.support import rocm64
from tests.support.clang21 import build, isa_report_gaps, misread, run_case_on_both_tiers, source_path
from tests.support.kernels import KERNELS

TARGETS = ("gfx1201", "gfx1200")

# Sources clang-21 refuses for gfx12, or that need what SoftGPU's gfx12 lacks, and why.
NOT_FOR_GFX12 = {
    "buffer_bounds.cl": "its inline asm spells gfx10's buffer syntax",
    "callout_atomics.cl": "its inline asm spells gfx10's image syntax",
    "fp_atomics_gfx90a.hip": "gfx90a's builtins",
    "global_sync.cl": "gfx12 has no GDS",
    "image_asm.cl": "its inline asm spells gfx10's image syntax",
    "lds_dma.cl": "gfx940's global_load_lds",
    "loader_extern.cl": "clang-21's link refuses the externals it leaves to the loader",
    "matrix_fp8.hip": "MFMA builtins",
    "matrix_gfx1100.hip": "gfx11's WMMA builtins (gfx12's take other operand shapes)",
    "matrix_gfx90a.hip": "MFMA builtins",
}
# Builds clang-21 refuses at -O0 only: its unoptimised DPP keeps gfx9's row broadcasts and
# wave shifts, which gfx10+ lacks (the suite builds these sources at -O2 alone).
NOT_AT_O0 = {"lookback.cl", "subgroup_scans.cl"}


def _gfx12_mode(args, expected):
    """A gfx12 wave's MODE: its descriptor has no DX10_CLAMP and IEEE bits, the wave starts
    with DX10_CLAMP alone (core/isa/targets.py says why): FP_DENORM 0xF and DX10_CLAMP."""
    expected[0][:] = 0x1F0


# The cases whose references differ on gfx12, and how.
GFX12_REFERENCES = {"read_mode": _gfx12_mode}

# The suite's RDNA cases (gfx1100's), but those of the sources above.
CASES_OF = [c for c in CASES if "gfx1100" in c.targets and c.source not in NOT_FOR_GFX12]


@pytest.fixture(scope="module")
def root():
    return rocm64.require_tools()


def _objects(target):
    """(source, extra flags, opt) of every build for the target: each kernel source plainly,
    and the suite's RDNA cases with their own flags."""
    paths = glob.glob(os.path.join(KERNELS, "*.cl")) + glob.glob(os.path.join(KERNELS, "*.hip"))
    sources = sorted(os.path.basename(p) for p in paths) + sorted(OWN_KERNELS)
    builds = {(s, (), opt) for s in sources for opt in ("-O0", "-O2")}
    builds |= {(c.source, c.extra, opt) for c in CASES_OF for opt in c.opts}
    return sorted(b for b in builds
                  if b[0] not in NOT_FOR_GFX12 and not (b[0] in NOT_AT_O0 and b[2] == "-O0"))


@pytest.mark.parametrize("target,source,extra,opt",
                         [pytest.param(t, *b, id=" ".join((t, b[0], *b[1], b[2])))
                          for t in TARGETS for b in _objects(t)])
def test_decoder_reads_clang21_rdna4_builds_as_llvm_objdump_21(root, tmp_path, target, source,
                                                               extra, opt):
    """clang-21's gfx12 code is fake16 (its 16-bit operands in v0-v127, printed whole), which
    the decoder reads as the hardware does (a VGPR code's bit 7 would pick a high half)."""
    assert misread(build(target, source_path(tmp_path, source), opt, *extra), target,
                   wave64=False) == []


@pytest.mark.parametrize("target", TARGETS)
def test_isa_report_has_nothing_clang21_emits_as_missing(root, tmp_path, target):
    """`softgpu isa-report --target T` over every build above: each opcode clang-21 emits
    for the target is tested on the interpreter and not missing on the native tier."""
    paths = [build(target, source_path(tmp_path, source), opt, *extra)
             for source, extra, opt in _objects(target)]
    emitted, gaps = isa_report_gaps(paths, target)
    assert emitted > 300
    assert gaps == []


def _runs():
    """Each build on the interpreter; the -O2 builds on both tiers."""
    for target in TARGETS:
        for case in CASES_OF:
            for opt in case.opts:
                tiers = "both" if opt == "-O2" else "interp"
                yield pytest.param(target, case, opt, tiers, id=f"{target}-{case.name}{opt}-{tiers}")


@pytest.mark.parametrize("target,case,opt,tiers", list(_runs()))
def test_clang21_rdna4_kernels_match_numpy_on_their_board(root, session, target, case, opt, tiers):
    """On the RX 9070 XT (gfx1201) or the RX 9060 XT (gfx1200) of the session's machine, wave32,
    each tier's results match numpy; where both tiers run, the native tier's are the
    interpreter's bit for bit (the differential test on these targets)."""
    run_case_on_both_tiers(session, target, case, opt, 32, tiers,
                           reference=GFX12_REFERENCES.get(case.name))
