"""Every kernel fault is reported the same way (issue 23, D12) — memory, trap, illegal
instruction; with a queue error callback or without; on both tiers: one stderr line naming
kernel, PC, instruction, workgroup, wave, lane and address, then the flight recorder's last
events before it (always on, no trace file needed). The whole ring can be written to
SOFTGPU_FLIGHT_RECORDER at every queue error, before ROCr's abort."""
import json

import pytest

from core import trace
from tests.support import cprog
from tests.support.kernels import compile_hip, compile_opencl

KINDS = {   # kind: (kernel, status the callback gets, what the report says)
    "memory": ("load_through", 0x29, "lane=0, address=0x10, reason=access outside every live allocation"),
    "trap": ("trap_now", 0x1016, "reason=s_trap 2: the kernel trapped"),
    # A call into data: the interpreter decodes what it finds there, the translator finds no
    # code at the target.
    "illegal": ("call_through", 0x2a, {"interp": "reason=undecodable instruction",
                                       "native": "reason=the program counter left the code object"}),
}


@pytest.fixture(scope="module")
def code_object():
    return compile_hip("fault_kinds.hip")


@pytest.mark.parametrize("engine", ["interp", "native"])
@pytest.mark.parametrize("callback", ["callback", "none"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_fault_kind_gets_the_same_report(code_object, kind, callback, engine):
    kernel, status, detail = KINDS[kind]
    detail = detail[engine] if isinstance(detail, dict) else detail
    proc = cprog.run("fault_reports.c", code_object, kind, callback, timeout=300, SOFTGPU_ENGINE=engine)
    if callback == "callback":
        assert proc.returncode == 0 and proc.stdout == f"callback status={status:#x}\n", proc.stderr
    else:
        assert proc.returncode == -6, proc.stdout + proc.stderr        # ROCr's abort
    report, = [line for line in proc.stderr.splitlines() if line.startswith(f"softgpu: kernel={kernel}, pc=0x")]
    for field in ("instruction=", "workgroup=(0, 0, 0)", "wave=0", "lane=", "address=", detail):
        assert field in report, report
    recorder = proc.stderr.split("the last events before it (flight recorder):\n", 1)[1].splitlines()
    assert any("api: api=hsa_queue_create, status=0" in line for line in recorder), proc.stderr
    assert any(f"dispatch_start: queue=0, dispatch_id=0, kernel={kernel}," in line for line in recorder)
    assert not any("queue_error" in line for line in recorder), "the events before the fault"


def test_the_whole_ring_is_written_where_asked_at_a_queue_error(code_object, tmp_path):
    dump = tmp_path / "flight.jsonl"
    proc = cprog.run("fault_reports.c", code_object, "trap", "none", timeout=300,
                     SOFTGPU_FLIGHT_RECORDER=dump)
    assert proc.returncode == -6, proc.stdout + proc.stderr
    events = [json.loads(line) for line in dump.read_text().splitlines()]
    assert events[-1]["event"] == "queue_error" and events[-1]["report"]["kernel"] == "trap_now"
    assert {"hsa_init", "hsa_queue_create"} <= {e.get("api") for e in events}


def test_no_dump_without_a_queue_error(code_object, tmp_path):
    """The same program whose kernel does not fault writes nothing there."""
    dump = tmp_path / "flight.jsonl"
    proc = cprog.run("queue_internal_error.c", compile_opencl("robustness.cl", opt="-O2"), tmp_path, "keep", "none",
                     timeout=300, SOFTGPU_FLIGHT_RECORDER=dump)
    assert proc.returncode == 0 and proc.stdout == "completed seen=1\n", proc.stderr
    assert not dump.exists()


def test_the_ring_keeps_exactly_its_last_events():
    for i in range(trace.RING_EVENTS + 1):          # one past the ring's size
        trace.note("probe", i=i)
    probes = [e for e in trace.recent() if e["event"] == "probe"]
    assert len(trace.recent()) == trace.RING_EVENTS
    assert [e["i"] for e in probes] == list(range(1, trace.RING_EVENTS + 1))
    assert [e["i"] for e in trace.recent(2)] == [trace.RING_EVENTS - 1, trace.RING_EVENTS]


def test_dump_on_demand_writes_json_lines(tmp_path):
    trace.note("probe", i=-1)
    trace.dump(tmp_path / "ring.jsonl", count=1)
    record, = [json.loads(line) for line in (tmp_path / "ring.jsonl").read_text().splitlines()]
    assert record["event"] == "probe" and record["i"] == -1 and record["thread"] > 0


def test_a_queue_errors_events_before_it_do_not_nest_earlier_reports():
    """A queue error carries the events before it, where an earlier queue error comes without
    its own: nested, every fault of a process would hold the reports of all earlier ones, and
    printing them grew with each fault (a fuzzer's run slowed to a stop)."""
    trace.note("queue_error", queue=1, recent=[{"event": "before the first"}])
    trace.note("probe", i=0)
    flat = trace.recent(2, nested=False)
    assert [e["event"] for e in flat] == ["queue_error", "probe"]
    assert "recent" not in flat[0] and flat[0]["queue"] == 1
    assert trace.recent(2)[0]["recent"] == [{"event": "before the first"}]     # the ring keeps it
