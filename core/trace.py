"""Structured trace: JSON lines for people (timelines) and for tests.

SOFTGPU_TRACE=path turns it on. Events: `call` (API calls that change state),
`error` (an export answered with an error status), `unsupported` (an export
SoftGPU does not implement), `internal` (a bug caught at the ABI edge), and the
packet and dispatch events of the queues. Writes are serialized by one lock, so
lines from several threads never interleave. With tracing off an event costs one
environment lookup (json and traceback are imported only when something is written).
"""
import os
import sys
import threading
import time

_lock = threading.Lock()
_file = None
_opened_for = None


def _sink():
    global _file, _opened_for
    path = os.environ.get("SOFTGPU_TRACE")
    if path != _opened_for:
        if _file is not None:
            _file.close()
        _file = open(path, "a", buffering=1) if path else None
        _opened_for = path
    return _file


def enabled():
    """Whether events are recorded (SOFTGPU_TRACE may be set or unset while the process runs)."""
    return bool(os.environ.get("SOFTGPU_TRACE"))


def event(kind, **fields):
    if _file is None and not enabled():
        return
    import json
    with _lock:
        sink = _sink()
        if sink is None:
            return
        record = {"t": time.monotonic_ns(), "event": kind, "thread": threading.get_ident()}
        record.update(fields)
        sink.write(json.dumps(record, default=str) + "\n")


def call(api, **fields):
    event("call", api=api, **fields)


def error(api, status, message):
    event("error", api=api, status=int(status), status_name=getattr(status, "name", str(status)),
          message=message)


def unsupported(api):
    event("unsupported", api=api)


def internal_error(api, exc):
    """A Python exception reached the ABI edge: always reported, since it is a SoftGPU bug."""
    import traceback
    text = "".join(traceback.format_exception(exc))
    event("internal", api=api, error=repr(exc), traceback=text)
    if os.environ.get("SOFTGPU_INTERNAL_ERRORS") == "abort":
        # For fuzzing: the bug becomes a crash, so the fuzzer keeps the input that found it.
        sys.stderr.write(f"softgpu: internal error in {api}:\n{text}")
        sys.stderr.flush()
        os.abort()
    if os.environ.get("SOFTGPU_QUIET") != "1":
        sys.stderr.write(f"softgpu: internal error in {api}: {exc!r}\n")
