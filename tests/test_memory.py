"""Memory: regions and pools, allocation, copies, locking, pointer info (C programs), and
the engine's view of valid addresses (in-process, through session.memory)."""
import ctypes
import json
import mmap
import subprocess
import sys
import threading

import numpy as np
import pytest

from core import profile as profiles
from core.errors import InvalidAllocation, InvalidArgument, OutOfResources
from tests.support import cprog
from tests.support.paths import LIBRARY, ROOT

SMALL_SYSTEM = 32 << 20
SMALL_DEVICE = (64 << 20) + 3 * 4096      # not a multiple of the quarters memory_alloc.c takes
SMALL_LDS = 32 << 10


@pytest.fixture
def small_profile(tmp_path):
    """The default profile with small pools, so tests can exhaust them."""
    data = profiles.load().data
    data["memory"].update(system_bytes=SMALL_SYSTEM, device_bytes=SMALL_DEVICE)
    data["gpu"]["lds_bytes"] = SMALL_LDS
    path = tmp_path / "small.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_pool_layout_and_every_attribute_default_profile():
    loaded = profiles.load()
    cprog.check("memory_pools.c", loaded.system_bytes, loaded.device_bytes, loaded.gpu["lds_bytes"])


def test_pool_sizes_come_from_the_profile(small_profile):
    cprog.check("memory_pools.c", SMALL_SYSTEM, SMALL_DEVICE, SMALL_LDS, SOFTGPU_PROFILE=small_profile)


def test_allocation_statuses_accounting_and_no_overlap(small_profile):
    cprog.check("memory_alloc.c", SMALL_SYSTEM, SMALL_DEVICE, SOFTGPU_PROFILE=small_profile)


def test_copy_fill_and_assign_agent():
    cprog.check("memory_copy_fill.c")


def test_copies_and_fills_up_to_the_last_byte_of_an_allocation_and_not_one_past():
    cprog.check("memory_limits.c")


def test_pointer_info_locking_registration_and_access():
    cprog.check("memory_pointer_info.c")


def test_deallocation_callbacks_coherency_migration_and_lifecycle():
    cprog.check("memory_misc.c")


# -- in-process: what the engine and the copy engines ask session.memory ----------------

@pytest.fixture
def session():
    lib = ctypes.CDLL(LIBRARY)
    assert lib.hsa_init() == 0
    from core import runtime
    yield runtime.require()
    assert lib.hsa_shut_down() == 0


def _contains(ranges, address, size=1):
    starts, ends = ranges
    i = np.searchsorted(starts, np.uint64(address), side="right") - 1
    return i >= 0 and address + size <= int(ends[i])


def _host_buffer(pages):
    buffer = mmap.mmap(-1, pages * mmap.PAGESIZE)
    return buffer, ctypes.addressof(ctypes.c_char.from_buffer(buffer))


def test_valid_ranges_cover_allocations_and_locked_host_memory(session):
    memory = session.memory
    gpu = session.agents.gpus[0]
    device = memory.pools_of(gpu)[0]
    kernarg = memory.regions_of(gpu)[3]
    a = memory.allocate(device, 10000, restricted=True)
    b = memory.allocate(kernarg, 64, restricted=False)
    buffer, host = _host_buffer(4)
    try:
        assert not _contains(memory.valid_ranges(), host)
        alias = memory.lock(host + 16, 3 * 4096, [], None)
        assert alias != host + 16 and memory.host_address(alias + 8) == host + 24
        memory.lock(host, 4096, [gpu], None)          # overlapping locks merge
        (start, end, kind, view), = [r for r in memory.host_ranges() if r[0] <= host < r[1]]
        assert (start, end, kind, view.size) == (host, host + 3 * 4096 + 16, "locked", 3 * 4096 + 16)
        ranges = memory.valid_ranges()
        starts, ends = ranges
        assert starts.dtype == ends.dtype == np.uint64
        assert np.all(starts[1:] > ends[:-1])         # sorted and disjoint
        assert _contains(ranges, a, 12288) and _contains(ranges, b, 4096)
        assert _contains(ranges, host, 3 * 4096 + 16)
        assert _contains(ranges, alias, 3 * 4096)     # the agent address reaches it too
        (start, end, kind, view), = [r for r in memory.host_ranges() if r[0] <= alias < r[1]]
        assert (start, end) == (alias - 16, alias + 3 * 4096)
        view[20] = 99
        assert buffer[20] == 99                       # the same bytes, not a copy
        memory.unlock(host)
        memory.unlock(host + 16)
        assert not _contains(memory.valid_ranges(), host + 100)
        assert not _contains(memory.valid_ranges(), alias)
        assert memory.host_address(alias) == alias    # unlocked: no longer translated
        memory.free(a)
        assert not _contains(memory.valid_ranges(), a)
    finally:
        memory.free(b)
        del buffer


