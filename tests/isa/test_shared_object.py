"""Loading translations' shared objects (core/isa/native/shared_object.py) as a long-running
process does: thousands of them, more than its descriptor limit, each one itself even when
the descriptor numbers they came through are reused, with nothing left behind on disk."""
import os
import subprocess
import sys

from tests.support.paths import ROOT

# Loads objects A and B alternately (each opened anew, so descriptor numbers are reused) more
# times than the descriptor limit allows open files, and prints what each load's function
# returned, then the number of open descriptors before and after.
CHILD = r"""
import os, resource, sys, ctypes
sys.path.insert(0, {root!r})
from core.isa.native import shared_object
resource.setrlimit(resource.RLIMIT_NOFILE, ({limit}, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
before = len(os.listdir("/proc/self/fd"))
seen = []
for i in range({loads}):
    path = {objects!r}[i % 2]
    address = shared_object.load(os.open(path, os.O_RDONLY | os.O_CLOEXEC), "sg_which")
    seen.append(ctypes.CFUNCTYPE(ctypes.c_int)(address)())
print(seen.count(1), seen.count(2), before, len(os.listdir("/proc/self/fd")))
"""


def _object(tmp_path, name, value):
    source, target = tmp_path / f"{name}.c", tmp_path / f"{name}.so"
    source.write_text(f"int sg_which(void) {{ return {value}; }}\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(target), str(source)], check=True)
    return str(target)


def test_more_objects_than_descriptors_each_runs_its_own_code_and_nothing_stays_open(tmp_path):
    objects = [_object(tmp_path, "a", 1), _object(tmp_path, "b", 2)]
    limit, loads = 64, 200
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = subprocess.run([sys.executable, "-c", CHILD.format(root=ROOT, limit=limit, loads=loads,
                                                              objects=objects)],
                          capture_output=True, text=True, env=dict(os.environ, TMPDIR=str(temp)))
    assert done.returncode == 0, done.stderr[-2000:]
    ones, twos, before, after = map(int, done.stdout.split())
    assert (ones, twos) == (loads // 2, loads // 2)
    assert after == before
    assert list(temp.iterdir()) == []       # the load names' folders are gone
