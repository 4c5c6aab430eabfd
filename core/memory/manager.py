"""The session's memory: pools over the arena, allocations, host ranges, pointer info.

Holds these invariants:
- every allocation made through the HSA memory API comes from the session arena and
  is charged to exactly one pool until it is freed; `pool.allocated` is the sum of the
  page-rounded sizes of its live allocations;
- only allocations made here can be freed here: a queue ring buffer or a loaded code
  object (arena allocations of other parts) answers HSA_STATUS_ERROR_INVALID_ALLOCATION;
- a freed allocation is marked released before its deallocation callbacks run, so no
  callback or other thread can free it twice; its memory returns to the arena only after
  the callbacks, so it is not handed out again while they may still touch it;
- which agents may reach an allocation follows ROCr: memory from hsa_memory_allocate on
  a system region is mapped to every GPU, memory from hsa_amd_memory_pool_allocate on a
  system pool to none until hsa_amd_agents_allow_access, device memory to its GPU;
- valid_ranges() is the one answer to "which addresses may a kernel touch": live arena
  allocations (of a reserved range, only its mappings the GPU may access: core.memory.vmem)
  plus locked/registered host memory (locked memory also at its agent
  address, host.agent_address), merged (touching ranges too) into disjoint sorted ranges;
- every entry point taking an address of locked memory accepts its agent address too,
  translated by host_address() before any byte moves.
"""
import threading

from core.errors import (HsaError, InvalidAllocation, InvalidArgument, InvalidMemoryPool,
                         InvalidRegion, OutOfResources)
from core.handles import HandleTable, KIND_POOL
from core.memory import host, pools as pool_layout
from core.memory.host import HostRanges, LOCKED, REGISTERED, agent_address, is_agent_alias
from core.hsa_abi import (HsaAmdCoherencyType as Coherency,
                          HsaAmdMemoryPoolGlobalFlag as PoolFlag,
                          HsaAmdPointerType as PointerType)


class Record:
    """What the memory API knows about one of its allocations (stored in Allocation.info)."""
    __slots__ = ("pool", "agents", "user_data", "callbacks")

    def __init__(self, pool, agents):
        self.pool = pool
        self.agents = agents      # set of GPU agents the allocation is mapped to
        self.user_data = 0
        self.callbacks = []       # [(ptr, key, fn, user_data)] run on free


class PointerInfo:
    """hsa_amd_pointer_info's answer, in Python values."""
    __slots__ = ("type", "agent_base", "host_base", "size", "user_data", "owner",
                 "global_flags", "accessible")

    def __init__(self, type, agent_base, host_base, size, user_data, owner, global_flags,
                 accessible):
        self.type = type
        self.agent_base = agent_base
        self.host_base = host_base
        self.size = size
        self.user_data = user_data
        self.owner = owner
        self.global_flags = global_flags
        self.accessible = accessible


