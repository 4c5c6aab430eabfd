"""Lifecycle leaks: hsa_init / create everything / hsa_shut_down, over and over.

Each cycle makes what a client makes (signals, a signal group, an async handler, a queue
with a kernel dispatch on it, pool and region allocations, an async copy, locked host
memory, a code object reader and a frozen executable), then either destroys it all or
leaves it to hsa_shut_down. Counts are asserted exactly, every cycle: live arena
allocations and live signals back to the session's starting point, the old session
unreachable after shutdown, as many threads, handle tables and mappings of machine code as
before, on both engine tiers. The process's RSS is allowed a small tolerance (allocator and interpreter caches), after warm-up.

Runs in a fresh process so that RSS and thread counts are this test's alone.
"""
import subprocess
import sys

import pytest

from tests.support import cprog
from tests.support.kernels import compile_opencl
from tests.support.paths import LIBRARY, ROOT

CYCLES = 20
WARM_UP = 3
RSS_TOLERANCE = 8 << 20

_CYCLES = r"""
import ctypes, gc, json, mmap, os, struct, sys, threading, weakref
sys.path.insert(0, sys.argv[1])
lib = ctypes.CDLL(sys.argv[2])
code = open(sys.argv[3], "rb").read()
cycles, warm_up = int(sys.argv[4]), int(sys.argv[5])
# The library's first call starts its embedded runtime: only then may core be imported here.
assert lib.hsa_init() == 0 and lib.hsa_shut_down() == 0

from core import native, runtime
from core.handles import HandleTable
from softgpu_shim.hsa_abi import (HsaExecutableSymbolInfo as SymbolInfo, HsaFenceScope as Scope,
                                  HsaPacketHeader as Header, HsaPacketType as PacketType,
                                  HsaQueueType, SignalCondition, Status)

u64, p = ctypes.c_uint64, ctypes.c_void_p
HANDLER = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_int64, p)
lib.hsa_signal_load_relaxed.restype = ctypes.c_int64
lib.hsa_signal_wait_scacquire.restype = ctypes.c_int64
lib.hsa_queue_add_write_index_relaxed.restype = u64
lib.hsa_queue_destroy.argtypes = [p]
lib.hsa_amd_memory_pool_free.argtypes = [p]
lib.hsa_memory_free.argtypes = [p]
lib.hsa_amd_memory_unlock.argtypes = [p]
handled = []
on_signal = HANDLER(lambda value, arg: handled.append(value) or False)
host = mmap.mmap(-1, 2 * mmap.PAGESIZE)
host_address = ctypes.addressof(ctypes.c_char.from_buffer(host))


def ok(status):
    assert status == Status.SUCCESS, hex(status)


def signal(value=0):
    s = u64()
    ok(lib.hsa_signal_create(ctypes.c_int64(value), 0, None, ctypes.byref(s)))
    return s.value


def allocate(pool, size):
    out = p()
    ok(lib.hsa_amd_memory_pool_allocate(u64(pool.handle), ctypes.c_size_t(size), 0, ctypes.byref(out)))
    return out.value


def wait_zero(s):
    seen = lib.hsa_signal_wait_scacquire(u64(s), SignalCondition.EQ, ctypes.c_int64(0), u64(10**10), 0)
    assert seen == 0, seen


def kernel_object(session):
    reader, exe, symbol, kernel = u64(), u64(), u64(), u64()
    ok(lib.hsa_code_object_reader_create_from_memory(code, ctypes.c_size_t(len(code)), ctypes.byref(reader)))
    ok(lib.hsa_executable_create_alt(1, 0, None, ctypes.byref(exe)))
    gpu = u64(session.agents.gpus[0].handle)
    ok(lib.hsa_executable_load_agent_code_object(exe, gpu, reader, None, None))
    ok(lib.hsa_executable_freeze(exe, None))
    ok(lib.hsa_executable_get_symbol_by_name(exe, b"empty.kd", ctypes.byref(gpu), ctypes.byref(symbol)))
    ok(lib.hsa_executable_symbol_get_info(symbol, SymbolInfo.KERNEL_OBJECT, ctypes.byref(kernel)))
    return reader.value, exe.value, kernel.value


def dispatch(session, kernel, kernarg):
    queue = p()
    gpu = u64(session.agents.gpus[0].handle)
    ok(lib.hsa_queue_create(gpu, 64, HsaQueueType.MULTI, None, None, ctypes.c_uint32(0xFFFFFFFF),
                            ctypes.c_uint32(0xFFFFFFFF), ctypes.byref(queue)))
    base, doorbell, size = struct.unpack_from("<QQI", ctypes.string_at(queue.value + 8, 20))
    done = signal(1)
    index = lib.hsa_queue_add_write_index_relaxed(queue, u64(1))
    slot = base + (index % size) * 64
    header = (PacketType.KERNEL_DISPATCH << Header.TYPE | Scope.SYSTEM << Header.SCACQUIRE_FENCE_SCOPE |
              Scope.SYSTEM << Header.SCRELEASE_FENCE_SCOPE)
    body = struct.pack("<HHHHHIIIIIQQQQ", 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, kernel, kernarg, 0, done)
    ctypes.memmove(slot + 2, body, len(body))
    ctypes.c_uint16.from_address(slot).value = header
    lib.hsa_signal_store_screlease(u64(doorbell), ctypes.c_int64(index))
    wait_zero(done)
    return queue.value, done


def make_everything(session):
    memory = session.memory
    cpu, gpu = session.agents.cpu, session.agents.gpus[0]
    device, fine, kernarg_pool = memory.pools_of(gpu)[0], memory.pools_of(cpu)[0], memory.pools_of(cpu)[1]
    made = {"signals": [signal(i) for i in range(6)], "allocations": [], "regions": []}
    group = u64()
    members = (u64 * 2)(*made["signals"][:2])
    ok(lib.hsa_signal_group_create(2, members, 0, None, ctypes.byref(group)))
    made["group"] = group.value
    ok(lib.hsa_amd_signal_async_handler(u64(made["signals"][2]), SignalCondition.EQ, ctypes.c_int64(7),
                                        on_signal, None))
    lib.hsa_signal_store_screlease(u64(made["signals"][2]), ctypes.c_int64(7))
    made["allocations"] = [allocate(device, 3 * 4096), allocate(fine, 5000), allocate(kernarg_pool, 4096)]
    region_block = p()
    ok(lib.hsa_memory_allocate(u64(fine.handle), ctypes.c_size_t(8192), ctypes.byref(region_block)))
    made["regions"].append(region_block.value)
    copied = signal(1)
    src, dst = made["allocations"][1], made["allocations"][0]
    ok(lib.hsa_amd_memory_async_copy(p(dst), u64(gpu.handle), p(src), u64(cpu.handle), ctypes.c_size_t(4096),
                                     0, None, u64(copied)))
    wait_zero(copied)
    made["signals"].append(copied)
    agent_ptr = p()
    ok(lib.hsa_amd_memory_lock(p(host_address), ctypes.c_size_t(len(host)), None, 0, ctypes.byref(agent_ptr)))
    made["reader"], made["executable"], kernel = kernel_object(session)
    made["queue"], done = dispatch(session, kernel, made["allocations"][2])
    made["signals"].append(done)
    return made


def destroy_everything(made):
    ok(lib.hsa_queue_destroy(made["queue"]))
    ok(lib.hsa_executable_destroy(u64(made["executable"])))
    ok(lib.hsa_code_object_reader_destroy(u64(made["reader"])))
    ok(lib.hsa_amd_memory_unlock(p(host_address)))
    ok(lib.hsa_signal_group_destroy(u64(made["group"])))
    for s in made["signals"]:
        ok(lib.hsa_signal_destroy(u64(s)))
    for a in made["allocations"]:
        ok(lib.hsa_amd_memory_pool_free(a))
    for a in made["regions"]:
        ok(lib.hsa_memory_free(a))


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * mmap.PAGESIZE


def counts():
    gc.collect()
    tables = [t for t in gc.get_objects() if isinstance(t, HandleTable)]
    # Anonymous executable mappings are the native tier's loaded machine code (MCJIT's).
    with open("/proc/self/maps") as f:
        code = sum(1 for line in f if len(line.split()) == 5 and "x" in line.split()[1])
    return {"threads": len(os.listdir("/proc/self/task")), "python_threads": threading.active_count(),
            "handle_tables": len(tables), "handle_entries": sum(len(t) for t in tables),
            "signals": native.lib.sg_signal_live_count(), "code_mappings": code}


report = {"rss": [], "counts": []}
for cycle in range(cycles):
    ok(lib.hsa_init())
    session = runtime.require()
    start = {"arena": len(session.arena.allocations()), "signals": native.lib.sg_signal_live_count()}
    made = make_everything(session)
    assert len(session.arena.allocations()) > start["arena"]
    if cycle % 2 == 0:
        destroy_everything(made)
        assert len(session.arena.allocations()) == start["arena"], (cycle, session.arena.allocations())
        # One signal stays: the control signal of the session's async-handler thread.
        assert native.lib.sg_signal_live_count() == start["signals"] + 1, cycle
    gone = weakref.ref(session)
    del session
    ok(lib.hsa_shut_down())
    gc.collect()
    assert gone() is None, [type(r) for r in gc.get_referrers(gone())]
    report["rss"].append(rss())
    report["counts"].append(counts())
assert handled == [7] * cycles, handled
print(json.dumps(report))
"""


@pytest.fixture(scope="module", params=["interp", "native"])
def cycles(request):
    """Both tiers: the native one loads each kernel's machine code once per process, not once
    per session (D9: three mappings and 60-90 kB left behind per cycle)."""
    code = compile_opencl("aql_kernels.cl", opt="-O2")
    proc = subprocess.run([sys.executable, "-c", _CYCLES, ROOT, LIBRARY, code, str(CYCLES), str(WARM_UP)],
                          env=cprog.env(SOFTGPU_QUIET=1, SOFTGPU_ENGINE=request.param), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    import json
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_counts_are_exactly_flat_across_init_shutdown_cycles(cycles):
    after_warm_up = cycles["counts"][WARM_UP:]
    assert all(c == after_warm_up[0] for c in after_warm_up), after_warm_up
    assert after_warm_up[0]["signals"] == 0
    assert after_warm_up[0]["handle_entries"] == 0


def test_rss_stays_flat_across_init_shutdown_cycles(cycles):
    rss = cycles["rss"][WARM_UP:]
    assert max(rss) - rss[0] <= RSS_TOLERANCE, [r >> 20 for r in rss]
