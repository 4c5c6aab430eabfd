"""The native tier's disk cache as files: what it holds, and removing entries.

Holds these invariants:
- the cache is a flat directory (core.isa.native.compiler.cache_dir()); an entry is the set of
  its files that share a stem (the name up to its first dot: the translation key), whatever
  their extensions, so the entry format may change without this module; subdirectories are
  not the cache's and are left alone;
- an entry was last used at the latest access or modification time of its files;
- pruning by age removes the entries last used more than the limit ago (one used exactly the
  limit ago stays); pruning by size then removes the least recently used entries until the
  rest take at most the limit (a cache of exactly the limit stays whole);
- a file that vanishes meanwhile (another process cleared or replaced it) is not an error.
"""
import os
import re
import stat
import time
from dataclasses import dataclass

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
DAY_SECONDS = 86400


@dataclass(frozen=True)
class Entry:
    stem: str
    paths: tuple
    size: int               # bytes, all its files together
    last_used: float        # seconds since the epoch


def entries(directory):
    """The entries of the cache at `directory`, least recently used first ([] when it does
    not exist). OSError when it cannot be listed."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    groups = {}
    for name in names:
        path = os.path.join(directory, name)
        try:
            st = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(st.st_mode):
            continue
        stem = name.split(".", 1)[0]
        paths, size, used = groups.get(stem, ((), 0, 0.0))
        groups[stem] = (paths + (path,), size + st.st_size, max(used, st.st_atime, st.st_mtime))
    found = [Entry(stem, tuple(sorted(paths)), size, used)
             for stem, (paths, size, used) in groups.items()]
    return sorted(found, key=lambda e: (e.last_used, e.stem))


def remove(entry):
    """Delete the entry's files; the bytes freed."""
    freed = 0
    for path in entry.paths:
        try:
            size = os.stat(path).st_size
            os.unlink(path)
            freed += size
        except FileNotFoundError:
            pass
    return freed


def prune(directory, older_than_days=None, max_bytes=None, now=None):
    """Remove entries by age, then by size (see the module's invariants); the removed ones."""
    now = time.time() if now is None else now
    kept = entries(directory)
    removed = []
    if older_than_days is not None:
        limit = now - older_than_days * DAY_SECONDS
        removed = [e for e in kept if e.last_used < limit]
        kept = [e for e in kept if e.last_used >= limit]
    if max_bytes is not None:
        total = sum(e.size for e in kept)
        while kept and total > max_bytes:
            oldest = kept.pop(0)
            removed.append(oldest)
            total -= oldest.size
    for entry in removed:
        remove(entry)
    return removed


def parse_size(text):
    """Bytes of a size as people write it: 500M, 2G, 1.5GiB, 4096 (K, M, G, T are powers of
    1024); ValueError names what is wrong."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if match is None:
        raise ValueError(f"{text!r} is not a size (a number with K, M, G or T, e.g. 500M)")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def human(size):
    """A size in the largest unit that keeps it at least 1 (binary units, one decimal)."""
    for unit in ("T", "G", "M", "K"):
        if size >= _UNITS[unit]:
            return f"{size / _UNITS[unit]:.1f} {unit}iB"
    return f"{size} bytes"
