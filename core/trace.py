"""Structured trace: JSON lines for tests and tools, and a Chrome/Perfetto timeline for people.

SOFTGPU_TRACE=path appends JSON lines; SOFTGPU_TIMELINE=path streams the same events as a
trace-event file (core.timeline) that ui.perfetto.dev and chrome://tracing open. Events:
`call` (API calls that change state), `api` (every Python-side export, with its start and
end), `error`, `unsupported`, `internal` (a bug caught at the ABI edge), and the `dispatch`,
`barrier`, `async`, `packet` and `queue_error` events of the queues and copy workers.

Holds these invariants:
- writes are serialized by one lock, so lines from several threads never interleave;
- events that span time carry `start` and `end` (monotonic ns, the clock of `t`), so a
  timeline can be rebuilt from the JSON lines alone;
- a trace that cannot be written (a full disk) is reported once on stderr and stops: it never
  fails the call or the packet being recorded;
- with neither variable set, `enabled()` is False and an event costs one dictionary lookup
  (json and traceback are imported only when something is written);
- the flight recorder is always on, with or without a trace file: the last RING_EVENTS events
  (`note()` and every `event()`) stay in a bounded in-memory ring, cheap enough to leave on
  (a tuple appended to a deque); `recent()` reads it, `dump()` writes it as JSON lines, and a
  fault report carries its last events (core.aql.processor).
"""
import collections
import os
import sys
import threading
import time

from core import settings

_lock = threading.Lock()
_file = None
_opened_for = None
_timeline = None
_timeline_for = None
_stopped = False            # a write failed: recording stopped for the rest of the process


RING_EVENTS = 512              # as the original SoftGPU core's flight recorder
# (t, thread, kind, fields); deque.append is atomic, so notes need no lock. The thread is
# threading.get_ident(): get_native_id() is a system call, 500 ns of a note's 850 measured.
_ring = collections.deque(maxlen=RING_EVENTS)


def note(kind, /, **fields):
    """Record an event in the flight recorder only: for what happens too often to write to a
    trace file unasked (every API call, every dispatch), but tells what led to a fault."""
    _ring.append((time.monotonic_ns(), threading.get_ident(), kind, fields))


def recent(count=RING_EVENTS, nested=True):
    """The flight recorder's last `count` events, oldest first, as trace records; with
    nested=False without the `recent` records an event carries (a queue error's)."""
    events = list(_ring)[-count:] if count > 0 else []
    return [{"t": t, "event": kind, "thread": thread,
             **({k: v for k, v in fields.items() if k != "recent"} if not nested else fields)}
            for t, thread, kind, fields in events]


def dump(path=None, count=RING_EVENTS):
    """Write the flight recorder's last events as JSON lines to `path` (default: stderr)."""
    import json
    lines = "".join(json.dumps(record, default=str) + "\n" for record in recent(count))
    if path is None:
        sys.stderr.write(lines)
        sys.stderr.flush()
    else:
        with open(path, "w") as f:
            f.write(lines)


def format_records(records):
    """Flight-recorder records (recent()), one short line each (for a fault report on stderr)."""
    out = []
    for record in records:
        fields = ", ".join(f"{k}={v}" for k, v in record.items() if k not in ("t", "event", "thread"))
        line = f"  t={record['t']} thread={record['thread']:#x} {record['event']}: {fields}"
        out.append(line if len(line) <= 240 else line[:237] + "...")
    return "\n".join(out)


def enabled():
    """True when events are recorded (callers skip measuring and building fields otherwise)."""
    return not _stopped and bool(settings.get("SOFTGPU_TRACE") or settings.get("SOFTGPU_TIMELINE"))


def _sink():
    global _file, _opened_for
    path = settings.get("SOFTGPU_TRACE")
    if path != _opened_for:
        _file = _reopen(_file, path and (lambda: open(path, "a", buffering=1)), "SOFTGPU_TRACE", path)
        _opened_for = path
    return _file


def _timeline_sink():
    global _timeline, _timeline_for
    path = settings.get("SOFTGPU_TIMELINE")
    if path != _timeline_for:
        from core.timeline import TimelineWriter
        _timeline = _reopen(_timeline, path and (lambda: TimelineWriter(path)), "SOFTGPU_TIMELINE", path)
        _timeline_for = path
    return _timeline


def _reopen(current, make, name, path):
    """Close `current` (the variable naming the file changed) and make the new sink, if any.
    A file that cannot be opened records nothing, and says so once (hsa_init may have said
    it already: settings.reported)."""
    if current is not None:
        current.close()
    try:
        return make() if make else None
    except OSError as e:
        if name not in settings.reported:
            settings.reported.add(name)
            sys.stderr.write(f"softgpu: {name}={path!r}: cannot write it: {e.strerror} (not recording)\n")
        return None


def event(kind, /, **fields):
    note(kind, **fields)
    if not enabled():
        return
    import json                 # here: hsa_init, which records nothing, should not import it
    with _lock:
        record = {"t": time.monotonic_ns(), "event": kind, "thread": threading.get_ident(),
                  "tid": threading.get_native_id(), "pid": os.getpid()}
        record.update(fields)
        try:
            sink = _sink()
            if sink is not None:
                sink.write(json.dumps(record, default=str) + "\n")
            timeline = _timeline_sink()
            if timeline is not None:
                timeline.add(record)
        except OSError as error:
            _stop_recording(error)


def _stop_recording(error):
    """A trace that cannot be written (a disk full, a file gone) must not fail the calls and
    packets it records: it is reported once and recording stops, the program goes on."""
    global _file, _timeline, _stopped
    sys.stderr.write(f"softgpu: the trace cannot be written ({error}); recording stops\n")
    for sink in (_file, _timeline):
        try:
            if sink is not None:
                sink.close()
        except OSError:
            pass
    _file = _timeline = None
    _stopped = True


def span(kind, start, /, **fields):
    """An event that began at `start` (time.monotonic_ns()) and ends now."""
    event(kind, start=start, end=time.monotonic_ns(), **fields)


def close():
    """Finish the timeline file (its closing bracket); the JSON-lines file needs nothing."""
    global _timeline, _timeline_for
    with _lock:
        if _timeline is not None:
            _timeline.close()
        _timeline = None
        _timeline_for = None


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
    if settings.get("SOFTGPU_INTERNAL_ERRORS") == "abort":
        # For fuzzing: the bug becomes a crash, so the fuzzer keeps the input that found it.
        sys.stderr.write(f"softgpu: internal error in {api}:\n{text}")
        sys.stderr.flush()
        os.abort()
    if not settings.get("SOFTGPU_QUIET"):
        # The type and str(): an OSError's repr leaves out the path it failed on.
        sys.stderr.write(f"softgpu: internal error in {api}: {type(exc).__name__}: {exc}\n")
