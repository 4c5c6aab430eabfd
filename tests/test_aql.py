"""Unmodified HSA programs dispatch real kernels through AQL queues (C tests)."""
import json
import os

import pytest

from tests.support import cprog
from tests.support.kernels import compile_opencl
from tests.support.paths import ROOT


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl("aql_kernels.cl", opt="-O2")


@pytest.mark.parametrize("test", ["dispatch", "barrier_and", "barrier_or", "barrier_dependency_values", "barrier_value",
                                  "destroy_while_waiting", "ring_wraps", "threads",
                                  "independent_queues", "destroy_stops_dispatch"])
def test_packets(code_object, test):
    cprog.check("aql_dispatch.c", code_object, test, timeout=600)


@pytest.mark.parametrize("case", ["packet_type", "agent_dispatch", "fence_scope", "zero_grid",
                                  "zero_dimensions", "oversized_workgroup", "group_segment",
                                  "unknown_kernel", "memory_fault", "trap", "dependency_destroyed",
                                  "grid_max", "grid_max_3d", "grid_past_max_3d",
                                  "grid_wraps_64_bits"])
def test_packet_errors_reach_the_error_callback(code_object, case):
    cprog.check("aql_errors.c", code_object, case, timeout=300)


def _events(trace):
    return [json.loads(line) for line in trace.read_text().splitlines()]


def test_the_packet_group_segment_is_static_plus_dynamic_lds(code_object, tmp_path):
    """24 KiB static + dynamic LDS: the packet's size (symbol's static size + dynamic bytes)
    is the whole request, not added to the static size again."""
    trace = tmp_path / "trace.jsonl"
    cprog.check("aql_lds.c", code_object, "static_dynamic", timeout=300, SOFTGPU_TRACE=trace)
    assert not [e for e in _events(trace) if e["event"] == "launch_warning"]


def test_a_group_segment_below_the_kernels_static_lds_runs_as_on_a_gpu(code_object, tmp_path):
    """The CP allocates what the packet asks: LDS reads past it give 0. SoftGPU says so."""
    trace = tmp_path / "trace.jsonl"
    proc = cprog.check("aql_lds.c", code_object, "too_small", timeout=300, SOFTGPU_TRACE=trace)
    assert "lds_static_dynamic uses" in proc.stderr and "group_segment_size is 0" in proc.stderr
    warning, = [e for e in _events(trace) if e["event"] == "launch_warning"]
    assert warning["kernel"] == "lds_static_dynamic" and warning["group_segment_size"] == 0
    assert warning["static_group_segment_size"] >= 6144 * 4


def _with_lds(tmp_path, lds):
    """The environment of a gfx1030 machine whose GPU holds `lds` bytes of LDS (None: 64 KiB,
    the board's own; 160 KiB is the MI355X's, a size that is no power of two)."""
    if lds is None:
        return {}
    with open(os.path.join(ROOT, "profiles", "gfx1030.json")) as f:
        data = json.load(f)
    data["gpu"]["lds_bytes"] = lds
    path = tmp_path / "lds.json"
    path.write_text(json.dumps(data))
    return {"SOFTGPU_PROFILE": str(path)}


@pytest.mark.parametrize("lds", [None, 160 * 1024])
def test_a_group_segment_of_exactly_the_agents_lds_runs(code_object, tmp_path, lds):
    trace = tmp_path / "trace.jsonl"
    cprog.check("aql_lds.c", code_object, "at_limit", str(lds or 65536), timeout=300,
                SOFTGPU_TRACE=trace, **_with_lds(tmp_path, lds))
    assert not [e for e in _events(trace) if e["event"] in ("launch_warning", "queue_error")]


@pytest.mark.parametrize("lds", [None, 160 * 1024])
def test_a_group_segment_one_byte_past_the_agents_lds_is_refused(code_object, tmp_path, lds):
    trace = tmp_path / "trace.jsonl"
    cprog.check("aql_lds.c", code_object, "one_past", str(lds or 65536), timeout=300,
                SOFTGPU_TRACE=trace, **_with_lds(tmp_path, lds))
    error, = [e for e in _events(trace) if e["event"] == "queue_error"]
    assert error["status_name"] == "ERROR_INVALID_ALLOCATION"
    assert f"{(lds or 65536) + 1} bytes of group segment" in error["report"]["reason"]


def test_a_group_segment_larger_than_the_agent_holds_names_the_kernel(code_object, tmp_path):
    trace = tmp_path / "trace.jsonl"
    cprog.check("aql_lds.c", code_object, "too_large", timeout=300, SOFTGPU_TRACE=trace)
    error, = [e for e in _events(trace) if e["event"] == "queue_error"]
    report = error["report"]
    assert error["status_name"] == "ERROR_INVALID_ALLOCATION"
    assert report["kernel"] == "lds_static_dynamic"
    assert report["pc"] and report["instruction"]         # the kernel's entry and first instruction
    assert "65540 bytes of group segment" in report["reason"]


def test_unhandled_fault_aborts_like_rocr(code_object, tmp_path):
    """No error callback: the fault is reported on stderr and the process aborts."""
    proc = cprog.run("aql_unhandled.c", code_object, timeout=300)
    assert proc.returncode < 0 or proc.returncode == 134, proc.stdout + proc.stderr
    assert "MEMORY_APERTURE_VIOLATION" in proc.stderr
    assert "store_through" in proc.stderr


def test_system_event_handler_takes_the_memory_fault(code_object):
    """A registered system event handler sees the fault (agent, address, reason) and
    handles it: the process goes on, as under ROCr."""
    proc = cprog.run("aql_unhandled.c", code_object, "handler", timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED" in proc.stdout


def test_unhandled_fault_can_be_recorded_instead(code_object, tmp_path):
    trace = tmp_path / "trace.jsonl"
    proc = cprog.run("aql_unhandled.c", code_object, timeout=300,
                     SOFTGPU_QUEUE_ERRORS="continue", SOFTGPU_TRACE=trace)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "MEMORY_APERTURE_VIOLATION" in proc.stderr
    assert '"queue_error"' in trace.read_text()


@pytest.mark.parametrize("test", ["ordered", "errors", "rect", "function", "profiling"])
def test_async_copies_functions_and_profiling(code_object, test):
    cprog.check("async_ops.c", code_object, test, timeout=300)


def test_async_copy_from_memory_unmapped_meanwhile_fails_cleanly(code_object, tmp_path):
    trace = tmp_path / "trace.jsonl"
    proc = cprog.check("async_ops.c", code_object, "vanished", timeout=300, SOFTGPU_TRACE=trace)
    assert "asynchronous copy failed" in proc.stderr
    assert '"async_fault"' in trace.read_text()
