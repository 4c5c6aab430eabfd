"""The kernel suite (tests/kernels/suite.py) on the ISA engine: every kernel built for every
target (gfx1030, gfx90a, gfx1100) at -O0 and -O2, in the wave sizes suite.variants gives
each target (v5 code objects where the case asks), each compared with its numpy reference;
plus checks that each build is what the suite claims it is. What the engine cannot run yet
is listed below as strict xfails with the reason (ENGINE_GAPS), so a fix shows up as a
failure until its entry goes.
"""
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest

from tests.support.suite_run import kernel_metadata, run_checked
from tests.kernels.suite import CASES, TARGET_WAVES, TARGETS, variants


def _variants():
    for target in TARGETS:
        prefix = "" if target == "gfx1030" else f"{target}-"
        for case in CASES:
            for opt, wave, code_object in variants(case, target):
                version = f"-v{code_object}" if code_object != 4 else ""
                yield (case, opt, wave, code_object, target,
                       f"{prefix}{case.name}{opt}-w{wave}{version}")


VARIANTS = [pytest.param(c, o, w, v, t, id=n) for c, o, w, v, t, n in _variants()]

# Cases the engine does not run correctly yet on a target, and why: {(target, case): reason}.
# Strict: a fix makes the run fail until its entry is removed.
ENGINE_GAPS: dict[tuple, str] = {}


def _marks(case, target):
    if (target, case.name) in ENGINE_GAPS:
        return [pytest.mark.xfail(raises=AssertionError, strict=True,
                                  reason=ENGINE_GAPS[target, case.name])]
    return []


RUNS = [pytest.param(c, o, w, v, t, id=n, marks=_marks(c, t)) for c, o, w, v, t, n in _variants()]



@pytest.mark.parametrize("case,opt,wave,code_object,target", VARIANTS)
def test_kernel_builds_for_its_variant(case, opt, wave, code_object, target):
    """clang-15 builds the variant, the kernel descriptor exists and the wave size took effect."""
    path = case.compile(opt, wave, code_object, target)
    symbols, meta, _ = kernel_metadata(path, case.kernel)
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
    _, meta, descriptor = kernel_metadata(path, case.kernel)
    rsrc1 = int.from_bytes(descriptor[48:52], "little")
    assert CLAIMS[name](SimpleNamespace(meta=meta, text=text, rsrc1=rsrc1))


def _has(*mnemonics):
    return lambda b: all(m in b.text for m in mnemonics)


# What each other target's builds are in the suite for: {(target, case, opt): claim}. These
# are the instructions the engine runs only for that target (issue 12's list), so losing one
# to a compiler change is visible here.
TARGET_CLAIMS = {
    # -O0 keeps the accumulator in AGPRs, -O2 in VGPRs: the engine runs both operand kinds.
    ("gfx90a", "mfma_f32_32x32x8f16", "-O0"): _has("v_mfma_f32_32x32x8f16 a[0:15]",
                                                   "v_accvgpr_write_b32", "v_accvgpr_read_b32",
                                                   "s_set_gpr_idx_on"),
    ("gfx90a", "mfma_f32_32x32x8f16", "-O2"): _has("v_mfma_f32_32x32x8f16 v[0:15]"),
    ("gfx90a", "mfma_f32_4x4x1f32_broadcasts", "-O2"): _has("cbsz:", "abid:", "blgp:"),
    ("gfx90a", "mfma_f64_16x16x4f64", "-O2"): _has("v_mfma_f64_16x16x4f64"),
    ("gfx90a", "fp_atomics", "-O2"): _has("global_atomic_add_f64", "global_atomic_min_f64",
                                          "global_atomic_max_f64", "global_atomic_add_f32",
                                          "global_atomic_pk_add_f16"),
    ("gfx90a", "float4_ops", "-O2"): _has("v_pk_fma_f32", "v_pk_mul_f32", "v_pk_add_f32"),
    ("gfx90a", "subgroup_collectives", "-O2"): _has("row_bcast:15", "row_bcast:31", "wave_shr:1"),
    ("gfx90a", "noinline_calls", "-O2"): _has("flat_scratch_lo", "buffer_store_dword"),
    # 16-bit results read as 32-bit values: gfx9's zeroed high half is relied on.
    ("gfx90a", "mad16", "-O2"): _has("v_mad_legacy_u16", "v_add_u16_e32", "v_mad_u32_u24"),
    ("gfx1100", "wmma_f32_16x16x16_f16", "-O2"): _has("v_wmma_f32_16x16x16_f16"),
    ("gfx1100", "wmma_i32_16x16x16_iu8", "-O2"): _has("v_wmma_i32_16x16x16_iu8"),
    ("gfx1100", "float_arith", "-O2"): _has("v_dual_", "s_delay_alu", "MSG_DEALLOC_VGPRS"),
    ("gfx1100", "half_arith", "-O0"): _has("v_maxmin_i32"),
    ("gfx1100", "half_arith", "-O2"): _has("v_minmax_i32"),
    ("gfx1100", "convert_float_to_int", "-O2"): _has("v_maxmin_f32"),
    ("gfx1100", "noinline_calls", "-O2"): _has("scratch_store_b32"),
}


@pytest.mark.parametrize("target,name,opt", [pytest.param(*k, id="-".join(k)) for k in TARGET_CLAIMS])
def test_target_build_exercises_its_feature(target, name, opt):
    case = next(c for c in CASES if c.name == name)
    path = case.compile(opt, TARGET_WAVES[target][0], 4, target)
    text = subprocess.run(["llvm-objdump-15", "-d", f"--mcpu={target}", path],
                          capture_output=True, text=True, check=True).stdout
    assert TARGET_CLAIMS[target, name, opt](SimpleNamespace(text=text))


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


@pytest.mark.parametrize("case,opt,wave,code_object,target", RUNS)
def test_kernel_matches_reference(session, case, opt, wave, code_object, target):
    run_checked(session, case, case.compile(opt, wave, code_object, target), wave)
