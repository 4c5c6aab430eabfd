"""`softgpu run --capture DIR` and `softgpu replay DIR`: a dispatch saved from a real program runs
again alone, without the program, and is compared with what it did."""
import json
import os
import subprocess
import sys

import pytest

from core.capture import store
from tests.support import cprog
from tests.support.kernels import compile_opencl
from tests.support.paths import ROOT


@pytest.fixture(scope="module")
def workload():
    return cprog.build("tools_workload.c"), compile_opencl("aql_kernels.cl", opt="-O2")


def softgpu(*args, env=None):
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=env or cprog.env())


@pytest.fixture(scope="module")
def captured(workload, tmp_path_factory):
    exe, code_object = workload
    directory = tmp_path_factory.mktemp("captures")
    proc = softgpu("run", "--capture", str(directory), "--capture-kernel", "scale_*", "--", exe, code_object,
                   env=cprog.env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return directory


def test_only_the_matching_dispatches_are_captured(captured):
    folders = store.captures(str(captured))
    assert len(folders) == 3
    manifest = store.read_manifest(folders[0])
    assert manifest["kernel"]["name"] == "scale_add"
    assert manifest["dispatch"]["grid"] == [1024, 1, 1] and manifest["result"]["fault"] is None
    # The kernarg bytes hold the two buffer pointers, the scale 2.0 and n = 1024.
    kernarg = bytes.fromhex(manifest["kernarg"])
    assert kernarg[16:20] == bytes.fromhex("00000040") and int.from_bytes(kernarg[20:24], "little") == 1024


def test_replay_reproduces_each_capture(captured):
    proc = softgpu("replay", str(captured))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("identical") == 3
    for engine in ("interp", "native"):
        proc = softgpu("replay", "--engine", engine, str(captured))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.count(f"on the {engine} tier") == 3


def test_replay_names_the_first_differing_bytes(captured, tmp_path):
    folder = tmp_path / "tampered"
    subprocess.run(["cp", "-r", store.captures(str(captured))[0], str(folder)], check=True)
    manifest = store.read_manifest(str(folder))
    # The output buffer is the second kernel argument: change one float of its after-state.
    out = int.from_bytes(bytes.fromhex(manifest["kernarg"])[8:16], "little")
    start = max(r["start"] for r in manifest["ranges"] if r["start"] <= out)
    after = store.read_range(str(folder), "after", start).copy()
    after[out - start + 40] ^= 0xFF
    store.write_range(str(folder), "after", start, after)
    proc = softgpu("replay", str(folder))
    assert proc.returncode == 1
    assert f"range {start:#x}" in proc.stdout
    assert f"first difference at +{out - start + 40:#x}" in proc.stdout and "DIFFERENT" in proc.stdout


def test_a_faulting_dispatch_replays_to_the_same_fault(workload, tmp_path):
    exe, code_object = workload
    proc = softgpu("run", "--capture", str(tmp_path), "--capture-kernel", "store_through", "--", exe, code_object,
                   "fault")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder, = store.captures(str(tmp_path))
    fault = store.read_manifest(folder)["result"]["fault"]
    assert fault["status"] == "ERROR_MEMORY_APERTURE_VIOLATION" and fault["address"] == 0x10
    replayed = softgpu("replay", folder)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "identical" in replayed.stdout
    # A fault ends the dispatch before its tier reports itself: the line says so (D13).
    assert "(tier not reported: it faulted)" in replayed.stdout and "engine tier" not in replayed.stdout


@pytest.fixture(scope="module")
def faulted(workload, tmp_path_factory):
    """A capture of a dispatch that faulted (store_through writes to address 0x10)."""
    exe, code_object = workload
    directory = tmp_path_factory.mktemp("faulted")
    proc = softgpu("run", "--capture", str(directory), "--capture-kernel", "store_through", "--", exe,
                   code_object, "fault")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder, = store.captures(str(directory))
    return folder


def _tampered(folder, tmp_path, change):
    """A copy of a capture folder whose manifest's recorded result `change` edited."""
    copy = tmp_path / "tampered"
    subprocess.run(["cp", "-r", folder, str(copy)], check=True)
    manifest = store.read_manifest(str(copy))
    change(manifest["result"])
    store.write_manifest(str(copy), manifest)
    return str(copy)


def _says_different(proc, outcome):
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "DIFFERENT" in proc.stdout and "identical" not in proc.stdout
    assert f"outcome differs: {outcome}" in proc.stdout


def test_a_host_range_where_the_replay_has_memory_is_refused_naming_it(faulted, tmp_path):
    """A registered host range comes back at its captured address; where the replaying process
    already has memory (here: inside its own arena) the replay says so, in one line, exit 2."""
    copy = tmp_path / "moved"
    subprocess.run(["cp", "-r", faulted, str(copy)], check=True)
    manifest = store.read_manifest(str(copy))
    host, = [r for r in manifest["ranges"] if r["space"] != "arena"]
    arena = manifest["arena"]
    moved = arena["base"] + arena["size"] // 2
    for phase in ("before", "after"):
        if os.path.exists(store.range_path(str(copy), phase, host["start"])):
            os.rename(store.range_path(str(copy), phase, host["start"]), store.range_path(str(copy), phase, moved))
    host["start"] = moved
    store.write_manifest(str(copy), manifest)
    proc = softgpu("replay", str(copy))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert f"cannot replay: the captured {host['space']} host range {moved:#x}" in proc.stderr


def test_a_capture_that_faulted_replayed_to_completion_is_different(captured, faulted, tmp_path):
    fault = store.read_manifest(faulted)["result"]["fault"]
    folder = _tampered(store.captures(str(captured))[0], tmp_path, lambda result: result.update(fault=fault))
    _says_different(softgpu("replay", folder),
                    f"replayed completion, captured fault {fault['status']} at pc {fault['pc']:#x}")


def test_a_capture_that_completed_replayed_to_a_fault_is_different(faulted, tmp_path):
    fault = store.read_manifest(faulted)["result"]["fault"]
    folder = _tampered(faulted, tmp_path, lambda result: result.update(fault=None))
    _says_different(softgpu("replay", folder),
                    f"replayed fault {fault['status']} at pc {fault['pc']:#x}, captured completion")


def test_a_fault_replayed_with_another_status_is_different(faulted, tmp_path):
    fault = store.read_manifest(faulted)["result"]["fault"]
    folder = _tampered(faulted, tmp_path, lambda result: result["fault"].update(status="ERROR_ILLEGAL_INSTRUCTION"))
    _says_different(softgpu("replay", folder),
                    f"replayed fault {fault['status']} at pc {fault['pc']:#x}, "
                    f"captured fault ERROR_ILLEGAL_INSTRUCTION at pc {fault['pc']:#x}")


def test_a_fault_replayed_at_another_pc_is_different(faulted, tmp_path):
    fault = store.read_manifest(faulted)["result"]["fault"]
    folder = _tampered(faulted, tmp_path, lambda result: result["fault"].update(pc=fault["pc"] + 4))
    _says_different(softgpu("replay", folder),
                    f"replayed fault {fault['status']} at pc {fault['pc']:#x}, "
                    f"captured fault {fault['status']} at pc {fault['pc'] + 4:#x}")


def test_a_fault_replayed_with_different_bytes_is_different(faulted, tmp_path):
    """The same fault, but memory the dispatch left differs: the bytes count as well."""
    copy = _tampered(faulted, tmp_path, lambda result: None)
    manifest = store.read_manifest(copy)
    start = manifest["ranges"][0]["start"]
    after = store.read_range(copy, "after", start).copy()
    after[0] ^= 0x5A
    store.write_range(copy, "after", start, after)
    proc = softgpu("replay", copy)
    assert proc.returncode == 1 and "DIFFERENT" in proc.stdout, proc.stdout + proc.stderr
    assert f"range {start:#x}" in proc.stdout and "first difference at +0x0" in proc.stdout


def test_a_faulting_capture_replays_identical(faulted):
    proc = softgpu("replay", faulted)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "identical" in proc.stdout and "DIFFERENT" not in proc.stdout and "differs" not in proc.stdout


def test_a_dispatch_over_the_limit_is_skipped_with_a_message(workload, tmp_path):
    exe, code_object = workload
    proc = softgpu("run", "--capture", str(tmp_path), "--", exe, code_object,
                   env=cprog.env(SOFTGPU_CAPTURE_LIMIT=4096))
    assert proc.returncode == 0
    assert "not capturing scale_add" in proc.stderr and "SOFTGPU_CAPTURE_LIMIT=4096" in proc.stderr
    assert store.captures(str(tmp_path)) == []


def test_replay_of_a_folder_without_captures_fails(tmp_path):
    proc = softgpu("replay", str(tmp_path))
    assert proc.returncode == 2 and "holds no capture" in proc.stderr


def test_a_capture_of_another_format_is_refused(captured, tmp_path):
    folder = tmp_path / "future"
    subprocess.run(["cp", "-r", store.captures(str(captured))[0], str(folder)], check=True)
    path = folder / store.MANIFEST
    manifest = json.loads(path.read_text())
    manifest["format"] = store.FORMAT + 1
    path.write_text(json.dumps(manifest))
    proc = softgpu("replay", str(folder))
    assert proc.returncode == 2
    assert f"capture format {store.FORMAT + 1}, this SoftGPU reads {store.FORMAT}" in proc.stderr
