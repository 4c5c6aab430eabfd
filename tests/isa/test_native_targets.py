"""gfx1100 and gfx90a code on the native tier: kernel-suite builds that use what those targets
do differently from gfx1030 run translated (the trace has no native_fallback event for them)
and give the interpreter's bytes and DispatchStats counts; builds with an instruction the
translator does not take run on the interpreter, the native_fallback event naming it."""
import json

import numpy as np
import pytest

from core.isa.report import mnemonics_in
from tests.kernels.suite import CASES, variants
from tests.support.differential import run_on

BY_NAME = {case.name: case for case in CASES}

# (target, case, opt, a mnemonic prefix the build must contain: the difference it exercises)
BUILDS = [
    ("gfx1100", "float_arith", "-O2", "v_dual_"),              # VOPD dual issue, s_delay_alu
    ("gfx1100", "noinline_calls", "-O2", "scratch_store_b32"),  # architected flat scratch
    ("gfx1100", "ndrange_3d", "-O2", "v_bfe_u32"),              # work-item ids packed in v0
    ("gfx1100", "local_atomics", "-O0", "ds_"),                 # gfx11's DS names
    ("gfx90a", "int_arith", "-O0", "v_accvgpr_write_b32"),      # spills to AGPRs
    ("gfx90a", "float4_ops", "-O2", "v_pk_fma_f32"),            # packed f32 on register pairs
    ("gfx90a", "subgroup_collectives", "-O2", "v_mov_b32"),     # row_bcast, wave_shr DPP
    ("gfx90a", "noinline_calls", "-O2", "buffer_store_dword"),  # FLAT_SCRATCH in s[102:103]
    ("gfx90a", "mad16", "-O2", "v_mad_legacy_u16"),             # 16-bit results zero bits 31:16
    ("gfx90a", "ndrange_3d", "-O2", "v_bfe_u32"),               # packed ids, wave64 only
]


def _build(target, name, opt):
    """(case, code object path, wave size) of the case's `opt` build for `target`."""
    case = BY_NAME[name]
    _, wave, code_object = next(v for v in variants(case, target) if v[0] == opt)
    return case, case.compile(opt, wave, code_object, target), wave


def _traced_native_run(session, tmp_path, monkeypatch, case, path, wave):
    """run_on's (outputs, DispatchStats, fallback) on the native tier, and the trace's events."""
    trace = tmp_path / "trace.jsonl"
    monkeypatch.setenv("SOFTGPU_TRACE", str(trace))
    native, stats, fallback = run_on(session, case, path, wave, "native")
    monkeypatch.delenv("SOFTGPU_TRACE")
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return native, stats, fallback, events


@pytest.mark.parametrize("target,name,opt,feature", BUILDS,
                         ids=[f"{t}-{n}{o}" for t, n, o, _ in BUILDS])
def test_kernel_runs_translated_with_the_interpreters_bytes(session, tmp_path, monkeypatch,
                                                            target, name, opt, feature):
    case, path, wave = _build(target, name, opt)
    assert any(m.startswith(feature) for m in mnemonics_in(path, target))
    native, native_stats, fallback, events = _traced_native_run(session, tmp_path, monkeypatch,
                                                                case, path, wave)
    assert fallback is None and not [e for e in events if e["event"] == "native_fallback"], events
    assert any(e["event"] == "native_compile" for e in events)
    oracle, oracle_stats, _ = run_on(session, case, path, wave, "interp")
    for index, (got, want) in enumerate(zip(native, oracle)):
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"buffer {index} differs"
    counts = ("waves", "workgroups", "wave_instructions", "lane_instructions")
    assert [getattr(native_stats, c) for c in counts] == [getattr(oracle_stats, c) for c in counts]
    assert native_stats.tier == "native" and oracle_stats.tier == "interp"


# Matrix instructions have no emitter: translated kernels hand them to the interpreter's
# handlers (callouts) and run on, with the interpreter's bytes and counts.
MATRIX = [("gfx1100", "wmma_f32_16x16x16_f16", "-O2"), ("gfx90a", "mfma_f32_16x16x4f32", "-O2")]


@pytest.mark.parametrize("target,name,opt", MATRIX, ids=[f"{t}-{n}{o}" for t, n, o in MATRIX])
def test_matrix_instructions_run_as_callouts_in_translated_kernels(session, tmp_path, monkeypatch,
                                                                   target, name, opt):
    case, path, wave = _build(target, name, opt)
    native, native_stats, fallback, events = _traced_native_run(session, tmp_path, monkeypatch,
                                                                case, path, wave)
    assert fallback is None, fallback.reason
    assert [e["count"] for e in events if e["event"] == "native_callouts"][0] > 0, events
    oracle, oracle_stats, _ = run_on(session, case, path, wave, "interp")
    for index, (got, want) in enumerate(zip(native, oracle)):
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"buffer {index} differs"
    assert native_stats.lane_instructions == oracle_stats.lane_instructions


# Builds with instructions the translator neither takes nor hands over: the kernel runs on
# the interpreter, and the native_fallback event names the instruction.
FALLBACKS = [
    ("gfx90a", "mfma_f32_16x16x4f32", "-O0", "s_set_gpr_idx_on"),      # VGPR index mode
]


@pytest.mark.parametrize("target,name,opt,instruction", FALLBACKS,
                         ids=[f"{t}-{n}{o}" for t, n, o, _ in FALLBACKS])
def test_kernel_the_translator_cannot_take_runs_on_the_interpreter(session, tmp_path, monkeypatch,
                                                                   target, name, opt, instruction):
    case, path, wave = _build(target, name, opt)
    native, native_stats, fallback, events = _traced_native_run(session, tmp_path, monkeypatch,
                                                                case, path, wave)
    fallbacks = [e for e in events if e["event"] == "native_fallback"]
    assert fallback is not None and len(fallbacks) == 1, events
    assert fallbacks[0]["instruction"].startswith(instruction), fallbacks
    assert native_stats.tier == "interp"
    oracle, _, _ = run_on(session, case, path, wave, "interp")
    for index, (got, want) in enumerate(zip(native, oracle)):
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"buffer {index} differs"
