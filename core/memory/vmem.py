"""ROCr's virtual memory API (hsa_amd_vmem_*) and dma-buf export of allocations.

Reserved address ranges, physical memory handles, mappings of one into the other, access per
agent, and shareable handles (a file descriptor, as ROCr's dma-buf) between processes.

Holds these invariants:
- a reserved range is an allocation of the device arena, so the engine and the copy paths
  see it in the one device address space; a kernel of a GPU reaches exactly the mapped
  parts whose access for that GPU is not NONE (Memory.reachable asks Reservation.reachable),
  anything else in the range faults with the usual kernel fault report;
- physical memory is a memfd, outside the arena until mapped: a mapping puts the memfd's
  pages MAP_SHARED over its part of the range, an unmap puts private zero pages back, so
  the range never keeps showing memory it no longer maps;
- a handle lives while ROCr's would: its references (create, import, retain) and its
  mappings both count, and its memory (and the pool charge) goes when both reach zero;
- a shareable handle is a new descriptor of the memfd: any process of the user that gets
  the descriptor imports it and maps the same pages; importing memory a process already
  knows gives the handle it has, with one more reference, as ROCr does;
- every check is ROCr's, in ROCr's order, with ROCr's status (runtime.cpp VMemory*,
  DmaBufExport): the thunk's refusals (an alignment below a page or not a power of two, a
  size not a page multiple) read as OUT_OF_RESOURCES at reserve, as there.
"""
import bisect
import itertools
import os
import re
import stat
import threading

from core.errors import (HsaError, IncompatibleArguments, InvalidAgent, InvalidAllocation,
                         InvalidArgument, OutOfResources, ResourceFree)
from core.memory.arena import PAGE
from core.hsa_abi import (HsaAccessPermission as AccessPermission, HsaAmdMemoryType as AmdMemoryType,
                          HsaAmdVmemAddressReserveFlag as ReserveFlag)

_NAME = "softgpu-vmem-node{node}-pinned{pinned}"
# The memfds a descriptor may name: physical memory of this module, or an allocation shared
# by IPC or dma-buf export (core.memory.ipc names those).
_LINK = re.compile(r"/memfd:softgpu-(?:vmem-node(\d+)-pinned(\d)|ipc-[0-9a-f]{16}-node(\d+)-flags\d+) \(deleted\)")


# Handle values: tagged, never reused in a process (a handle kept across hsa_shut_down/hsa_init
# is stale, as every other kind of handle).
_VALUES = itertools.count((0x56 << 56) | 1)


class Handle:
    """Physical memory of hsa_amd_vmem_handle_create or _import_shareable_handle."""
    __slots__ = ("value", "pool", "size", "pinned", "fd", "key", "refs", "uses", "charged")

    def __init__(self, pool, size, pinned, fd, charged):
        self.value = 0
        self.pool, self.size, self.pinned, self.fd = pool, size, pinned, fd
        st = os.fstat(fd)
        self.key = (st.st_dev, st.st_ino)      # one memfd, one handle per process
        self.refs = 1
        self.uses = 0
        self.charged = charged                 # bytes charged to the pool (0 for imports)


class Mapping:
    """Part of a reserved range showing a handle's memory; `access` per agent, as set."""
    __slots__ = ("address", "size", "handle", "access")

    def __init__(self, address, size, handle):
        self.address, self.size, self.handle = address, size, handle
        self.access = {}

    @property
    def end(self):
        return self.address + self.size


