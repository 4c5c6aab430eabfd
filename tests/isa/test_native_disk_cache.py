"""The native tier's disk cache as a program sees it across processes: a kernel translated by
one process runs in the next from the cache, without loading LLVM, with the same results; a
damaged or foreign entry is never used but rebuilt and replaced; processes filling one entry
at once all run right.
"""
import itertools
import json
import os
import subprocess
import sys

import pytest

from core.isa.native import cache_entry
from tests.support.paths import LIBRARY, ROOT

# Runs suite cases on the native tier (argv: case names) and prints, per case, whether the
# case's check passed and a digest of its outputs, then whether llvmlite was ever imported.
CHILD = r"""
import ctypes, hashlib, json, sys
sys.path.insert(0, {root!r})
lib = ctypes.CDLL({library!r})
assert lib.hsa_init() == 0
from core import runtime
from tests.kernels.suite import CASES
from tests.support.suite_run import run_checked

session = runtime.require()
report = {{}}
for name in sys.argv[1:]:
    case = next(c for c in CASES if c.name == name)
    path = case.compile("-O2", 32)
    outputs = run_checked(session, case, path, 32)
    digest = hashlib.sha256()
    for index, array in sorted(outputs.items()):
        if name == "hip_clocks" and index == 1:    # clock readings, then the timed work's values
            array = array.reshape(-1, 3)[:, 2]
        digest.update(array.tobytes())
    report[name] = digest.hexdigest()
report["llvmlite"] = "llvmlite" in sys.modules
print(json.dumps(report))
"""

# hip_clocks reads s_memtime through a C helper (sg_now_ns, the helper table); float_sin_cos's
# code calls libm.
CLOCKS, SIN_COS = "hip_clocks", "float_sin_cos"


_runs = itertools.count()


def _start(cache, *cases):
    trace = os.path.join(cache, f"trace{next(_runs)}.jsonl")
    env = dict(os.environ, SOFTGPU_ENGINE="native", SOFTGPU_TRACE=trace, XDG_CACHE_HOME=cache)
    child = CHILD.format(root=ROOT, library=LIBRARY)
    process = subprocess.Popen([sys.executable, "-c", child, *cases], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return process, trace


def _finish(started):
    process, trace = started
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, f"exit {process.returncode}\n{out}\n{err[-3000:]}"
    with open(trace) as f:
        events = [json.loads(line) for line in f]
    compiled = {e["kernel"]: e["cached"] for e in events if e["event"] == "native_compile"}
    assert not [e for e in events if e["event"] == "native_fallback"]
    return json.loads(out.strip().splitlines()[-1]), compiled


def _run(cache, *cases):
    return _finish(_start(cache, *cases))


def _entries(cache):
    directory = os.path.join(cache, "softgpu")
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if name.endswith(cache_entry.SUFFIX))


@pytest.fixture
def cache(tmp_path):
    path = tmp_path / "cache"
    path.mkdir()
    return str(path)


def test_a_cached_kernel_runs_in_a_new_process_without_llvm(cache):
    first, compiled = _run(cache, CLOCKS, SIN_COS)
    assert compiled == {CLOCKS: False, SIN_COS: False} and first["llvmlite"]
    second, compiled = _run(cache, CLOCKS, SIN_COS)
    assert compiled == {CLOCKS: True, SIN_COS: True}
    assert second["llvmlite"] is False
    assert second == dict(first, llvmlite=False)


def _damaged(kind, entry, other):
    with open(entry, "rb") as f:
        data = f.read()
    if kind == "truncated":
        return data[:-1]
    if kind == "garbage":
        return os.urandom(len(data))
    with open(other, "rb") as f:    # another kernel's complete entry under this one's name
        return f.read()


@pytest.mark.parametrize("kind", ["truncated", "garbage", "another kernel's"])
def test_a_damaged_entry_is_rebuilt_and_replaced(cache, tmp_path, kind):
    clean, _ = _run(cache, CLOCKS)
    [entry] = _entries(cache)
    other_cache = tmp_path / "other"
    other_cache.mkdir()
    _run(str(other_cache), SIN_COS)
    [other] = _entries(str(other_cache))
    damage = _damaged(kind, entry, other)
    with open(entry, "wb") as f:
        f.write(damage)

    again, compiled = _run(cache, CLOCKS)
    assert compiled == {CLOCKS: False} and again == clean
    assert _entries(cache) == [entry]
    with open(entry, "rb") as f:
        assert f.read() != damage
    _, compiled = _run(cache, CLOCKS)             # the replacement serves the next process
    assert compiled == {CLOCKS: True}


def test_processes_filling_one_entry_at_once_all_run_right(cache):
    results = [_finish(started) for started in [_start(cache, SIN_COS) for _ in range(2)]]
    assert results[0][0] == results[1][0]
    assert len(_entries(cache)) == 1
    again, compiled = _run(cache, SIN_COS)
    assert compiled == {SIN_COS: True} and again == dict(results[0][0], llvmlite=False)


# ---- the seal, at its limits -----------------------------------------------------------

KEY = "ab" * 32


def _open(tmp_path, data, key=KEY):
    path = tmp_path / "entry.so"
    path.write_bytes(data)
    found = cache_entry.open_entry(str(path), key)
    if found is None:
        return None
    fd, notes = found
    os.close(fd)
    return notes


def test_an_entry_opens_exactly_as_sealed(tmp_path):
    notes = {"reasons": ["r"], "access_sites": 3, "callouts": []}
    data = cache_entry.seal(b"\x7fELF code", KEY, notes)
    assert _open(tmp_path, data) == notes
    assert _open(tmp_path, data[:-1]) is None
    assert _open(tmp_path, data + b"\0") is None
    assert _open(tmp_path, data, key="cd" * 32) is None
    flipped = bytearray(data)
    flipped[3] ^= 1
    assert _open(tmp_path, bytes(flipped)) is None
    assert _open(tmp_path, b"") is None
    assert cache_entry.open_entry(str(tmp_path / "missing.so"), KEY) is None


def _identity_in(tree, cache):
    """The translation identity computed by a process running the engine found under `tree`."""
    code = f"import sys; sys.path.insert(0, {tree!r}); " \
           f"from core.isa.native.identity import identity; print(identity({cache!r}))"
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                          text=True, cwd=tree).stdout.strip()


def test_a_cache_carried_to_a_fresh_checkout_still_matches_and_an_edit_does_not(tmp_path):
    """A CI job restores its saved cache into a new clone: same sources at another place with
    new file times must give the same identity (else nothing cached ever serves there), while a
    one-byte edit of an engine source gives another."""
    import shutil
    cache = str(tmp_path / "cache")
    here = _identity_in(ROOT, cache)
    clone = tmp_path / "clone"
    # shutil.copy, not copy2: the copies get new modification times, as a fresh clone's files do
    shutil.copytree(os.path.join(ROOT, "core"), clone / "core", copy_function=shutil.copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert _identity_in(str(clone), cache) == here
    assert _identity_in(str(clone), cache) == here      # now from the remembered digest
    edited = clone / "core" / "isa" / "semantics" / "__init__.py"
    edited.write_text(edited.read_text() + "\n")
    assert _identity_in(str(clone), cache) != here
