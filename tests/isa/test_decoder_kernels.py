"""The decoder agrees with llvm-objdump-15 on every instruction of real clang-15 kernels.

Every kernel source of the suite (tests/kernels/*.cl, *.hip) plus a few of our own is compiled
for every target (gfx1030, gfx90a, gfx1100) at -O0 and -O2, in each wave size the target runs;
each code object's .text is disassembled by llvm-objdump and by core.isa, and the two must
give the same text at the same addresses.
"""
import glob
import os
import re
import subprocess

import pytest
from elftools.elf.elffile import ELFFile

from core.isa import targets
from core.isa.decoder import decode_all
from core.isa.disasm import format_instruction
from tests.kernels.suite import TARGETS as SUITE_TARGETS
from tests.support.kernels import KERNELS, CompileError, compile_hip, compile_opencl

OWN_KERNELS = {
    "mix.cl": r"""
kernel void mix(global float *out, global const float *a, global const int *b,
                global double *d, local float *tile, int n) {
    int i = get_global_id(0);
    int l = get_local_id(0);
    tile[l] = a[i] * 0.5f + (float)b[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc = fma(tile[(l + k) % get_local_size(0)], 1.0f / (k + 1), acc);
    if (b[i] & 1) acc = sqrt(fabs(acc)) + sin(acc);
    out[i] = acc / a[i];
    d[i] = (double)acc * 3.0 + exp((double)b[i]);
    atomic_add((global int *)b + (i & 7), 1);
}
""",
    "bytes.cl": r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void bytes(global uchar *p, global short *s, global half *h, global long *q) {
    int i = get_global_id(0);
    int priv[16];
    for (int k = 0; k < 16; ++k) priv[k] = p[(i + k) & 63] ^ k;
    p[i] = (uchar)(priv[i & 15] + s[i]);
    s[i] = (short)(s[i] >> 2) * (short)3;
    h[i] = h[i] * (half)2.0f + (half)0.25f;
    q[i] = q[i] / (long)(i + 1);
}
""",
}


# The builds that clang-15 refuses, and why (opt None: at every optimisation level). Every
# other build must compile: a compile error outside this list is a broken toolchain or a
# broken kernel, and fails; a listed build that compiles fails too, so the list stays true.
DOES_NOT_BUILD = {
    ("image_asm.cl", "gfx90a", None): "inline image asm in gfx10 syntax",
    ("images.cl", "gfx90a", None): "gfx90a has no image instructions",
    ("matrix_gfx1100.hip", "gfx90a", None): "WMMA is gfx11 only",
    ("matrix_gfx1100.hip", "gfx1030", None): "WMMA is gfx11 only",
    ("matrix_gfx90a.hip", "gfx1030", None): "MFMA is CDNA only",
    ("matrix_gfx90a.hip", "gfx1100", None): "MFMA is CDNA only",
    ("fp_atomics_gfx90a.hip", "gfx1030", None): "FP atomic builtins need gfx90a-insts",
    ("fp_atomics_gfx90a.hip", "gfx1100", None): "FP atomic builtins need gfx90a-insts",
    ("image_asm.cl", "gfx1100", None): "inline image asm in gfx10 syntax",
    ("subgroup_scans.cl", "gfx90a", "-O0"): "at -O0 the device library keeps v_permlanex16 (gfx10+)",
    ("subgroup_scans.cl", "gfx1030", "-O0"): "at -O0 the device library keeps gfx9 DPP broadcasts and wave shifts",
    ("subgroup_scans.cl", "gfx1100", "-O0"): "at -O0 the device library keeps gfx9 DPP broadcasts and wave shifts",
    ("lookback.cl", "gfx90a", "-O0"): "at -O0 the device library keeps v_permlanex16 (gfx10+)",
    ("lookback.cl", "gfx1030", "-O0"): "at -O0 the device library keeps gfx9 DPP broadcasts and wave shifts",
    ("lookback.cl", "gfx1100", "-O0"): "at -O0 the device library keeps gfx9 DPP broadcasts and wave shifts",
    ("buffer_bounds.cl", "gfx90a", "-O0"): "at -O0 its \"s\" asm operands are not in SGPRs",
    ("buffer_bounds.cl", "gfx1030", "-O0"): "at -O0 its \"s\" asm operands are not in SGPRs",
    ("buffer_bounds.cl", "gfx1100", "-O0"): "at -O0 its \"s\" asm operands are not in SGPRs",
    ("callout_atomics.cl", "gfx90a", None): "gfx90a has no image instructions",
    **{("lds_dma.cl", mcpu, None): "LDS DMA (global_load_lds) is gfx940+; clang-15 has no builtin"
       for mcpu in ("gfx90a", "gfx1030", "gfx1100")},
    **{("matrix_fp8.hip", mcpu, None): "fp8/bf8 MFMA is gfx940+; clang-15 has no builtin"
       for mcpu in ("gfx90a", "gfx1030", "gfx1100")},
}


def _refused(source, mcpu, opt):
    return DOES_NOT_BUILD.get((source, mcpu, None)) or DOES_NOT_BUILD.get((source, mcpu, opt))


def _sources():
    paths = sorted(glob.glob(os.path.join(KERNELS, "*.cl")) +
                   glob.glob(os.path.join(KERNELS, "*.hip")))
    return [os.path.basename(p) for p in paths] + sorted(OWN_KERNELS)


def _text_section(path):
    with open(path, "rb") as f:
        elf = ELFFile(f)
        text = elf.get_section_by_name(".text")
        return text.data(), text["sh_addr"]


LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]{12}):")


def _objdump(path, wave64, mcpu):
    cmd = ["llvm-objdump-15", "-d", f"--mcpu={mcpu}", path]
    if wave64 and mcpu != "gfx90a":
        cmd.insert(3, "--mattr=+wavefrontsize64")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {int(m.group(2), 16): m.group(1) for m in map(LINE.match, out.splitlines()) if m}


def _variants():
    # HIP's headers do not build for wave64 with clang-15 on RDNA: HIP sources run wave32
    # there (and wave64, the only size, on gfx90a).
    for mcpu in SUITE_TARGETS:      # the targets clang-15 builds the suite for
        waves = targets.get(mcpu).wave_sizes
        for source in _sources():
            for opt in ("-O0", "-O2"):
                for wave in waves[:1] if source.endswith(".hip") else waves:
                    yield pytest.param(source, opt, wave == 64, mcpu,
                                       id=f"{mcpu}-{source}-{opt}-wave{wave}")


@pytest.mark.parametrize("source,opt,wave64,mcpu", _variants())
def test_decoder_matches_llvm_objdump(source, opt, wave64, mcpu):
    text = OWN_KERNELS.get(source, source)
    compile_ = compile_hip if source.endswith(".hip") else compile_opencl
    refused = _refused(source, mcpu, opt)
    try:
        path = compile_(text, opt=opt, wave64=wave64, mcpu=mcpu)
    except CompileError:
        if not refused:
            raise
        pytest.skip(f"{source} does not build for {mcpu} at {opt} (declared: {refused})")
    assert not refused, f"{source} builds for {mcpu} at {opt}: remove it from DOES_NOT_BUILD"
    code, base = _text_section(path)
    expected = _objdump(path, wave64, mcpu)
    decoded = {inst.address: format_instruction(inst) for inst in decode_all(code, base, wave64, mcpu)}
    assert decoded.keys() == expected.keys()
    mismatches = [(hex(a), expected[a], decoded[a]) for a in sorted(expected)
                  if decoded[a] != expected[a]]
    assert mismatches == []
