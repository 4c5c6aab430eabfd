"""`softgpu run --timeline/--stats/--stats-csv`, SOFTGPU_TIMELINE and `softgpu timeline`: what
a user opens in Perfetto and what scripts written for rocprof read, checked against what the
workload (tests/c/tools_workload.c) really did."""
import csv
import json
import os
import subprocess
import sys

import pytest

from core import timeline
from core.timeline import QUEUE_TRACK_BASE
from tests.support import cprog
from tests.support.kernels import compile_opencl
from tests.support.paths import ROOT


@pytest.fixture(scope="module")
def workload():
    return cprog.build("tools_workload.c"), compile_opencl("aql_kernels.cl", opt="-O2")


def softgpu(*args, env=None):
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=env)


@pytest.fixture(scope="module")
def traced_run(workload, tmp_path_factory):
    exe, code_object = workload
    out = tmp_path_factory.mktemp("timeline")
    paths = {name: str(out / name) for name in ("timeline.json", "trace.jsonl", "stats.csv")}
    env = cprog.env(SOFTGPU_QUEUE_ERRORS="continue")
    proc = softgpu("run", "--timeline", paths["timeline.json"], "--trace", paths["trace.jsonl"], "--stats",
                   "--stats-csv", paths["stats.csv"], "--", exe, code_object, "fault", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc, paths


def slices(events, category):
    return [e for e in events if e["ph"] == "X" and e["cat"] == category]


def track_names(events):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}


def test_each_dispatch_is_a_slice_of_its_queue_track(traced_run):
    _, paths = traced_run
    events = timeline.load(paths["timeline.json"])
    names = track_names(events)
    dispatches = slices(events, "dispatch")
    assert [d["name"] for d in dispatches] == ["scale_add"] * 3 + ["count_items"]
    for d in dispatches:
        assert names[(d["pid"], d["tid"])] == "queue 0"
        assert d["args"]["grid"] == [1024, 1, 1] if d["name"] == "scale_add" else [256, 1, 1]
        assert d["args"]["waves"] > 0 and d["args"]["lane_instructions"] > 0 and d["args"]["tier"]
        # The slice spans the engine's own measurement of the dispatch.
        assert d["dur"] >= d["args"]["seconds"] * 1e6
    # One queue runs one packet at a time: its slices never overlap, in submission order.
    ends = [d["ts"] + d["dur"] for d in dispatches]
    assert all(ends[i] <= dispatches[i + 1]["ts"] for i in range(len(dispatches) - 1))


def test_barrier_waits_copies_and_api_calls_have_their_tracks(traced_run):
    _, paths = traced_run
    events = timeline.load(paths["timeline.json"])
    names = track_names(events)
    barrier, = slices(events, "barrier")
    assert barrier["name"] == "barrier-AND wait" and names[(barrier["pid"], barrier["tid"])] == "queue 0"
    copies = slices(events, "async")
    assert [(c["args"]["bytes"], c["args"]["direction"]) for c in copies] == [(4096, "HostToDevice"),
                                                                              (4096, "DeviceToHost")]
    assert all(names[(c["pid"], c["tid"])].startswith("async copy worker") for c in copies)
    assert copies[0]["ts"] + copies[0]["dur"] <= copies[1]["ts"]       # the second waited for the first
    calls = slices(events, "api")
    assert {"hsa_init", "hsa_queue_create", "hsa_amd_memory_async_copy", "hsa_shut_down"} <= {c["name"] for c in calls}
    host_tracks = {names[(c["pid"], c["tid"])] for c in calls}
    assert len(host_tracks) == 1 and host_tracks.pop().startswith("host thread")
    # API slices of one thread nest or follow each other; the dispatches lie inside the run.
    first_init = min(c["ts"] for c in calls if c["name"] == "hsa_init")
    last_shutdown = max(c["ts"] for c in calls if c["name"] == "hsa_shut_down")
    assert all(first_init < d["ts"] < last_shutdown for d in slices(events, "dispatch"))


def test_a_fault_is_an_instant_event_with_its_report(traced_run):
    _, paths = traced_run
    events = timeline.load(paths["timeline.json"])
    fault, = [e for e in events if e["ph"] == "i" and e["cat"] == "queue_error"]
    report = fault["args"]["report"]
    assert fault["name"].startswith("fault: ") and report["kernel"] == "store_through"
    assert report["address"] == 0x10 and report["instruction"].startswith("global_store")
    assert fault["tid"] >= QUEUE_TRACK_BASE


def test_stats_table_and_rocprof_csv(traced_run):
    proc, paths = traced_run
    table = proc.stderr[proc.stderr.index("kernel statistics"):]
    rows = {line.split()[0]: line.split() for line in table.splitlines()[3:] if line.strip()}
    assert rows["scale_add"][1] == "3" and rows["count_items"][1] == "1"
    assert rows["store_through"][-1] == "1"         # one fault
    with open(paths["stats.csv"]) as f:
        header = f.readline().strip()
        assert header == '"Name","Calls","TotalDurationNs","AverageNs","Percentage"'
        f.seek(0)
        parsed = {r["Name"]: r for r in csv.DictReader(f)}
    assert parsed["scale_add"]["Calls"] == "3"
    trace = timeline.read_trace(paths["trace.jsonl"])
    spans = [r for r in trace if r["event"] == "dispatch" and r["kernel"] == "scale_add"]
    compiles = [r for r in trace if r["event"] == "native_compile"]
    # Kernel time is the tier's own measurement less translation within the span; the rest
    # of each span is set-up, reported apart in the table.
    total = sum(min(r["end"] - r["start"], int(r["seconds"] * 1e9))
                - sum(int(c["seconds"] * 1e9) for c in compiles if r["start"] <= c["t"] <= r["end"])
                for r in spans)
    assert int(parsed["scale_add"]["TotalDurationNs"]) == total
    assert int(parsed["scale_add"]["AverageNs"]) == total // 3
    setup_ms = float(rows["scale_add"][5])
    assert abs(setup_ms * 1e6 - (sum(r["end"] - r["start"] for r in spans) - total)) < 1e3
    assert abs(sum(float(r["Percentage"]) for r in parsed.values()) - 100.0) < 1e-3


def test_timeline_command_converts_a_trace_as_run_does(traced_run, tmp_path):
    _, paths = traced_run
    converted = tmp_path / "converted.json"
    proc = softgpu("timeline", paths["trace.jsonl"], "-o", str(converted))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(converted.read_text()) == json.loads(open(paths["timeline.json"]).read())


def test_softgpu_timeline_variable_streams_an_openable_file(workload, tmp_path):
    exe, code_object = workload
    path = tmp_path / "streamed.json"
    proc = subprocess.run([exe, code_object], env=cprog.env(SOFTGPU_TIMELINE=path), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    events = timeline.load(str(path))
    assert [d["name"] for d in slices(events, "dispatch")] == ["scale_add"] * 3 + ["count_items"]


def test_run_without_reports_keeps_the_programs_exit_status(workload):
    exe, _ = workload
    # No code object: the program fails on its own; run --stats passes its status through.
    proc = softgpu("run", "--stats", "--", "sh", "-c", "exit 3")
    assert proc.returncode == 3
    assert "(no kernel was dispatched)" in proc.stderr
    assert os.path.exists(exe)
