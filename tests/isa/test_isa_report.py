"""`softgpu isa-report` tells users exactly which gfx1030 opcodes run."""
import json
import subprocess

from core.isa.interp.registry import implemented
from core.isa.report import classify, opcodes, suite_coverage
from tests.support.paths import ROOT


def test_every_opcode_has_exactly_one_status():
    rows = classify(implemented(), suite_coverage())
    assert len(rows) == len(list(opcodes())) > 1400
    by_name = {r["mnemonic"]: r["status"] for r in rows}
    assert by_name["v_add_f32"] == "tested"             # in nearly every float kernel
    assert by_name["s_endpgm"] == "tested"
    assert by_name["image_load"] == "missing"           # MIMG does not run
    for row in rows:
        assert (row["status"] == "missing") == (row["mnemonic"] not in implemented())


def test_native_column_says_what_the_native_tier_translates():
    from core.isa.native.families import translated
    rows = classify(implemented(), suite_coverage(), translated())
    native = {r["mnemonic"]: r["native"] for r in rows}
    assert native["v_add_f32"] == "translated"
    assert native["global_load_dword"] == "translated"
    assert native["v_movrels_b32"] == "interpreter only"     # M0-relative moves: interpreter
    assert native["image_load"] == "missing"
    for row in rows:
        assert (row["native"] == "translated") == (row["mnemonic"] in translated())


def test_a_mnemonic_outside_the_suite_is_only_implemented():
    rows = classify({"v_add_f32", "v_sub_f32"}, {"v_add_f32"})
    status = {r["mnemonic"]: r["status"] for r in rows}
    assert (status["v_add_f32"], status["v_sub_f32"], status["v_mul_f32"]) == ("tested", "implemented", "missing")


def test_command_lists_opcodes_as_json():
    proc = subprocess.run(["python3", "-m", "core.cli", "isa-report", "--json", "--status", "missing"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=True)
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows and all(r["status"] == "missing" for r in rows)
    assert "opcodes:" in proc.stderr