class Reservation:
    """A reserved address range (Allocation.info["vmem"] of its arena allocation)."""
    __slots__ = ("address", "size", "registered", "mappings", "_starts")

    def __init__(self, address, size, registered):
        self.address, self.size, self.registered = address, size, registered
        self.mappings = {}          # address -> Mapping
        self._starts = []

    def reachable(self, agent=None):
        """The mappings a kernel of `agent` (any GPU when None) may touch."""
        found = []
        # Asked by the engine without this module's lock: list() copies each dict in one step
        # under the GIL, so a concurrent map or set_access cannot break the iteration.
        for mapping in list(self.mappings.values()):
            granted = [p for a, p in list(mapping.access.items()) if a.is_gpu and (agent is None or a is agent)]
            if any(p != AccessPermission.NONE for p in granted):
                found.append(mapping)
        return found

    def _last_starting_by(self, address):
        """Index in _starts of the last mapping starting at or below `address` (-1: none)."""
        return bisect.bisect_right(self._starts, address) - 1

    def mapping_at(self, address):
        """The mapping holding `address` (its end included, as ROCr's get_access), or None."""
        i = self._last_starting_by(address)
        mapping = self.mappings[self._starts[i]] if i >= 0 else None
        return mapping if mapping is not None and address <= mapping.end else None

    def mapping_holding(self, address):
        """The mapping whose bytes include `address` (its end excluded), or None."""
        mapping = self.mapping_at(address)
        return mapping if mapping is not None and address < mapping.end else None

    def overlaps(self, address, size):
        i = self._last_starting_by(address)
        if i >= 0 and self.mappings[self._starts[i]].end > address:
            return True
        return i + 1 < len(self._starts) and self._starts[i + 1] < address + size

    def add(self, mapping):
        self.mappings[mapping.address] = mapping
        bisect.insort(self._starts, mapping.address)

    def remove(self, mapping):
        del self.mappings[mapping.address]
        del self._starts[bisect.bisect_left(self._starts, mapping.address)]