def test_valid_ranges_for_a_gpu_follow_rocr_mappings(session):
    memory = session.memory
    gpu = session.agents.gpus[0]
    fine = memory.pools_of(session.agents.cpu)[0]
    restricted = memory.allocate(fine, 4096, restricted=True)     # hsa_amd_memory_pool_allocate
    mapped = memory.allocate(fine, 4096, restricted=False)        # hsa_memory_allocate
    try:
        assert _contains(memory.valid_ranges(), restricted)
        assert not _contains(memory.valid_ranges(gpu), restricted)
        assert _contains(memory.valid_ranges(gpu), mapped)
        memory.allow_access([gpu.handle], restricted)
        assert _contains(memory.valid_ranges(gpu), restricted)
    finally:
        memory.free(restricted)
        memory.free(mapped)


def test_host_ranges_give_views_of_registered_memory(session):
    memory = session.memory
    # The middle two of four pages: the pages around them are this test's own and never
    # registered, so no range an earlier test left registered can touch (and merge with) it.
    buffer, base = _host_buffer(4)
    host = base + mmap.PAGESIZE
    memory.register(host, 8192)
    try:
        (start, end, kind, view), = [r for r in memory.host_ranges() if r[0] == host]
        assert (end - start, kind) == (8192, "registered")
        view[:4] = [1, 2, 3, 4]
        assert buffer[mmap.PAGESIZE:mmap.PAGESIZE + 4] == bytes([1, 2, 3, 4])
        memory.require_accessible(host + 100, 8000, "copy")
        with pytest.raises(InvalidArgument):
            memory.require_accessible(host + 100, 8192, "copy")
    finally:
        memory.deregister(host, 8192)
    assert not [r for r in memory.host_ranges() if r[0] == host]
    del view, buffer


