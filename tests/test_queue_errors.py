"""Whatever fails inside packet processing becomes that queue's error (issue 23, D3): the
error callback with HSA_STATUS_ERROR, or with no callback ROCr's abort with the reason on
stderr — never a packet processor that stops and leaves the host waiting. The failure here is
a real route no setting can foresee: the capture directory replaced by a file after hsa_init."""
import pytest

from tests.support import cprog
from tests.support.kernels import compile_opencl

TIERS = ["interp", "native"]


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl("robustness.cl", opt="-O2")


def _run(code_object, tmp_path, what, callback, engine):
    capture = tmp_path / "captures"
    capture.mkdir()
    return cprog.run("queue_internal_error.c", code_object, capture, what, callback, timeout=300,
                     SOFTGPU_CAPTURE=capture, SOFTGPU_ENGINE=engine)


@pytest.mark.parametrize("engine", TIERS)
def test_a_failed_capture_calls_the_queues_error_callback(code_object, tmp_path, engine):
    proc = _run(code_object, tmp_path, "block", "callback", engine)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The packet is neither run nor completed, as ROCr leaves a failed queue's packets.
    assert proc.stdout == "callback status=0x1000 same_queue=1 completion=1 seen=0\n", proc.stderr
    assert "internal error" in proc.stderr and "captures" in proc.stderr


@pytest.mark.parametrize("engine", TIERS)
def test_a_failed_capture_without_a_callback_aborts_with_the_reason(code_object, tmp_path, engine):
    proc = _run(code_object, tmp_path, "block", "none", engine)
    assert proc.returncode == -6, proc.stdout + proc.stderr
    assert "queue 0 error ERROR: internal error" in proc.stderr
    assert "captures" in proc.stderr
    recorder = proc.stderr.split("the last events before it (flight recorder):\n", 1)[1]
    assert "dispatch_start: queue=0, dispatch_id=0, kernel=spin_until" in recorder


@pytest.mark.parametrize("callback", ["callback", "none"])
def test_a_failure_whose_report_fails_too_still_fails_the_queue(code_object, tmp_path, callback):
    """stderr on a full disk: the report of the internal error fails as well, and the queue
    still gets its callback, or without one the process still aborts (no silent stop)."""
    capture = tmp_path / "captures"
    capture.mkdir()
    proc = cprog.run("queue_internal_error.c", code_object, capture, "block", callback, "stderr-full",
                     timeout=120, SOFTGPU_CAPTURE=capture, SOFTGPU_ENGINE="native")
    if callback == "callback":
        assert proc.returncode == 0, proc.stdout
        assert proc.stdout == "callback status=0x1000 same_queue=1 completion=1 seen=0\n"
    else:
        assert proc.returncode == -6, proc.stdout


@pytest.mark.parametrize("callback", ["callback", "none"])
def test_the_same_capture_into_a_directory_completes(code_object, tmp_path, callback):
    proc = _run(code_object, tmp_path, "keep", callback, "native")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "completed seen=1\n", proc.stderr
    assert list((tmp_path / "captures").iterdir()), "the dispatch was captured"


def test_a_trace_on_a_full_disk_stops_recording_and_fails_nothing(code_object, tmp_path):
    """/dev/full: every write fails with ENOSPC, as on a full disk."""
    capture = tmp_path / "captures"
    capture.mkdir()
    proc = cprog.run("queue_internal_error.c", code_object, capture, "keep", "callback", timeout=300,
                     SOFTGPU_CAPTURE=capture, SOFTGPU_TRACE="/dev/full")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "completed seen=1\n", proc.stderr
    assert proc.stderr.count("the trace cannot be written") == 1, proc.stderr
