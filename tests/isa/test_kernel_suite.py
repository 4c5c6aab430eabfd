"""The kernel suite (tests/kernels/suite.py) on the ISA engine: every kernel at -O0 and -O2,
wave32 and wave64 builds (v5 code objects where the case asks), each compared with its numpy
reference; plus checks that each build is what the suite claims it is.
"""
import subprocess

import msgpack
import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from core.isa.launch import launch
from tests.kernels.suite import CASES, variants

def _variants():
    for case in CASES:
        for opt, wave, code_object in variants(case):
            version = f"-v{code_object}" if code_object != 4 else ""
            yield case, opt, wave, code_object, f"{case.name}{opt}-w{wave}{version}"


VARIANTS = [pytest.param(c, o, w, v, id=n) for c, o, w, v, n in _variants()]


def _kernel_metadata(path, name):
    with open(path, "rb") as f:
        elf = ELFFile(f)
        symbols = {s.name for s in elf.get_section_by_name(".symtab").iter_symbols()}
        for section in elf.iter_sections():
            if section.header.sh_type == "SHT_NOTE":
                for note in section.iter_notes():
                    if note["n_name"] == "AMDGPU":
                        meta = msgpack.unpackb(note["n_descdata"], raw=False)
                        kernels = {k[".name"]: k for k in meta["amdhsa.kernels"]}
                        return symbols, kernels.get(name)
    return symbols, None


@pytest.mark.parametrize("case,opt,wave,code_object", VARIANTS)
def test_kernel_builds_for_its_variant(case, opt, wave, code_object):
    """clang-15 builds the variant, the kernel descriptor exists and the wave size took effect."""
    path = case.compile(opt, wave, code_object)
    symbols, meta = _kernel_metadata(path, case.kernel)
    assert f"{case.kernel}.kd" in symbols
    assert meta is not None, f"no metadata for {case.kernel}"
    assert meta[".wavefront_size"] == wave


# What a kernel is in the suite for, checked on its -O0 and -O2 builds, so a compiler change
# that optimises the feature away shows up here rather than as silently lost coverage.
CLAIMS = {
    "private_array_walk": lambda meta, text: meta[".private_segment_fixed_size"] >= 96 * 4,
    "noinline_calls": lambda meta, text: "s_swappc_b64" in text,
    "private_array_walk_flat_scratch": lambda meta, text: "scratch_store_dword" in text
    and "buffer_store" not in text,
    "noinline_calls_flat_scratch": lambda meta, text: "scratch_store_dword" in text,
    "wg_reduce": lambda meta, text: meta[".group_segment_fixed_size"] > 0 and "s_barrier" in text,
    "tiled_matmul": lambda meta, text: meta[".group_segment_fixed_size"] > 0 and "s_barrier" in text,
    "local_atomics": lambda meta, text: "ds_add_rtn_u32" in text or "ds_inc" in text,
    "float_div_sqrt_cr": lambda meta, text: "v_div_fixup_f32" in text,
    "double_arith": lambda meta, text: "v_div_fmas_f64" in text and "v_fma_f64" in text,
    "half_arith": lambda meta, text: "v_fma_f16" in text or "v_fmac_f16" in text,
    "cross_lane_builtins": lambda meta, text: all(
        m in text for m in ("ds_bpermute_b32", "v_readfirstlane_b32", "ds_swizzle_b32", "_dpp")),
    "byte_short_loads": lambda meta, text: "global_load_sbyte" in text
    and "global_load_sshort" in text,
    "half2_ops": lambda meta, text: "v_pk_fma_f16" in text and "v_pk_mul_f16" in text,
    "generic_pointers": lambda meta, text: "flat_load_dword" in text
    and "HW_REG_SH_MEM_BASES" in text,
    "local_bytes": lambda meta, text: all(
        m in text for m in ("ds_write_b8", "ds_read_i8", "ds_read_i16")),
}


@pytest.mark.parametrize("name,opt", [pytest.param(n, o, id=f"{n}{o}") for n in CLAIMS
                                      for o in ("-O0", "-O2")])
def test_build_exercises_its_feature(name, opt):
    case = next(c for c in CASES if c.name == name)
    path = case.compile(opt, 32)
    text = subprocess.run(["llvm-objdump-15", "-d", path], capture_output=True, text=True,
                          check=True).stdout
    assert CLAIMS[name](_kernel_metadata(path, case.kernel)[1], text)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_reference_rejects_untouched_buffers(case):
    """A kernel that writes nothing must fail its case: no expectation equals the initial
    buffers and no order check accepts them."""
    for wave in case.waves:
        args, expected = case.inputs(wave)
        for key, want in expected.items():
            if isinstance(key, tuple):
                with pytest.raises(AssertionError):
                    want(*(args[i] for i in key))
            else:
                assert args[key].size == np.size(want)
                with pytest.raises(AssertionError):
                    case.check(args, {key: want}, {key: args[key]})


@pytest.mark.parametrize("case,opt,wave,code_object", VARIANTS)
def test_kernel_matches_reference(session, case, opt, wave, code_object):
    path = case.compile(opt, wave, code_object)
    args, expected = case.inputs(wave)
    outputs = launch(session, path, case.kernel, args, case.grid, case.workgroup)
    by_index = dict(zip([i for i, a in enumerate(args) if isinstance(a, np.ndarray)], outputs))
    case.check(args, expected, by_index)
