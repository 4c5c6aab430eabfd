"""ROCr's virtual memory API and dma-buf export (C programs against the official headers and
tests/c/hsa_newest.h, the newest ROCr's declarations the 5.2.3 headers lack)."""
import json
import subprocess
import sys

import pytest

from core import profile as profiles
from core.capture import store
from tests.support import cprog
from tests.support.kernels import compile_opencl
from tests.support.paths import LIBRARY, ROOT


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl("aql_kernels.cl", opt="-O2")


def test_reserve_handles_map_access_and_every_bad_argument(code_object):
    cprog.check("vmem_api.c", code_object, "api", timeout=300)


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_kernels_reach_mapped_ranges_and_fault_on_unmapped_ones(code_object, tmp_path, engine):
    """On both tiers: a kernel computes through a mapped range; before access is set, with
    access NONE and after the unmap, the same dispatch faults with the usual report."""
    trace = tmp_path / "trace.jsonl"
    proc = cprog.check("vmem_api.c", code_object, "kernel", timeout=600, SOFTGPU_TRACE=trace,
                       SOFTGPU_ENGINE=engine)
    start, size = next(line.split()[1:] for line in proc.stdout.splitlines() if line.startswith("reserved"))
    start, size = int(start, 16), int(size)
    errors = [e for e in map(json.loads, trace.read_text().splitlines()) if e["event"] == "queue_error"]
    assert len(errors) == 3
    for error in errors:
        assert error["status_name"] == "ERROR_MEMORY_APERTURE_VIOLATION"
        assert error["report"]["kernel"] == "scale_add"
        assert start <= error["report"]["address"] < start + size
        assert f"address={error['report']['address']:#x}" in proc.stderr


def test_shareable_handles_between_processes_and_dmabuf_export(code_object):
    """A child imports the parent's physical memory by descriptor, maps it, reads the parent's
    bytes and computes on them; a dma-buf of an allocation imports as the same bytes."""
    cprog.check("vmem_api.c", code_object, "share", timeout=600)


_PER_GPU = """
import ctypes, sys
sys.path.insert(0, sys.argv[1])
lib = ctypes.CDLL(sys.argv[2])
assert lib.hsa_init() == 0
from core import runtime
from softgpu_shim.hsa_abi import AccessPermission as Perm
session = runtime.require()
memory, vmem, (gpu0, gpu1) = session.memory, session.vmem, session.agents.gpus

def reaches(agent, address):
    starts, ends = memory.valid_ranges(agent)
    in_ranges = any(s <= address < e for s, e in zip(starts.tolist(), ends.tolist()))
    in_views = any(s <= address < e for s, e, _ in memory.host_views(agent).tolist())
    assert in_ranges == in_views, (agent, address)
    return in_ranges

va = vmem.reserve(4 * 4096, 0, 0, 0)
handle = vmem.create(memory.pools_of(gpu1)[0], 2 * 4096, 0)
vmem.map(va + 4096, 2 * 4096, handle)
assert not reaches(gpu0, va + 4096) and not reaches(gpu1, va + 4096)
vmem.set_access(va + 4096, 2 * 4096, [(gpu0, Perm.RW)])
assert reaches(gpu0, va + 4096) and reaches(gpu0, va + 3 * 4096 - 1) and not reaches(gpu1, va + 4096)
assert not reaches(gpu0, va) and not reaches(gpu0, va + 3 * 4096)     # around the mapping
assert reaches(None, va + 4096)                                       # "any GPU"
vmem.set_access(va + 4096, 2 * 4096, [(gpu1, Perm.RO)])               # gpu0 keeps its access
assert reaches(gpu0, va + 4096) and reaches(gpu1, va + 4096)
assert vmem.get_access(va + 4096, gpu0.handle) == Perm.RW and vmem.get_access(va + 4096, gpu1.handle) == Perm.RO
vmem.set_access(va + 4096, 2 * 4096, [(gpu0, Perm.NONE), (gpu1, Perm.NONE)])
assert not reaches(None, va + 4096)
vmem.unmap(va + 4096, 2 * 4096)
vmem.release(handle)
assert memory.pools_of(gpu1)[0].allocated == 0
vmem.free(va, 4 * 4096)
assert lib.hsa_shut_down() == 0
print("ok")
"""