class Memory:
    def __init__(self, session):
        self.session = session
        self.arena = session.arena
        self.agents = session.agents
        # ROCr's regions and pools are the same objects; the table's error is the pool's,
        # region calls translate it (region()).
        self.table = HandleTable(KIND_POOL, InvalidMemoryPool)
        self.by_agent = pool_layout.build(self.agents, self.arena.base)
        for agent_pools in self.by_agent.values():
            for pool in agent_pools:
                pool.handle = self.table.add(pool)
        self.host = HostRanges()
        # The native tier's C dispatches check their copy of the valid ranges against this.
        from core.native import lib
        self._native_changed = lib.sg_native_memory_changed
        self.arena.on_change = self.host.on_change = self._native_changed
        self.coherency = {gpu: Coherency.COHERENT for gpu in self.agents.gpus}
        self._lock = threading.RLock()
        self._access_changes = 0
        self._ranges_key = None
        self._ranges = None

    @property
    def vmem(self):
        """The virtual memory API's state (core.memory.vmem), made on first use."""
        return self.session.vmem

    def close(self):
        for pool in self.all_pools():
            self.table.remove(pool.handle)
        self.host.clear()

    # -- pools and regions ---------------------------------------------------------------

    def all_pools(self):
        return [p for agent_pools in self.by_agent.values() for p in agent_pools]

    def pool(self, handle):
        return self.table.get(handle)

    def region(self, handle):
        try:
            return self.table.get(handle)
        except InvalidMemoryPool:
            raise InvalidRegion(f"no live region with handle {int(handle):#x}") from None

    def pools_of(self, agent):
        """hsa_amd_agent_iterate_memory_pools: the agent's own pools."""
        return list(self.by_agent.get(agent, []))

    def regions_of(self, agent):
        """hsa_agent_iterate_regions: a GPU also lists the system regions it can reach, as ROCr."""
        own = self.pools_of(agent)
        if agent.is_gpu:
            return own + self.pools_of(self.agents.cpu)
        return own

    def link(self, agent, pool):
        return pool_layout.link_between(agent, pool.owner)

    # -- allocation ----------------------------------------------------------------------

    def allocate(self, pool, size, restricted):
        """Allocate from `pool`; `restricted` (pool API) leaves system memory unmapped from GPUs."""
        if not pool.alloc_allowed:
            raise InvalidAllocation(f"the {pool.kind} pool does not allow runtime allocation")
        if size > pool.alloc_max_size:
            raise InvalidAllocation(f"{size} bytes exceed the pool's ALLOC_MAX_SIZE {pool.alloc_max_size}")
        rounded = -(-size // pool.granule) * pool.granule
        pool.charge(rounded)
        if pool.is_local:
            agents = {pool.owner}
        elif restricted:
            agents = set()
        else:
            agents = set(self.agents.gpus)
        try:
            alloc = self.arena.allocate(rounded, align=pool.alignment, owner=pool,
                                        info={"memory": Record(pool, agents)})
        except OutOfResources:
            pool.refund(rounded)
            raise
        return alloc.address

    def _record(self, address):
        alloc = self.arena.find(address)
        record = alloc.info.get("memory") if alloc is not None else None
        return alloc, record

    def free(self, address):
        """Free an allocation made here; runs its deallocation callbacks, then releases it."""
        with self._lock:
            alloc, record = self._record(address)
            if record is None or alloc.address != address or record.callbacks is None:
                raise InvalidAllocation(f"{address:#x} is not the start of a live HSA allocation")
            callbacks, record.callbacks = record.callbacks, None
        for ptr, _key, fn, user_data in callbacks:
            fn(ptr, user_data)
        self.arena.free(address)
        record.pool.refund(alloc.size)

    def allow_access(self, agent_handles, address):
        """hsa_amd_agents_allow_access: the listed GPUs (plus a device pool's owner) map it."""
        alloc, record = self._record(address)
        if record is None and alloc is not None and "vmem" in alloc.info:
            # ROCr's newest: an address that is no allocation may be a virtual memory mapping.
            agents = [self.agents.get(handle) for handle in agent_handles]
            return self.vmem.allow_access(address, agents)
        if record is None or alloc.address != address:
            # ROCr answers a pointer that is not an allocation start with the generic error.
            raise HsaError(f"{address:#x} is not the start of a live HSA allocation")
        agents = [self.agents.get(handle) for handle in agent_handles]
        gpus = {a for a in agents if a.is_gpu}
        if record.pool.is_local:
            gpus.add(record.pool.owner)
        with self._lock:
            record.agents = gpus
        self.access_changed()

    def access_changed(self):
        """Which GPU reaches which memory changed: the engine's cached ranges are stale."""
        with self._lock:
            self._access_changes += 1
        self._native_changed()

    def register_callback(self, address, key, fn, user_data):
        with self._lock:
            alloc, record = self._record(address)
            if record is None or record.callbacks is None:
                raise InvalidAllocation(f"{address:#x} is not inside a live HSA allocation")
            record.callbacks.append((address, key, fn, user_data))

    def deregister_callback(self, address, key):
        with self._lock:
            alloc, record = self._record(address)
            callbacks = record.callbacks if record is not None else None
            kept = [c for c in callbacks or [] if not (c[0] == address and c[1] == key)]
            if callbacks is None or len(kept) == len(callbacks):
                raise InvalidArgument(f"no deallocation callback registered for {address:#x}")
            record.callbacks = kept

    # -- host memory ---------------------------------------------------------------------

    def lock(self, address, size, agents, pool):
        """hsa_amd_memory_lock(_to_pool): returns the agent address (host.agent_address;
        the host address itself when no GPU is listed, as ROCr pins nothing then)."""
        if not host.is_mapped(address, size):
            raise HsaError(f"cannot lock {address:#x}+{size}: not mapped in this process")
        if self.arena.contains(address, size):
            raise HsaError(f"cannot lock {address:#x}: it is device (arena) memory")
        gpus = {a for a in agents if a.is_gpu} if agents else set(self.agents.gpus)
        if gpus:
            # ROCr pins nothing for a list without GPUs: the CPU reaches host memory anyway.
            self.host.add(address, size, LOCKED, gpus, pool)
            return agent_address(address)
        return address

    def unlock(self, address):
        """ROCr answers success whether or not `address` was locked."""
        self.host.remove(address, LOCKED)

    def register(self, address, size):
        """Make mapped host memory reachable by every GPU; anything else stays as it is
        (device memory is reachable already, unmapped memory cannot be)."""
        if self.arena.contains(address, size) or not host.is_mapped(address, size):
            return
        self.host.add(address, size, REGISTERED, set(self.agents.gpus))

    def deregister(self, address, size):
        """ROCr answers success whether or not the range was registered."""
        self.host.remove(address, REGISTERED, size)

    def host_address(self, address):
        """The host address behind `address`: an agent address of locked memory translates,
        anything else is returned as it is."""
        if is_agent_alias(address):
            locked = self.host.containing(address - host.AGENT_ALIAS_OFFSET, LOCKED)
            if locked is not None:
                return address - host.AGENT_ALIAS_OFFSET
        return address

    def _host_spans(self, agent=None):
        """(start, end, kind, host start) of every locked/registered range reachable by
        `agent` (any GPU when None): locked ranges twice, at their host and agent address."""
        spans = []
        for r in self.host.ranges():
            if agent is None or agent in r.agents:
                spans.append((r.start, r.end, r.kind, r.start))
                if r.kind == LOCKED:
                    spans.append((agent_address(r.start), agent_address(r.end), r.kind, r.start))
        return sorted(spans)

    def host_ranges(self):
        """[(start, end, kind, numpy uint8 view)] of locked/registered host memory, sorted;
        locked memory appears at its host address and at its agent address.

        Overlapping or touching ranges come merged, with one view over their union (the
        pages are all mapped), so an access is served by exactly one view; `kind` is
        "locked" when any merged range is locked, else "registered".
        """
        merged = []
        for start, end, kind, host_start in self._host_spans():
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
                merged[-1][2] = LOCKED if LOCKED in (merged[-1][2], kind) else REGISTERED
            else:
                merged.append([start, end, kind, host_start])
        return [(start, end, kind, host.view(host_start, end - start))
                for start, end, kind, host_start in merged]

    # -- pointer queries -----------------------------------------------------------------

    def pointer_info(self, address):
        address = self.host_address(address)
        alloc = self.arena.find(address)
        cpu = self.agents.cpu
        if alloc is not None:
            record = alloc.info.get("memory")
            if record is not None:
                pool = record.pool
                return PointerInfo(PointerType.HSA, alloc.address, alloc.address, alloc.size,
                                   record.user_data, pool.owner, pool.global_flags,
                                   sorted(record.agents, key=lambda a: a.node))
            reserved = alloc.info.get("vmem")      # a reserved range (core.memory.vmem)
            if reserved is not None:
                return _reserved_pointer_info(reserved, cpu)
            attached = alloc.info.get("ipc")       # another process's memory (core.memory.ipc)
            if attached is not None:
                return PointerInfo(PointerType.IPC, alloc.address, alloc.address, alloc.size,
                                   attached.user_data, attached.owner, attached.global_flags,
                                   sorted(attached.agents, key=lambda a: a.node))
            # Runtime-internal memory (ring buffers, code objects): system memory every GPU maps.
            return PointerInfo(PointerType.HSA, alloc.address, alloc.address, alloc.size, 0, cpu,
                               int(PoolFlag.FINE_GRAINED), list(self.agents.gpus))
        locked = self.host.containing(address, LOCKED)
        if locked is not None:
            flags = locked.pool.global_flags if locked.pool else int(PoolFlag.COARSE_GRAINED)
            return PointerInfo(PointerType.LOCKED, agent_address(locked.start), locked.start, locked.size,
                               locked.user_data, cpu, flags,
                               sorted(locked.agents, key=lambda a: a.node))
        # ROCr: unknown memory reports zeros and the node-0 (CPU) agent as owner.
        return PointerInfo(PointerType.UNKNOWN, 0, 0, 0, 0, cpu, 0, [])

    def set_user_data(self, address, user_data):
        address = self.host_address(address)
        alloc, record = self._record(address)
        record = record or (alloc.info.get("ipc") if alloc is not None else None)
        if record is not None and alloc.address == address:
            record.user_data = user_data
            return
        locked = self.host.containing(address, LOCKED)
        if locked is not None and locked.start == address:
            locked.user_data = user_data
            return
        raise InvalidArgument(f"{address:#x} is not the start of memory known to the runtime")

    # -- data movement -------------------------------------------------------------------

    def _within_one_allocation(self, address, size):
        alloc = self.arena.find(address)
        return alloc is not None and address + size <= alloc.end

    def copy(self, dst, src, size):
        """hsa_memory_copy: any host or device memory; garbage -> InvalidArgument, not a crash."""
        dst, src = self.host_address(dst), self.host_address(src)
        for address, what in ((dst, "destination"), (src, "source")):
            if self.arena.contains(address) or self.arena.contains(address + size - 1):
                if not self._within_one_allocation(address, size):
                    raise InvalidArgument(f"{what} {address:#x}+{size} is not inside one live allocation")
        # Imported here: in a plain Python process, importing core.native starts the library,
        # whose glue imports this module.
        from core.native import ffi, lib
        if lib.sg_safe_copy(ffi.cast("void *", dst), ffi.cast("void *", src), size):
            raise InvalidArgument(f"copy {src:#x} -> {dst:#x} ({size} bytes) touches unmapped memory")

    def require_accessible(self, address, size, what="range"):
        """Raise InvalidArgument unless [address, address+size) lies inside one live arena
        allocation or one locked/registered host range: memory a copy engine may touch."""
        address = self.host_address(address)
        if self._within_one_allocation(address, size):
            return
        if not any(r.start <= address and address + size <= r.end for r in self.host.ranges()):
            raise InvalidArgument(f"{what} {address:#x}+{size} is neither HSA nor locked/registered memory")

    def fill(self, address, value, count):
        """hsa_amd_memory_fill: `count` dwords of `value` inside one HSA or locked allocation."""
        size = count * 4
        address = self.host_address(address)
        info = self.pointer_info(address)
        if info.type == PointerType.UNKNOWN or address + size > info.host_base + info.size:
            raise InvalidAllocation(f"{address:#x}+{size} is not inside one HSA or locked allocation")
        if info.type in (PointerType.HSA, PointerType.IPC):
            target = self.arena.view(address, size)
        else:
            target = host.view(address, size)
        import numpy as np      # not at the top: hsa_init does not need numpy
        target.view(np.uint32)[:] = np.uint32(value)

    # -- the engine's view -----------------------------------------------------------------

    @property
    def version(self):
        """Changes whenever valid_ranges() may answer differently: a cache key for the engine."""
        return (self.arena.version, self.host.version, self._access_changes)

    def reachable(self, agent=None):
        """What a kernel of `agent` (any GPU when None) may touch, unmerged: the arena
        allocations mapped to it, and the (start, end, kind, host start) spans of locked and
        registered host memory (locked ranges twice, at their host and agent address)."""
        return self._reachable_allocations(agent), self._host_spans(agent)

    def _reachable_allocations(self, agent):
        """Arena allocations mapped to `agent` (any GPU when None); of a reserved range, the
        mappings the agent may access (objects with address, size and end, as allocations)."""
        allocations = []
        for alloc in self.arena.allocations():
            record = alloc.info.get("memory")
            reserved = alloc.info.get("vmem")
            if reserved is not None:
                allocations.extend(reserved.reachable(agent))
            elif agent is None or record is None or agent in record.agents:
                allocations.append(alloc)
        return allocations

    def valid_ranges(self, agent=None):
        """(starts, ends) sorted disjoint uint64 arrays of addresses kernels may touch.

        Without `agent`: every live arena allocation and every locked/registered host
        range. With a GPU `agent`: only memory mapped to it (ROCr's rules: a system-pool
        allocation from hsa_amd_memory_pool_allocate needs hsa_amd_agents_allow_access).
        Cached until an allocation, free, lock, register or allow_access changes it.
        """
        key = (self.version, agent)
        with self._lock:
            if self._ranges_key == key:
                return self._ranges
        allocations, host_spans = self.reachable(agent)
        spans = [(alloc.address, alloc.end) for alloc in allocations]
        spans.extend((start, end) for start, end, _kind, _host in host_spans)
        starts, ends = _merge(spans)
        with self._lock:
            self._ranges_key, self._ranges = key, (starts, ends)
        return starts, ends

    def host_views(self, agent=None):
        """(starts, ends, deltas) sorted uint64 arrays: valid_ranges(agent) with, per range,
        what to subtract from an address to reach host memory (nonzero for locked memory at
        its agent address), for the native engine tier. Ranges merge only where their deltas
        agree (a locked range's agent alias never touches memory at a host address)."""
        import numpy as np
        spans = [(alloc.address, alloc.end, 0) for alloc in self._reachable_allocations(agent)]
        spans.extend((start, end, start - host_start)
                     for start, end, _kind, host_start in self._host_spans(agent))
        spans.sort()
        merged = []
        for start, end, delta in spans:
            if merged and start <= merged[-1][1] and delta == merged[-1][2]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end, delta])
        return np.array(merged, dtype=np.uint64).reshape(-1, 3)


def _reserved_pointer_info(reserved, cpu):
    """ROCr's answer for a reserved range, mapped or not: the thunk knows a registered range
    as reserved address space of node 0 (no host address, no agent mapped through KFD: the
    mappings go through the DRM device); a NO_REGISTER range it does not know at all."""
    if not reserved.registered:
        return PointerInfo(PointerType.UNKNOWN, 0, 0, 0, 0, cpu, 0, [])
    return PointerInfo(PointerType.RESERVED_ADDR, reserved.address, 0, reserved.size, 0, cpu,
                       int(PoolFlag.FINE_GRAINED), [])


def _merge(spans):
    import numpy as np
    spans.sort()
    merged = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    starts = np.array([s for s, _ in merged], dtype=np.uint64)
    ends = np.array([e for _, e in merged], dtype=np.uint64)
    return starts, ends
