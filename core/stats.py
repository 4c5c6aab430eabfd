"""Kernel statistics of a traced run: the table `softgpu run --stats` prints, and rocprof's CSV.

Holds these invariants:
- every `dispatch` event of the trace counts once under its kernel's name, and every queue
  fault whose report names a kernel counts as a fault of that kernel;
- a dispatch's time is split into set-up and kernel time: set-up is what was not running
  the kernel's waves — translating it to native code (the `native_compile` events of its
  thread within its span) and the engine's one-time start before the tier took it (the span
  less the tier's own measured `seconds`) — so a first dispatch's one-time cost is reported
  apart instead of as kernel time;
- the CSV has exactly the columns of rocprof's kernel statistics file
  ("Name","Calls","TotalDurationNs","AverageNs","Percentage"), so scripts that read
  rocprof's output read ours; rows are sorted by total duration, longest first.
"""
import bisect
import collections
import csv
from dataclasses import dataclass

CSV_COLUMNS = ("Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage")


@dataclass
class KernelStats:
    name: str
    calls: int = 0
    total_ns: int = 0           # kernel time: the waves running
    setup_ns: int = 0           # set-up: translation and the engine's start, see above
    waves: int = 0
    lane_instructions: int = 0
    faults: int = 0

    @property
    def average_ns(self):
        return self.total_ns // self.calls if self.calls else 0


def kernel_stats(records):
    """[KernelStats] from trace records, longest total first."""
    by_name = {}

    def entry(name):
        return by_name.setdefault(name, KernelStats(name))

    compiles = _compiles_by_thread(records)
    for record in records:
        kind = record.get("event")
        if kind == "dispatch":
            k = entry(record.get("kernel") or "kernel")
            k.calls += 1
            measured = int(record.get("seconds", 0) * 1e9)      # the tier's own clock
            if "start" in record and "end" in record:
                span = record["end"] - record["start"]
                kernel = max(0, min(span, measured) - _compile_ns(compiles, record))
                k.total_ns += kernel
                k.setup_ns += span - kernel
            else:
                k.total_ns += measured
            k.waves += int(record.get("waves") or 0)
            k.lane_instructions += int(record.get("lane_instructions") or 0)
        elif kind == "queue_error" and (record.get("report") or {}).get("kernel"):
            entry(record["report"]["kernel"]).faults += 1
    return sorted(by_name.values(), key=lambda k: (-k.total_ns, k.name))


def _compiles_by_thread(records):
    """{tid: ([t], [cumulative ns])} of the native_compile events, for sums over a span."""
    times = collections.defaultdict(list)
    for record in records:
        if record.get("event") == "native_compile" and "t" in record:
            times[record.get("tid")].append((record["t"], int(record.get("seconds", 0) * 1e9)))
    table = {}
    for tid, events in times.items():
        events.sort()
        sums = [0]
        for _, ns in events:
            sums.append(sums[-1] + ns)
        table[tid] = ([t for t, _ in events], sums)
    return table


def _compile_ns(compiles, dispatch):
    """Translation time of the dispatch's thread within its span."""
    if dispatch.get("tid") not in compiles:
        return 0
    times, sums = compiles[dispatch["tid"]]
    return sums[bisect.bisect_right(times, dispatch["end"])] - sums[bisect.bisect_left(times, dispatch["start"])]


def _share(k, total):
    return 100.0 * k.total_ns / total if total else 0.0


def format_table(stats):
    """The text table: one line per kernel with calls, total and mean time, share, waves,
    lane-instructions and faults."""
    total = sum(k.total_ns for k in stats)
    header = f"{'kernel':<40} {'calls':>6} {'total ms':>10} {'mean us':>10} {'share':>7} " \
             f"{'set-up ms':>10} {'waves':>10} {'lane-instr':>14} {'faults':>6}"
    lines = ["softgpu: kernel statistics", header, "-" * len(header)]
    for k in stats:
        name = k.name if len(k.name) <= 40 else k.name[:37] + "..."
        lines.append(f"{name:<40} {k.calls:>6} {k.total_ns / 1e6:>10.3f} {k.average_ns / 1e3:>10.1f} "
                     f"{_share(k, total):>6.1f}% {k.setup_ns / 1e6:>10.3f} {k.waves:>10} "
                     f"{k.lane_instructions:>14} {k.faults:>6}")
    if not stats:
        lines.append("(no kernel was dispatched)")
    else:
        lines.append("(total and mean: the waves running; set-up: translating kernels and starting "
                     "the engine, once per kernel or process)")
    return "\n".join(lines) + "\n"


def write_csv(stats, path):
    total = sum(k.total_ns for k in stats)
    with open(path, "w", newline="") as f:
        out = csv.writer(f, quoting=csv.QUOTE_NONNUMERIC)
        out.writerow(CSV_COLUMNS)
        for k in stats:
            out.writerow([k.name, k.calls, k.total_ns, k.average_ns, round(_share(k, total), 6)])
