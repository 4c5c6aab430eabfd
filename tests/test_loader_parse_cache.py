"""A code object loaded before is not parsed again: a new process loading the same bytes gets
what the first parse found from the disk cache, without importing pyelftools, and runs its
kernels alike; an entry that is damaged, truncated or another object's is never used, but
parsed over and replaced; an object refused leaves no entry."""
import json
import os
import subprocess
import sys

import pytest

from core import disk_cache
from core.errors import InvalidCodeObject
from core.loader import parse_cache
from tests.support.kernels import compile_opencl
from tests.support.paths import LIBRARY, ROOT

FIELDS = ("abi_version", "version", "e_flags", "generic_version", "segments", "load_align",
          "load_start", "load_span", "metadata", "kernel_metadata", "symbols", "relocations",
          "local_functions")

# A new process that loads `path` through the runtime and runs its `vadd` on the interpreter:
# prints whether pyelftools was imported, the loaded object's parse fields and the result.
_PROGRAM = """
import ctypes, json, sys
import numpy as np
lib = ctypes.CDLL(%(library)r)
assert lib.hsa_init() == 0
from core import runtime
from core.harness.launch import launch, loaded_kernel
session = runtime.require()
code = loaded_kernel(session, %(path)r, "vadd").code_object.code
a, b = np.arange(1000, dtype=np.float32), np.full(1000, 2.0, np.float32)
_, _, c = launch(session, %(path)r, "vadd", [a, b, np.zeros_like(a)], 1000, 256)
fields = {name: getattr(code, name) for name in %(fields)r}
fields["target"] = code.target.isa_name
print(json.dumps({"elftools": any(m.split(".")[0] == "elftools" for m in sys.modules),
                  "correct": bool(np.array_equal(c, a + b)), "fields": repr(fields)}))
"""


VADD = """
kernel void vadd(global const float *a, global const float *b, global float *c) {
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
"""


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl(VADD, opt="-O2")


def load_in_new_process(path, cache):
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), SOFTGPU_ENGINE="interp")
    program = _PROGRAM % {"library": LIBRARY, "path": path, "fields": FIELDS}
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def entries(cache):
    folder = cache / "softgpu"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def key_of(path):
    with open(path, "rb") as f:
        return parse_cache.key(f.read())


def test_an_object_loaded_before_loads_without_pyelftools_and_runs_alike(code_object, tmp_path):
    first = load_in_new_process(code_object, tmp_path)
    assert first["elftools"] and first["correct"]
    assert entries(tmp_path) == [key_of(code_object) + parse_cache.SUFFIX]
    again = load_in_new_process(code_object, tmp_path)
    assert not again["elftools"]
    assert again["correct"]
    assert again["fields"] == first["fields"]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "bit flipped", "another object's"])
def test_a_damaged_or_foreign_entry_is_parsed_over_and_replaced(code_object, tmp_path, damage):
    first = load_in_new_process(code_object, tmp_path)
    entry = tmp_path / "softgpu" / (key_of(code_object) + parse_cache.SUFFIX)
    sealed = entry.read_bytes()
    if damage == "garbage":
        entry.write_bytes(b"\x93\x01\x02\x03" * 64)
    elif damage == "truncated":
        entry.write_bytes(sealed[:len(sealed) // 2])
    elif damage == "bit flipped":
        flipped = bytearray(sealed)
        flipped[len(flipped) // 3] ^= 0x10
        entry.write_bytes(bytes(flipped))
    else:
        other = compile_opencl(VADD, opt="-O0")
        load_in_new_process(other, tmp_path)
        entry.write_bytes((tmp_path / "softgpu" / (key_of(other) + parse_cache.SUFFIX)).read_bytes())
    again = load_in_new_process(code_object, tmp_path)
    assert again["elftools"], "a damaged entry was used instead of parsing"
    assert again["correct"] and again["fields"] == first["fields"]
    assert entry.read_bytes() == sealed, "the damaged entry was not replaced"


def test_a_refused_object_leaves_no_entry(code_object, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with open(code_object, "rb") as f:
        data = bytearray(f.read())
    data[18:20] = (62).to_bytes(2, "little")        # e_machine: EM_X86_64
    for _ in range(2):
        with pytest.raises(InvalidCodeObject, match="not EM_AMDGPU"):
            from core.loader.elf import CodeObject
            CodeObject(bytes(data))
    assert entries(tmp_path) == []


def test_processes_writing_one_entry_at_once_leave_one_whole_entry(code_object, tmp_path):
    """Four processes load the object at the same moment into an empty cache."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    program = (f"import sys; from core.loader.elf import CodeObject\n"
               f"data = open({code_object!r}, 'rb').read()\n"
               f"sys.stdin.read()\n"                      # all start, then all parse
               f"for _ in range(20): CodeObject(data)\n")
    procs = [subprocess.Popen([sys.executable, "-c", program], cwd=ROOT, env=env, text=True,
                              stdin=subprocess.PIPE) for _ in range(4)]
    for proc in procs:
        proc.stdin.close()
    assert all(proc.wait(timeout=300) == 0 for proc in procs)
    key = key_of(code_object)
    assert entries(tmp_path) == [key + parse_cache.SUFFIX]      # no temporary file left
    data = (tmp_path / "softgpu" / (key + parse_cache.SUFFIX)).read_bytes()
    assert disk_cache.unseal(data, key) is not None
