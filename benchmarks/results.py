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
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo") as f:
            memory = int(f.readline().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return {"host": platform.node(), "cpu": model, "usable_cores": len(os.sched_getaffinity(0)),
            "memory_bytes": memory, "system": f"{platform.system()} {platform.release()}",
            "python": platform.python_version()}


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
