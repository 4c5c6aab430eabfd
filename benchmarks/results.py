"""The results file of a benchmark script: benchmarks/results/NAME.json, written by the script
itself at the end of each run (it replaces the previous run's: the figures of one run on one
machine, not a history). It holds the date (UTC), the machine (host, CPU model, usable cores,
memory, Python), the commit measured (and whether the tree had changes) and the figures.
"""
import datetime
import json
import os
import platform
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTORY = os.path.join(ROOT, "benchmarks", "results")


def machine():
    """What the figures were measured on."""
    from core import host_cpu
    return {"host": platform.node(),
            "cpu": host_cpu.cpuinfo_field("model name") or platform.processor() or platform.machine(),
            "usable_cores": len(os.sched_getaffinity(0)), "memory_bytes": host_cpu.memory_bytes() or None,
            "system": f"{platform.system()} {platform.release()}", "python": platform.python_version()}


def commit():
    """The commit measured and whether the work tree differed from it (None outside git)."""
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, timeout=30)
    try:
        head = git("rev-parse", "HEAD")
        if head.returncode:
            return None
        dirty = bool(git("status", "--porcelain", "--untracked-files=no").stdout.strip())
        return {"commit": head.stdout.strip(), "modified": dirty}
    except (OSError, subprocess.TimeoutExpired):
        return None


def write(name, figures, command=None, path=None):
    """Write the results file of benchmark `name` (figures: JSON-serialisable); returns its path."""
    path = path or os.path.join(DIRECTORY, f"{name}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    record = {"benchmark": name,
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": machine(), "source": commit(), "command": command, "figures": figures}
    with open(path + ".tmp", "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return path
