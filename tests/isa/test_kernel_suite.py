"""The kernel suite (tests/kernels/suite.py) on the ISA engine: every kernel at -O0 and -O2,
wave32 and wave64 builds (v5 code objects where the case asks), each compared with its numpy
reference; plus checks that each build is what the suite claims it is. What the engine
cannot run yet is listed below as strict xfails with the reason (ENGINE_GAPS), so a fix
shows up as a failure until its entry goes.
"""
import subprocess
from types import SimpleNamespace

import msgpack
import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from tests.support.launch import launch
from tests.kernels.suite import CASES, variants


def _variants():
    for case in CASES:
        for opt, wave, code_object in variants(case):
            version = f"-v{code_object}" if code_object != 4 else ""
            yield case, opt, wave, code_object, f"{case.name}{opt}-w{wave}{version}"


VARIANTS = [pytest.param(c, o, w, v, id=n) for c, o, w, v, n in _variants()]

# Cases the engine does not run correctly yet, and why. Strict: a fix makes the run fail
# until its entry is removed.
ENGINE_GAPS: dict[str, str] = {}


def _marks(case):
    if case.name in ENGINE_GAPS:
        return [pytest.mark.xfail(raises=AssertionError, strict=True,
                                  reason=ENGINE_GAPS[case.name])]
    return []


RUNS = [pytest.param(c, o, w, v, id=n, marks=_marks(c)) for c, o, w, v, n in _variants()]


def _kernel_metadata(path, name):
    """The code object's symbol names, the kernel's metadata map and its descriptor bytes."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        symbols = {s.name: s for s in elf.get_section_by_name(".symtab").iter_symbols()}
        descriptor = None
        if f"{name}.kd" in symbols:
            kd = symbols[f"{name}.kd"]
            section = elf.get_section(kd["st_shndx"])
            start = kd["st_value"] - section["sh_addr"]
            descriptor = section.data()[start:start + 64]
        for section in elf.iter_sections():
            if section.header.sh_type == "SHT_NOTE":
                for note in section.iter_notes():
                    if note["n_name"] == "AMDGPU":
                        meta = msgpack.unpackb(note["n_descdata"], raw=False)
                        kernels = {k[".name"]: k for k in meta["amdhsa.kernels"]}
                        return set(symbols), kernels.get(name), descriptor
    return set(symbols), None, descriptor


@pytest.mark.parametrize("case,opt,wave,code_object", VARIANTS)
def test_kernel_builds_for_its_variant(case, opt, wave, code_object):
    """clang-15 builds the variant, the kernel descriptor exists and the wave size took effect."""
    path = case.compile(opt, wave, code_object)
    symbols, meta, _ = _kernel_metadata(path, case.kernel)
    assert f"{case.kernel}.kd" in symbols
    assert meta is not None, f"no metadata for {case.kernel}"
    assert meta[".wavefront_size"] == wave


# What a kernel is in the suite for, checked on its -O0 and -O2 builds, so a compiler change
# that optimises the feature away shows up here rather than as silently lost coverage.
CLAIMS = {
    "private_array_walk": lambda b: b.meta[".private_segment_fixed_size"] >= 96 * 4,
    "noinline_calls": lambda b: "s_swappc_b64" in b.text,
    # FLOAT_DENORM_MODE_32 is bits 17:16 of COMPUTE_PGM_RSRC1: 3 keeps f32 denormals, 0 flushes.
    "float_denormals": lambda b: (b.rsrc1 >> 16) & 3 == 3,
    "float_denormals_ftz": lambda b: (b.rsrc1 >> 16) & 3 == 0,
    "private_array_walk_flat_scratch": lambda b: "scratch_store_dword" in b.text
    and "buffer_store" not in b.text,
    "noinline_calls_flat_scratch": lambda b: "scratch_store_dword" in b.text,
    "wg_reduce": lambda b: b.meta[".group_segment_fixed_size"] > 0 and "s_barrier" in b.text,
    "tiled_matmul": lambda b: b.meta[".group_segment_fixed_size"] > 0 and "s_barrier" in b.text,
    "local_atomics": lambda b: "ds_add_rtn_u32" in b.text or "ds_inc" in b.text,
    "float_div_sqrt_cr": lambda b: "v_div_fixup_f32" in b.text,
    "double_arith": lambda b: "v_div_fmas_f64" in b.text and "v_fma_f64" in b.text,
    "half_arith": lambda b: "v_fma_f16" in b.text or "v_fmac_f16" in b.text,
    "cross_lane_builtins": lambda b: all(
        m in b.text for m in ("ds_bpermute_b32", "v_readfirstlane_b32", "ds_swizzle_b32", "_dpp")),
    "byte_short_loads": lambda b: "global_load_sbyte" in b.text
    and "global_load_sshort" in b.text,
    "half2_ops": lambda b: "v_pk_fma_f16" in b.text and "v_pk_mul_f16" in b.text,
    "generic_pointers": lambda b: "flat_load_dword" in b.text
    and "HW_REG_SH_MEM_BASES" in b.text,
    "local_bytes": lambda b: all(
        m in b.text for m in ("ds_write_b8", "ds_read_i8", "ds_read_i16")),
    "rounding_signs": lambda b: all(
        m in b.text for m in ("v_rndne_f16", "v_rndne_f32", "v_rndne_f64", "v_trunc_f16", "v_fract_f32")),
    "saturating_conversions": lambda b: all(m in b.text for m in ("v_med3_f32", "v_cvt_i32_f64")),
    "fminmax_specials": lambda b: all(m in b.text for m in ("v_min_f32", "v_max_f64")),
}


@pytest.mark.parametrize("name,opt", [pytest.param(n, o, id=f"{n}{o}") for n in CLAIMS
                                      for o in ("-O0", "-O2")])
def test_build_exercises_its_feature(name, opt):
    case = next(c for c in CASES if c.name == name)
    path = case.compile(opt, 32)
    text = subprocess.run(["llvm-objdump-15", "-d", path], capture_output=True, text=True,
                          check=True).stdout
    _, meta, descriptor = _kernel_metadata(path, case.kernel)
    rsrc1 = int.from_bytes(descriptor[48:52], "little")
    assert CLAIMS[name](SimpleNamespace(meta=meta, text=text, rsrc1=rsrc1))


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_reference_rejects_untouched_buffers(case):
    """A kernel that writes nothing must fail its case: no expectation equals the initial
    buffers and no order check accepts them."""
    for wave in case.waves:
        args, expected = case.inputs(wave)
        args = [getattr(a, "initial", a) for a in args]         # an image starts as its pixels
        for key, want in expected.items():
            if isinstance(key, tuple):
                with pytest.raises(AssertionError):
                    want(*(args[i] for i in key))
            else:
                assert args[key].size == np.size(want)
                with pytest.raises(AssertionError):
                    case.check({key: want}, {key: args[key]})


@pytest.mark.parametrize("case,opt,wave,code_object", RUNS)
def test_kernel_matches_reference(session, case, opt, wave, code_object):
    path = case.compile(opt, wave, code_object)
    args, expected = case.inputs(wave)
    outputs = launch(session, path, case.kernel, args, case.grid, case.workgroup,
                     group_segment_size=case.group_segment, global_offset=case.global_offset)
    # launch returns the global buffers and images in argument order; by-value vectors are
    # arrays too.
    explicit = [a for a in _kernel_metadata(path, case.kernel)[1][".args"]
                if not a[".value_kind"].startswith("hidden_")]
    buffers = [i for i, a in enumerate(explicit) if a[".value_kind"] in ("global_buffer", "image")]
    case.check(expected, dict(zip(buffers, outputs)))