def test_pool_accounting_adds_up(session):
    memory = session.memory
    device = memory.pools_of(session.agents.gpus[0])[0]
    fine, kernarg, coarse = memory.pools_of(session.agents.cpu)
    before = device.allocated, fine.budget.used
    sizes = [1, 4096, 4097, 100000]
    device_allocs = [memory.allocate(device, s, restricted=True) for s in sizes]
    kernarg_alloc = memory.allocate(kernarg, 5000, restricted=True)
    assert device.allocated - before[0] == sum(-(-s // 4096) * 4096 for s in sizes)
    assert kernarg.allocated == 8192 and fine.budget is coarse.budget is kernarg.budget
    assert fine.budget.used - before[1] == 8192
    for address in device_allocs:
        memory.free(address)
    memory.free(kernarg_alloc)
    assert (device.allocated, fine.budget.used) == before


def test_runtime_internal_arena_memory_is_reachable_but_not_freeable(session):
    memory = session.memory
    internal = session.arena.allocate(4096, owner="test ring buffer")
    try:
        assert _contains(memory.valid_ranges(session.agents.gpus[0]), internal.address, 4096)
        info = memory.pointer_info(internal.address + 8)
        assert (info.agent_base, info.size, info.owner) == (internal.address, 4096, session.agents.cpu)
        memory.require_accessible(internal.address, 4096)
        with pytest.raises(InvalidAllocation):
            memory.free(internal.address)
    finally:
        session.arena.free(internal.address)


def test_the_arena_fills_holes_best_fit_and_coalesces_what_is_freed(session):
    """Thousands of live allocations, freed out of order into one-page holes: a one-page
    request lands in a hole, a two-page one beyond them (never overlapping), and once all
    is freed the spans merge back: the largest block the arena had fits again."""
    arena = session.arena
    largest = arena.size - arena.used
    while True:                              # the largest free span, to find again at the end
        try:
            probe = arena.allocate(largest)
            break
        except OutOfResources:
            largest -= 1 << 30
    arena.free(probe.address)
    pages = [arena.allocate(4096).address for _ in range(3000)]
    holes = set(pages[::2])
    for address in reversed(pages[::2]):
        arena.free(address)
    one = arena.allocate(4096)
    two = arena.allocate(8192)
    assert one.address in holes
    assert all(not (two.address < p + 4096 and p < two.address + 8192) for p in pages[1::2])
    reused = arena.allocate_at(min(holes - {one.address}), 4096)
    for address in [one.address, two.address, reused.address, *pages[1::2]]:
        arena.free(address)
    arena.free(arena.allocate(largest).address)


def test_a_full_arena_fails_the_allocation_and_charges_no_pool(session):
    memory, arena = session.memory, session.arena
    device = memory.pools_of(session.agents.gpus[0])[0]
    fillers, size = [], arena.size
    while size >= 4096:                       # take every free byte of the arena
        try:
            fillers.append(arena.allocate(size).address)
        except OutOfResources:
            size //= 2
    allocated = device.allocated
    try:
        with pytest.raises(OutOfResources):
            memory.allocate(device, 4096, restricted=True)
        assert device.allocated == allocated
    finally:
        for address in fillers:
            arena.free(address)


_TWO_GPUS = """
import ctypes, sys
sys.path.insert(0, sys.argv[1])
lib = ctypes.CDLL(sys.argv[2])
assert lib.hsa_init() == 0
from core import runtime
from softgpu_shim.hsa_abi import HsaAmdMemoryPoolAccess as Access
session = runtime.require()
memory, (gpu0, gpu1) = session.memory, session.agents.gpus
dev0, dev1 = memory.pools_of(gpu0)[0], memory.pools_of(gpu1)[0]
assert dev0.budget is not dev1.budget and dev0.size == dev1.size == int(sys.argv[3])
assert dev1.access(gpu0, memory.link(gpu0, dev1)) == Access.DISALLOWED_BY_DEFAULT
a = memory.allocate(dev1, 4096, restricted=True)
info = memory.pointer_info(a)
assert info.owner is gpu1 and info.accessible == [gpu1]
ranges = memory.valid_ranges(gpu0)
assert not any(s <= a < e for s, e in zip(ranges[0].tolist(), ranges[1].tolist()))
memory.allow_access([gpu0.handle], a)
assert memory.pointer_info(a).accessible == [gpu0, gpu1]
memory.free(a)
assert lib.hsa_shut_down() == 0
print("ok")
"""


def test_each_gpu_of_a_multi_gpu_profile_has_its_own_pools(small_profile):
    with open(small_profile) as f:
        data = json.load(f)
    data["gpu_count"] = 2
    with open(small_profile, "w") as f:
        json.dump(data, f)
    proc = subprocess.run([sys.executable, "-c", _TWO_GPUS, ROOT, LIBRARY, str(SMALL_DEVICE)],
                          env=cprog.env(SOFTGPU_PROFILE=small_profile), capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.strip() == "ok", proc.stdout + proc.stderr


def test_concurrent_allocations_never_overlap_and_accounting_returns_to_zero(session):
    memory = session.memory
    device = memory.pools_of(session.agents.gpus[0])[0]
    kernarg = memory.pools_of(session.agents.cpu)[1]
    before = device.allocated, kernarg.budget.used
    live, errors, guard = {}, [], threading.Lock()

    def worker(seed):
        mine = []
        for i in range(150):
            pool = device if (seed + i) % 2 else kernarg
            size = 4096 * (1 + (seed * 31 + i) % 4)
            address = memory.allocate(pool, size, restricted=True)
            with guard:
                if any(a < address + size and address < a + s for a, s in live.items()):
                    errors.append(address)
                live[address] = size
            mine.append(address)
            if i % 3 == 2:
                victim = mine.pop(0)
                with guard:
                    del live[victim]
                memory.free(victim)
        for address in mine:
            with guard:
                del live[address]
            memory.free(address)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert (device.allocated, kernarg.budget.used) == before
