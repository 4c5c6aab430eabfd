"""The host machine as ROCr's CPU agent describes it, read where KFD and its thunk read it.

Holds these invariants:
- every value comes from the running machine: the model name from /proc/cpuinfo, the
  online CPUs and their caches from sysfs, the memory from /proc/meminfo; a source that is
  missing (a container without sysfs caches) gives ROCr's answer for it (no caches,
  KFD's fallback clock), never an exception;
- caches are listed as the thunk lists them: one entry per physical cache, kept by the
  first CPU of its shared_cpu_list, in CPU order then sysfs index order; only data and
  unified caches (ROCr's CPU agent drops instruction caches);
- the machine is read once per process: a session's description does not change under it.
"""
import functools
import os
import re

CPUINFO = "/proc/cpuinfo"
MEMINFO = "/proc/meminfo"
CPU_SYSFS = "/sys/devices/system/cpu"
NAME_LIMIT = 63                 # ROCr copies at most 63 characters of the model name
_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def read_text(path):
    """The text of the file at `path`, or None where it cannot be read."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _cpu_list(text):
    """CPU numbers of a sysfs list such as "0-3,8"."""
    cpus = []
    for part in (text or "").strip().split(","):
        if part:
            first, _, last = part.partition("-")
            cpus.extend(range(int(first), int(last or first) + 1))
    return cpus


def cpuinfo_field(name):
    match = re.search(rf"^{name}\s*:\s*(.*)$", read_text(CPUINFO) or "", re.MULTILINE)
    return match.group(1).strip() if match else None


def model_name():
    return (cpuinfo_field("model name") or "")[:NAME_LIMIT]


def online_cpus():
    return _cpu_list(read_text(f"{CPU_SYSFS}/online")) or [0]


def max_clock_mhz():
    """KFD's CPU clock: cpufreq's maximum, or the kernel's measured clock without cpufreq."""
    khz = (read_text(f"{CPU_SYSFS}/cpu0/cpufreq/cpuinfo_max_freq") or "").strip()
    if khz.isdigit():
        return int(khz) // 1000
    mhz = cpuinfo_field("cpu MHz")
    return int(float(mhz)) if mhz else 0


def memory_bytes():
    match = re.search(r"^MemTotal:\s*(\d+) kB", read_text(MEMINFO) or "", re.MULTILINE)
    return int(match.group(1)) * 1024 if match else 0


def _cache_size(text):
    match = re.fullmatch(r"(\d+)([KMG]?)", (text or "").strip())
    return int(match.group(1)) * _SIZE_UNITS[match.group(2)] if match else 0


def caches():
    """[{"level", "bytes"}] of every data or unified cache, as the thunk enumerates them."""
    found = []
    for cpu in online_cpus():
        directory = f"{CPU_SYSFS}/cpu{cpu}/cache"
        indexes = sorted((int(name[5:]) for name in _listdir(directory) if re.fullmatch(r"index\d+", name)))
        for index in indexes:
            path = f"{directory}/index{index}"
            sharers = _cpu_list(read_text(f"{path}/shared_cpu_list"))
            kind = (read_text(f"{path}/type") or "").strip()
            level = (read_text(f"{path}/level") or "").strip()
            if sharers[:1] != [cpu] or kind == "Instruction" or not level.isdigit():
                continue
            found.append({"level": int(level), "bytes": _cache_size(read_text(f"{path}/size"))})
    return found


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


@functools.lru_cache(maxsize=None)
def description():
    """The profile's CPU fields and system memory, as the running machine answers them."""
    return {"name": model_name(), "compute_units": len(online_cpus()), "max_clock_mhz": max_clock_mhz(),
            "caches": caches(), "system_bytes": memory_bytes()}