_THREADS = """
import ctypes, sys, threading
sys.path.insert(0, sys.argv[1])
lib = ctypes.CDLL(sys.argv[2])
assert lib.hsa_init() == 0
from core import runtime
from softgpu_shim.hsa_abi import AccessPermission as Perm
session = runtime.require()
memory, vmem, gpu = session.memory, session.vmem, session.agents.gpus[0]
pool = memory.pools_of(gpu)[0]
errors = []

def worker(n):
    try:
        for i in range(40):
            size = (1 + (n + i) % 3) * 4096
            va = vmem.reserve(2 * size, 0, 0, 0)
            handle = vmem.create(pool, size, 0)
            vmem.map(va + size, size, handle)
            vmem.set_access(va + size, size, [(gpu, Perm.RW)])
            memory.arena.view(va + size, size)[:] = n
            starts, ends = memory.valid_ranges(gpu)
            assert any(s <= va + size and va + 2 * size <= e for s, e in zip(starts.tolist(), ends.tolist()))
            assert (memory.arena.view(va + size, size) == n).all()
            vmem.release(handle)
            vmem.unmap(va + size, size)
            vmem.free(va, 2 * size)
    except BaseException as error:
        errors.append(repr(error))

threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
assert pool.allocated == 0 and not vmem._handles and not vmem._reserved
assert lib.hsa_shut_down() == 0
print("ok")
"""


def test_threads_reserving_mapping_and_freeing_at_once_keep_memory_apart():
    """Eight threads reserve, map, write, unmap and free at once: every mapping shows only its
    own thread's bytes, and the pool and the tables are empty afterwards."""
    proc = subprocess.run([sys.executable, "-c", _THREADS, ROOT, LIBRARY], env=cprog.env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip() == "ok", proc.stdout + proc.stderr


def test_access_is_per_gpu_for_both_tiers_views(tmp_path):
    """Two GPUs: a mapping reaches exactly the GPUs given access (the interpreter's valid
    ranges and the native tier's views agree), one GPU's grant leaves the other's as it was,
    and the pool's charge goes with the handle."""
    data = profiles.load().data
    data["gpu_count"] = 2
    path = tmp_path / "two.json"
    path.write_text(json.dumps(data))
    proc = subprocess.run([sys.executable, "-c", _PER_GPU, ROOT, LIBRARY], env=cprog.env(SOFTGPU_PROFILE=path),
                          capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "ok", proc.stdout + proc.stderr


def test_dispatches_on_mapped_memory_capture_and_replay(code_object, tmp_path):
    """`softgpu run --capture` saves what a kernel reaches through a mapping (and nothing of a
    range it may not reach); `softgpu replay` reproduces every dispatch, faults included."""
    exe = cprog.build("vmem_api.c")
    captures = tmp_path / "captures"
    proc = subprocess.run([sys.executable, "-m", "core.cli", "run", "--capture", str(captures),
                           "--capture-kernel", "scale_*", "--", exe, code_object, "kernel"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=cprog.env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    start = int(next(line.split()[1] for line in proc.stdout.splitlines() if line.startswith("reserved")), 16)
    folders = store.captures(str(captures))
    assert len(folders) == 6                       # three that fault, three that compute
    saved = [[r["start"] for r in store.read_manifest(f)["ranges"]] for f in folders]
    faulted = [store.read_manifest(f)["result"]["fault"] is not None for f in folders]
    assert faulted.count(True) == 3
    for starts, fault in zip(saved, faulted):
        assert (start in starts) != fault         # the mapping is saved exactly when reachable
    proc = subprocess.run([sys.executable, "-m", "core.cli", "replay", str(captures)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=cprog.env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("identical") == 6
