"""`softgpu isa-report [--target T]` tells users exactly which opcodes of a target run."""
import io
import json
import os
import subprocess
import sys

import pytest
from elftools.elf.elffile import ELFFile

from core.isa.decoder import decode_all
from core.isa.interp.handlers import implemented
from core.isa.report import classify, mnemonics_in, opcodes, shipped_coverage
from tests.support.coverage import suite_coverage
from tests.kernels.suite import code_objects
from tests.support.paths import ROOT


def test_every_opcode_has_exactly_one_status():
    rows = classify(implemented(), suite_coverage())
    assert len(rows) == len(list(opcodes())) > 1400
    by_name = {r["mnemonic"]: r["status"] for r in rows}
    assert by_name["v_add_f32"] == "tested"             # in nearly every float kernel
    assert by_name["s_endpgm"] == "tested"
    assert by_name["image_sample_lz"] == "tested"       # read_imagef, tests/kernels/images.cl
    assert by_name["image_msaa_load"] == "missing"      # no MSAA image can be made through HSA
    for row in rows:
        assert (row["status"] == "missing") == (row["mnemonic"] not in implemented())


def test_native_column_says_what_the_native_tier_translates_and_hands_over():
    from core.isa.native.routing import handed_over, translated
    rows = classify(implemented(), suite_coverage("gfx1030"), "gfx1030", translated(), handed_over())
    native = {r["mnemonic"]: r["native"] for r in rows}
    assert native["v_add_f32"] == "translated"
    assert native["global_load_dword"] == "translated"
    callout = "translated (interpreter callout)"
    assert native["v_movrels_b32"] == callout                # M0-relative moves: the interpreter's
    assert native["image_load"] == callout                   # images: the interpreter's handlers
    assert native["buffer_load_format_xyzw"] == callout
    assert native["ds_gws_barrier"] == "interpreter only"    # GWS waits park waves: interpreter
    assert native["image_msaa_load"] == "missing"
    for row in rows:
        assert (row["native"] == "translated") == (row["mnemonic"] in translated())
        assert (row["native"] == callout) == (row["mnemonic"] in handed_over())


def test_the_native_column_of_other_targets_names_their_operations():
    from core.isa.native.routing import translated
    gfx1100 = {r["mnemonic"]: r["native"] for r in classify(implemented(), set(), "gfx1100", translated())}
    assert gfx1100["ds_load_b32"] == "translated"                 # ds_read_b32, renamed
    assert gfx1100["v_dual_mul_f32"] == "translated"              # a VOPD half
    assert gfx1100["s_delay_alu"] == "translated"
    assert gfx1100["v_wmma_f32_16x16x16_f16"] == "interpreter only"
    gfx90a = {r["mnemonic"]: r["native"] for r in classify(implemented(), set(), "gfx90a", translated())}
    assert gfx90a["v_add_u32"] == "translated"                    # v_add_nc_u32, renamed
    assert gfx90a["v_accvgpr_write_b32"] == "translated"          # AGPRs are VGPRs
    assert gfx90a["s_set_gpr_idx_on"] == "interpreter only"       # index mode: interpreter
    assert gfx90a["v_mfma_f32_32x32x8f16"] == "interpreter only"


def test_a_mnemonic_outside_the_suite_is_only_implemented():
    rows = classify({"v_add_f32", "v_sub_f32"}, {"v_add_f32"})
    status = {r["mnemonic"]: r["status"] for r in rows}
    assert (status["v_add_f32"], status["v_sub_f32"], status["v_mul_f32"]) == ("tested", "implemented", "missing")


def test_command_lists_opcodes_as_json():
    proc = subprocess.run([sys.executable, "-m", "core.cli", "isa-report", "--json", "--status", "missing"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows and all(r["status"] == "missing" for r in rows)
    assert "opcodes:" in proc.stderr


@pytest.mark.parametrize("target, tested, renamed", [
    ("gfx90a", ("v_mfma_f32_32x32x8f16", "v_accvgpr_read_b32", "v_accvgpr_write_b32",
                "v_pk_fma_f32", "global_atomic_add_f64"), "v_mov_b32"),
    ("gfx1100", ("v_wmma_f32_16x16x16_f16", "v_dual_mul_f32", "s_delay_alu", "ds_load_b32",
                 "image_sample_lz", "image_store"), "ds_load_b32"),
])
def test_other_targets_report_their_own_opcodes(target, tested, renamed):
    rows = classify(implemented(), suite_coverage(target), target)
    assert len(rows) == len(list(opcodes(target))) > 1300
    status = {r["mnemonic"]: r["status"] for r in rows}
    assert all(status[m] == "tested" for m in tested), {m: status[m] for m in tested}
    assert renamed in status and status[renamed] != "missing"
    assert ("v_dual_mul_f32" in status) == (target == "gfx1100")     # VOPD halves: gfx11 only
    assert ("image_load" in status) == (target == "gfx1100")         # gfx90a has no images


def test_a_vopd_pair_counts_both_halves():
    for path in code_objects("gfx1100"):
        pairs = [i for i in _decoded(path, "gfx1100") if i.halves]
        if pairs:
            covered = mnemonics_in(path, "gfx1100")
            assert {h.mnemonic for i in pairs for h in i.halves} <= covered
            return
    pytest.fail("no gfx1100 suite build holds a VOPD pair")


def _decoded(path, target):
    with open(path, "rb") as f:
        text = ELFFile(io.BytesIO(f.read())).get_section_by_name(".text")
    return decode_all(text.data(), text["sh_addr"], False, target)


def test_command_takes_the_target():
    proc = subprocess.run([sys.executable, "-m", "core.cli", "isa-report", "--target", "gfx90a",
                           "--status", "tested"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    assert "v_mfma_f32_32x32x8f16" in proc.stdout
    assert "gfx90a:" in proc.stderr
    bad = subprocess.run([sys.executable, "-m", "core.cli", "isa-report", "--target", "gfx906"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "gfx906" in bad.stderr


@pytest.mark.parametrize("target", ["gfx1030", "gfx90a", "gfx1100"])
def test_the_shipped_coverage_is_the_suites(target):
    """What isa-report ships as "tested" is what the suite's kernels hold today; refresh it with
    `python3 -m tests.support.coverage` when the suite changes."""
    assert shipped_coverage(target) == suite_coverage(target)


def test_command_counts_given_code_objects_as_the_evidence(tmp_path):
    from tests.support.kernels import compile_opencl
    path = compile_opencl(os.path.join(ROOT, "examples", "vector_add.cl"))
    proc = subprocess.run([sys.executable, "-m", "core.cli", "isa-report", "--json", "--status", "tested", path],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    assert {json.loads(line)["mnemonic"] for line in proc.stdout.splitlines()} == mnemonics_in(path) & implemented()


@pytest.mark.parametrize("content, reason", [(None, "No such file or directory"),
                                              (b"\x7fELF" + bytes(60), "not an AMDGPU code object of gfx1030")])
def test_command_names_a_code_object_it_cannot_read(tmp_path, content, reason):
    path = tmp_path / "kernel.co"
    if content is not None:
        path.write_bytes(content)
    proc = subprocess.run([sys.executable, "-m", "core.cli", "isa-report", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"softgpu isa-report: {path}: {reason}") and proc.stderr.count("\n") == 1
