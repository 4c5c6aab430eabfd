"""Timelines: SoftGPU's trace events as Chrome/Perfetto trace-event JSON.

ui.perfetto.dev and chrome://tracing open the output. Holds three invariants:
- every queue is one track (a slice per dispatch — kernel name, grid, workgroup, waves,
  lane-instructions, engine tier — and per barrier wait; faults as instant events with their
  report), every async-copy worker thread one track (a slice per copy: bytes, direction),
  every host thread one track (a slice per API call; other events as instants);
- times are microseconds of the trace's monotonic clock, slices carry the `start`/`end` the
  trace recorded, so a slice's duration is the dispatch's or copy's measured duration;
- the conversion is incremental: TimelineWriter streams the JSON array form (whose closing
  bracket the format makes optional, so a process that never shuts down still leaves an
  openable file) and `convert` builds the object form from a JSON-lines trace.
"""
import json

# Queue tracks get synthetic thread ids far above Linux's (pid_max is at most 2^22).
QUEUE_TRACK_BASE = 1 << 30
SLICE_EVENTS = {"api", "dispatch", "barrier", "async"}
INSTANT_FAULTS = {"queue_error", "async_fault"}


class Timeline:
    """Turns trace records (dicts as core.trace writes them) into trace events."""

    def __init__(self):
        self._named = set()

    def events(self, record):
        kind = record.get("event")
        pid = record.get("pid", 0)
        track, track_name, order = self._track(record)
        out = []
        if (pid, track) not in self._named:
            self._named.add((pid, track))
            out.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": track,
                        "args": {"name": track_name}})
            out.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": track,
                        "args": {"sort_index": order}})
        if kind in SLICE_EVENTS and "start" in record and "end" in record:
            out.append({"ph": "X", "name": _slice_name(record), "cat": kind, "pid": pid, "tid": track,
                        "ts": record["start"] / 1000, "dur": max(record["end"] - record["start"], 0) / 1000,
                        "args": _args(record)})
        else:
            name = kind if kind not in INSTANT_FAULTS else f"fault: {_fault_reason(record)}"
            out.append({"ph": "i", "s": "t", "name": name, "cat": kind, "pid": pid, "tid": track,
                        "ts": record.get("t", 0) / 1000, "args": _args(record)})
        return out

    @staticmethod
    def _track(record):
        """(thread id, track name, sort order): queues first, then copy workers, then host."""
        kind = record.get("event")
        if "queue" in record and kind != "api":
            return QUEUE_TRACK_BASE + int(record["queue"]), f"queue {record['queue']}", 0
        tid = int(record.get("tid") or 0)
        if kind in ("async", "async_fault"):
            return tid, f"async copy worker {tid}", 1
        return tid, f"host thread {tid}", 2


def _slice_name(record):
    kind = record["event"]
    if kind == "dispatch":
        return record.get("kernel") or "kernel"
    if kind == "barrier":
        return f"{record.get('kind', 'barrier')} wait"
    if kind == "async":
        return record.get("op", "copy")
    return record.get("api", kind)


def _fault_reason(record):
    report = record.get("report") or {}
    return report.get("reason") or record.get("message") or record.get("status_name") or "error"


def _args(record):
    return {k: v for k, v in record.items() if k not in ("event", "t", "start", "end", "pid", "tid",
                                                         "thread")}


class TimelineWriter:
    """Streams trace events into `path` as a JSON array, one event a line."""

    def __init__(self, path):
        self._timeline = Timeline()
        self._file = open(path, "w", buffering=1)
        self._file.write("[\n")
        self._first = True

    def add(self, record):
        for entry in self._timeline.events(record):
            self._file.write(("" if self._first else ",\n") + json.dumps(entry, default=str))
            self._first = False

    def close(self):
        self._file.write("\n]\n")
        self._file.close()


def convert(records):
    """The trace-event object ({"traceEvents": [...]}) for an iterable of trace records."""
    timeline = Timeline()
    events = [entry for record in records for entry in timeline.events(record)]
    return {"traceEvents": events, "displayTimeUnit": "ns"}


def read_trace(path):
    """The records of a JSON-lines trace file: lines that are no trace event (a torn last line
    from a killed process, or not a trace at all) are skipped."""
    records = []
    with open(path, errors="replace") as f:
        for line in f:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and "event" in record:
                records.append(record)
    return records


def load(path):
    """The trace events of a timeline file, in either form (object, or a possibly unterminated
    array as TimelineWriter leaves it when the process never shut down)."""
    with open(path) as f:
        text = f.read().strip()
    if text.startswith("[") and not text.endswith("]"):
        text = text.rstrip(",") + "]"
    data = json.loads(text)
    return data["traceEvents"] if isinstance(data, dict) else data


def write(records, path):
    with open(path, "w") as f:
        json.dump(convert(records), f, default=str)