class VirtualMemory:
    def __init__(self, session):
        self.session = session
        self.arena = session.arena
        self.memory = session.memory
        self.agents = session.agents
        self._reserved = {}        # address -> Reservation
        self._handles = {}         # value -> Handle
        self._by_key = {}          # memfd (dev, inode) -> Handle
        self._lock = threading.RLock()

    def close(self):
        """Mappings and reservations die with the arena; descriptors and pool charges go here."""
        with self._lock:
            for handle in self._handles.values():
                os.close(handle.fd)
                if handle.charged:
                    handle.pool.refund(handle.charged)
            self._handles.clear()
            self._by_key.clear()
            self._reserved.clear()

    # -- address ranges ---------------------------------------------------------------------

    def reserve(self, size, address, alignment, flags):
        """A new reserved range: at `address` when that part of the arena is free and aligned,
        elsewhere otherwise (ROCr: the fixed request, then any address)."""
        alignment = alignment or PAGE
        if alignment < PAGE or alignment & (alignment - 1) or size % PAGE:
            raise OutOfResources(f"cannot reserve {size} bytes aligned to {alignment}: the size must be "
                                 f"a multiple of {PAGE} and the alignment a power of two of at least {PAGE}")
        record = Reservation(0, size, not flags & ReserveFlag.NO_REGISTER)
        alloc = None
        if address and address % alignment == 0 and self.arena.contains(address, size):
            try:
                alloc = self.arena.allocate_at(address, size, owner=self, info={"vmem": record})
            except InvalidAllocation:
                alloc = None
        if alloc is None:
            try:
                alloc = self.arena.allocate(size, align=alignment, owner=self, info={"vmem": record})
            except (InvalidAllocation, OverflowError):
                raise OutOfResources(f"cannot reserve {size} bytes of address space") from None
        record.address = alloc.address
        with self._lock:
            self._reserved[alloc.address] = record
        return alloc.address

    def free(self, address, size):
        with self._lock:
            record = self._reserved.get(address)
            if record is None:
                raise InvalidAllocation(f"{address:#x} is not the start of a reserved range")
            if size != record.size:
                raise InvalidArgument(f"{size} bytes is not the reserved range's size {record.size}")
            if record.mappings:
                raise ResourceFree(f"the range at {address:#x} still maps memory")
            del self._reserved[address]
        self.arena.free(address)

    def _reservation_holding(self, address, size):
        """The reservation holding [address, address + size), or None."""
        alloc = self.arena.find(address)
        record = alloc.info.get("vmem") if alloc is not None else None
        if record is None or address + size > record.address + record.size:
            return None
        return record

    def _mapping_starting_at(self, address):
        """The mapping that starts at exactly `address`, or InvalidAllocation."""
        record = self._reservation_holding(address, 1)
        mapping = record.mappings.get(address) if record is not None else None
        if mapping is None:
            raise InvalidAllocation(f"no mapping starts at {address:#x}")
        return mapping

    # -- physical memory --------------------------------------------------------------------

    def create(self, pool, size, memory_type):
        if size % PAGE:
            raise InvalidArgument(f"{size} bytes is not a multiple of the page size {PAGE}")
        if not (pool.is_system or pool.is_local):
            raise InvalidAllocation(f"the {pool.kind} pool holds no allocations")
        if size > pool.alloc_max_size:
            raise InvalidAllocation(f"{size} bytes exceed the pool's ALLOC_MAX_SIZE {pool.alloc_max_size}")
        pool.charge(size)
        pinned = int(memory_type == AmdMemoryType.PINNED)
        try:
            fd = os.memfd_create(_NAME.format(node=pool.owner.node, pinned=pinned), os.MFD_CLOEXEC)
        except OSError as error:
            pool.refund(size)
            raise OutOfResources(f"cannot make {size} bytes of physical memory: {error.strerror}") from None
        try:
            os.ftruncate(fd, size)
        except OSError as error:
            os.close(fd)
            pool.refund(size)
            raise OutOfResources(f"cannot make {size} bytes of physical memory: {error.strerror}") from None
        return self._add(Handle(pool, size, pinned, fd, size))

    def _add(self, handle):
        with self._lock:
            handle.value = next(_VALUES)
            self._handles[handle.value] = handle
            self._by_key[handle.key] = handle
        return handle.value

    def handle(self, value, error=InvalidAllocation):
        handle = self._handles.get(value)
        if handle is None:
            raise error(f"{value:#x} is not a live virtual memory handle")
        return handle

    def release(self, value):
        with self._lock:
            handle = self.handle(value)
            if handle.refs == 0:
                raise InvalidAllocation(f"virtual memory handle {value:#x} was released already")
            handle.refs -= 1
            self._drop_if_unused(handle)

    def _drop_if_unused(self, handle):
        """Caller holds the lock."""
        if handle.refs or handle.uses:
            return
        del self._handles[handle.value]
        del self._by_key[handle.key]
        os.close(handle.fd)
        if handle.charged:
            handle.pool.refund(handle.charged)

    def retain(self, address):
        """The handle mapped at exactly `address`, with one more reference."""
        with self._lock:
            mapping = self._mapping_starting_at(address)
            mapping.handle.refs += 1
            return mapping.handle.value

    def properties(self, value):
        handle = self.handle(value)
        return handle.pool, AmdMemoryType.PINNED if handle.pinned else AmdMemoryType.NONE

    # -- mappings ---------------------------------------------------------------------------

    def map(self, address, size, value):
        from core.native import lib
        with self._lock:
            record = self._reservation_holding(address, size)
            if record is None:
                raise InvalidArgument(f"{address:#x}+{size} is not inside one reserved range")
            if record.overlaps(address, size):
                raise InvalidArgument(f"{address:#x}+{size} overlaps a mapping")
            handle = self.handle(value, InvalidArgument)
            if not handle.pool.owner.is_gpu:
                raise InvalidAgent("memory of a CPU pool maps only through its own allocation")
            if size > handle.size:
                raise InvalidArgument(f"{size} bytes is more than the handle's {handle.size}")
            if size % PAGE or address % PAGE:
                raise InvalidArgument(f"{address:#x}+{size} is not whole pages")
            if lib.sg_map_pages(address, size, handle.fd) != 0:
                raise OutOfResources(f"cannot map {size} bytes at {address:#x}")
            record.add(Mapping(address, size, handle))
            handle.uses += 1
        # The new pages are not reachable yet (access NONE), but their contents changed.
        self.memory.access_changed()

    def unmap(self, address, size):
        from core.native import lib
        with self._lock:
            mappings = self._contiguous(address, size)
            for mapping in mappings:
                record = self._reservation_holding(mapping.address, mapping.size)
                record.remove(mapping)
                if lib.sg_unshare_pages(mapping.address, mapping.size) != 0:
                    raise HsaError(f"cannot unmap {mapping.size} bytes at {mapping.address:#x}")
                mapping.handle.uses -= 1
                self._drop_if_unused(mapping.handle)
        self.memory.access_changed()

    def _contiguous(self, address, size):
        """The mappings starting at `address` and following one another to exactly address +
        size (ROCr's walk over its mapped handles), or InvalidAllocation."""
        found, at = [], address
        while at < address + size:
            mapping = self._mapping_starting_at(at)
            found.append(mapping)
            at = mapping.end
        if at != address + size:
            raise InvalidAllocation(f"{address:#x}+{size} ends inside a mapping")
        return found

    def set_access(self, address, size, grants):
        """`grants`: [(agent, permission)], agents resolved already (ROCr checks them first)."""
        with self._lock:
            if self._reservation_holding(address, size) is None:
                raise InvalidArgument(f"{address:#x}+{size} is not inside one reserved range")
            for mapping in self._contiguous(address, size):
                for agent, permission in grants:
                    mapping.access[agent] = permission
        self.memory.access_changed()

    def get_access(self, address, agent_handle):
        with self._lock:
            record = self._reservation_holding(address, 1)
            mapping = record.mapping_at(address) if record is not None else None
            if mapping is None:
                raise InvalidAllocation(f"{address:#x} is not mapped")
            agent = self.agents.get(agent_handle)
            if not agent.is_gpu:
                raise InvalidAgent("access is kept for GPU agents")
            return mapping.access.get(agent, AccessPermission.NONE)

    def allow_access(self, address, agents):
        """hsa_amd_agents_allow_access on a mapped address: read-write for `agents` on the
        mapping holding it and the mappings that follow it without a gap (ROCr's
        VMemoryMapAllowAccess)."""
        with self._lock:
            record = self._reservation_holding(address, 1)
            mapping = record.mapping_holding(address) if record is not None else None
            if mapping is None:
                raise InvalidAllocation(f"{address:#x} is not mapped")
            while mapping is not None:
                for agent in agents:
                    mapping.access[agent] = AccessPermission.RW
                mapping = record.mappings.get(mapping.end)
        self.memory.access_changed()

    # -- shareable handles --------------------------------------------------------------------

    def export(self, value):
        """A new descriptor of the handle's memory (close-on-exec, as a dma-buf's)."""
        handle = self.handle(value)
        try:
            return os.dup(handle.fd)
        except OSError as error:
            raise OutOfResources(f"cannot export: {error.strerror}") from None

    def import_(self, fd):
        try:
            st = os.fstat(fd)
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            raise IncompatibleArguments(f"descriptor {fd} is not open") from None
        match = _LINK.fullmatch(link)
        if match is None or not stat.S_ISREG(st.st_mode):
            raise IncompatibleArguments(f"descriptor {fd} ({link}) is no memory SoftGPU exported")
        with self._lock:
            known = self._by_key.get((st.st_dev, st.st_ino))
            if known is not None:
                known.refs += 1
                return known.value
        node = int(match.group(1) or match.group(3))
        gpu = next((a for a in self.agents.gpus if a.node == node), None)
        # ROCr takes the last pool of the owner's node that allows allocation.
        pools = [p for p in self.memory.pools_of(gpu) if p.alloc_allowed] if gpu is not None else []
        if not pools:
            raise InvalidAllocation(f"the exported memory's node {node} is no GPU of this process")
        pinned = int(match.group(2) or 0)
        return self._add(Handle(pools[-1], st.st_size, pinned, os.dup(fd), 0))

    # -- dma-buf export of an allocation -------------------------------------------------------

    def export_dmabuf(self, address, size):
        """(descriptor, offset) of the allocation holding [address, address + size)."""
        alloc = self.arena.find(address)
        record = alloc.info.get("memory") if alloc is not None else None
        if record is None or address + size > alloc.end:
            raise InvalidAllocation(f"{address:#x}+{size} is not inside one HSA allocation")
        owner = record.pool.owner
        if not owner.is_gpu:
            raise InvalidAgent("system memory exports no dma-buf (ROCr: a CPU agent's allocation)")
        self.session.ipc.share(alloc, owner.node, record.pool.global_flags)
        try:
            return os.dup(alloc.shared_fd), address - alloc.address
        except OSError as error:
            raise OutOfResources(f"cannot export: {error.strerror}") from None

    @staticmethod
    def close_dmabuf(fd):
        try:
            os.close(fd)
        except OSError as error:
            raise ResourceFree(f"cannot close descriptor {fd}: {error.strerror}") from None
