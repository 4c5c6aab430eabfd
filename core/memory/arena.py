"""The device arena: one reserved mmap region that holds all device memory.

Holds these invariants:
- every runtime allocation (pools, regions, kernarg, code objects, ring buffers, memory
  attached from another process) is a sub-range of the arena, so the engine sees device
  memory as one numpy view (`bytes`, made on first use: hsa_init does not import numpy);
- live allocations never overlap, and freed memory is not handed out again until
  it is free (best fit, lowest address among equals; free spans coalesce on free);
- bookkeeping costs O(log n) comparisons per allocation and free, whatever the number of
  live allocations and free spans (list updates are memmoves), so a program that makes and
  frees tens of thousands of buffers does not slow down quadratically;
- freed pages are returned to the OS (MADV_DONTNEED), so they read as zero when reused;
  allocations of 2 MiB or more ask for huge pages (MADV_HUGEPAGE) while they live;
- an allocation shared with other processes (share, map_shared) is a memfd mapped over
  its range; freeing it closes the memfd and puts private zeroed memory back, so the range
  never stays aliased to another process's pages. Ordinary allocations never touch a memfd.
"""
import bisect
import ctypes
import mmap
import os
import sys
import threading

from core.errors import OutOfResources, InvalidAllocation

PAGE = 4096
# Where device memory goes when it can: 48 TiB, above what mmap hands out by default on x86-64
# (below 0x7f..., down from the top) and above ASan's shadow (which ends at 0x10007fff7fff).
PREFERRED_BASE = 0x3000_0000_0000
# Python 3.11's mmap module lacks the constant; this is Linux's value on every architecture.
MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)
# Allocations of this size or more are backed by 2 MiB pages where the kernel allows (as a
# GPU maps VRAM in large fragments): kernels streaming through buffers missed the TLB on
# every 4 KiB page (the vector add 2^22: 6.7-7.1 ms on 4 KiB pages, 5.4-5.7 ms on 2 MiB).
# Smaller ones keep 4 KiB pages, so neighbours that are freed or shared stay page-exact.
HUGE_PAGE = 2 << 20
# Address space the arena holds beyond the memory of every pool, for the ranges the virtual
# memory API reserves (core/memory/vmem.py): as a GPU's virtual address space is far larger
# than its memory, a client reserves ranges for memory it has not made yet (and reserves before
# it maps). The arena is MAP_NORESERVE, so the space costs nothing until mapped. Here, not in
# vmem.py, so that hsa_init, which sizes the arena, does not import the virtual memory API.
VMEM_ADDRESS_SPACE = 256 << 30


class Allocation:
    __slots__ = ("address", "size", "owner", "info", "shared_fd")

    def __init__(self, address, size, owner, info):
        self.address = address
        self.size = size
        self.owner = owner        # the pool/region (or runtime part) it came from
        self.info = info          # free-form: what it is for, agents allowed, ...
        self.shared_fd = None     # the memfd behind it once shared with other processes

    @property
    def end(self):
        return self.address + self.size


class Arena:
    def __init__(self, size, base=None):
        """`base`: put the arena at exactly this address (a replayed capture needs its device
        addresses back); InvalidAllocation if anything is mapped there."""
        # Reserved, not committed: MAP_NORESERVE lets a 24 GiB machine reserve more
        # device memory than it has, and pages cost RAM only once touched.
        if base is None:
            # At PREFERRED_BASE when that range is free, so a capture replays in a fresh
            # process at the same addresses (libraries and heaps land far from it); anywhere
            # the kernel puts it otherwise.
            try:
                self._map = FixedMapping(PREFERRED_BASE, size)
                self.base, self._buffer = PREFERRED_BASE, self._map.buffer
            except InvalidAllocation:
                self._map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
                self.base = ctypes.addressof(ctypes.c_char.from_buffer(self._map))
                self._buffer = self._map
        else:
            self._map = FixedMapping(base, size)
            self.base = base
            self._buffer = self._map.buffer
        self._bytes = None
        self.size = size
        self._free = FreeSpans(self.base, size)
        self._live = {}                            # address -> Allocation
        self._starts = []                          # sorted live addresses
        self._lock = threading.Lock()
        self.version = 0                           # bumps on every change: caches key on it
        self.on_change = None                      # called after every change (the native tier's C copy)
        self.used = 0

    @property
    def bytes(self):
        """The whole arena as one writable numpy uint8 array."""
        if self._bytes is None:
            import numpy as np
            self._bytes = np.frombuffer(self._buffer, dtype=np.uint8)
        return self._bytes

    def close(self):
        self._bytes = self._buffer = None
        for alloc in self._live.values():
            if alloc.shared_fd is not None:
                os.close(alloc.shared_fd)
        self._live.clear()
        try:
            self._map.close()
        except BufferError:
            # A numpy view still references the map (e.g. a test holds one); the
            # mapping dies with its last reference instead.
            pass

    def allocate(self, size, align=PAGE, owner=None, info=None):
        """`size` bytes (rounded up to pages) at a multiple of `align`, and always on a page:
        callers ask for their own alignment and need not know the page."""
        if size <= 0:
            raise InvalidAllocation(f"cannot allocate {size} bytes")
        size = -(-size // PAGE) * PAGE
        with self._lock:
            address = self._free.take_fitting(size, max(align, PAGE))
            if address is not None:
                return self._claim(address, size, owner, info)
        raise OutOfResources(f"device arena exhausted: {size} bytes requested, {self.size - self.used} free")

    def allocate_at(self, address, size, owner=None, info=None):
        """An allocation of exactly [address, address + size) (page-aligned), or InvalidAllocation
        if any of it is not free."""
        if size <= 0 or address % PAGE:
            raise InvalidAllocation(f"cannot allocate {size} bytes at {address:#x}")
        size = -(-size // PAGE) * PAGE
        with self._lock:
            if self._free.take_range(address, size):
                return self._claim(address, size, owner, info)
        raise InvalidAllocation(f"[{address:#x}, {address + size:#x}) is not free device memory")

    def _changed(self):
        self.version += 1
        if self.on_change is not None:
            self.on_change()

    def _claim(self, address, size, owner, info):
        """Record [address, address + size), taken from the free spans, as live (lock held)."""
        alloc = Allocation(address, size, owner, info or {})
        if size >= HUGE_PAGE:
            self._map.madvise(mmap.MADV_HUGEPAGE, address - self.base, size)
        self._live[address] = alloc
        bisect.insort(self._starts, address)
        self._changed()
        self.used += size
        return alloc

    def free(self, address):
        with self._lock:
            alloc = self._live.pop(address, None)
            if alloc is None:
                raise InvalidAllocation(f"{address:#x} is not the start of a live allocation")
            del self._starts[bisect.bisect_left(self._starts, address)]
            self._changed()
            self.used -= alloc.size
            if alloc.shared_fd is None:
                self._map.madvise(mmap.MADV_DONTNEED, alloc.address - self.base, alloc.size)
                if alloc.size >= HUGE_PAGE:
                    self._map.madvise(mmap.MADV_NOHUGEPAGE, alloc.address - self.base, alloc.size)
            else:
                self._unshare(alloc)
            self._free.release(alloc.address, alloc.size)
            return alloc

    # -- memory shared with other processes ---------------------------------------------

    def share(self, alloc, name):
        """The memfd behind `alloc`, made on first use: its pages move into it, contents kept
        (a copy of the resident pages, then a remap: writes racing with it may be lost)."""
        from core.native import lib
        with self._lock:
            if alloc.shared_fd is None:
                fd = lib.sg_share_pages(alloc.address, alloc.size, name.encode())
                if fd < 0:
                    raise OutOfResources(f"cannot share {alloc.size} bytes at {alloc.address:#x}")
                alloc.shared_fd = fd
            return alloc.shared_fd

    def map_shared(self, fd, size, owner, info):
        """A new allocation showing the `size` bytes of memfd `fd` (which it takes over)."""
        from core.native import lib
        alloc = self.allocate(size, owner=owner, info=info)
        if lib.sg_map_pages(alloc.address, alloc.size, fd) != 0:
            os.close(fd)
            self.free(alloc.address)
            raise OutOfResources(f"cannot map {size} shared bytes")
        alloc.shared_fd = fd
        return alloc

    def _unshare(self, alloc):
        """Caller holds the lock. Should the remap fail, the range is never handed out again."""
        from core.native import lib
        os.close(alloc.shared_fd)
        alloc.shared_fd = None
        if lib.sg_unshare_pages(alloc.address, alloc.size) != 0:
            raise OutOfResources(f"cannot unmap shared memory at {alloc.address:#x}")

    def find(self, address):
        """The live allocation containing `address`, or None."""
        with self._lock:
            i = bisect.bisect_right(self._starts, address) - 1
            if i < 0:
                return None
            alloc = self._live[self._starts[i]]
            return alloc if address < alloc.end else None

    def allocations(self):
        with self._lock:
            return [self._live[a] for a in self._starts]

    def live_ranges(self):
        """(starts, ends) as sorted uint64 arrays: the engine checks lane addresses against them."""
        import numpy as np
        with self._lock:
            starts = np.array(self._starts, dtype=np.uint64)
            ends = np.array([self._live[a].end for a in self._starts], dtype=np.uint64)
        return starts, ends

    def contains(self, address, size=1):
        return self.base <= address and address + size <= self.base + self.size

    def view(self, address, size):
        """Writable bytes of device memory [address, address+size)."""
        offset = address - self.base
        if offset < 0 or offset + size > self.size:
            raise InvalidAllocation(f"{address:#x}+{size} is outside the device arena")
        return self.bytes[offset:offset + size]


class FreeSpans:
    """The arena's free memory as coalesced spans, kept twice: sorted by address (to merge
    neighbours and find a given range) and by (size, address) (to find the best fit)."""

    def __init__(self, base, size):
        self._by_address = [(base, size)]
        self._by_size = [(size, base)]

    def take_fitting(self, size, align):
        """`size` bytes at `align` from the smallest span sure to hold them (lowest address
        among equals), taken out of the free spans; None when no span is long enough.
        Spans start on pages, so one of size + align - PAGE bytes holds any alignment."""
        i = bisect.bisect_left(self._by_size, (size + max(align, PAGE) - PAGE, 0))
        if i == len(self._by_size):
            return None
        length, start = self._by_size[i]
        address = -(-start // align) * align
        self._split(start, length, address, size)
        return address

    def take_range(self, address, size):
        """Take exactly [address, address + size) if it is free; False when it is not."""
        i = bisect.bisect_right(self._by_address, (address, float("inf"))) - 1
        if i < 0:
            return False
        start, length = self._by_address[i]
        if address + size > start + length:
            return False
        self._split(start, length, address, size)
        return True

    def release(self, address, size):
        """Give [address, address + size) back, merged with the free spans around it."""
        i = bisect.bisect(self._by_address, (address, size))
        if i < len(self._by_address) and address + size == self._by_address[i][0]:
            size += self._remove(*self._by_address[i])
        if i > 0 and sum(self._by_address[i - 1]) == address:
            start, length = self._by_address[i - 1]
            self._remove(start, length)
            address, size = start, length + size
        self._add(address, size)

    def _split(self, start, length, address, size):
        """Replace span (start, length) by what is left around [address, address + size)."""
        self._remove(start, length)
        if address > start:
            self._add(start, address - start)
        if address + size < start + length:
            self._add(address + size, start + length - address - size)

    def _add(self, start, length):
        bisect.insort(self._by_address, (start, length))
        bisect.insort(self._by_size, (length, start))

    def _remove(self, start, length):
        del self._by_address[bisect.bisect_left(self._by_address, (start, length))]
        del self._by_size[bisect.bisect_left(self._by_size, (length, start))]
        return length


class FixedMapping:
    """An anonymous private mapping at a chosen address, with the parts of mmap.mmap the arena
    uses (madvise, close) and its bytes as `buffer`."""
    _libc = None

    def __init__(self, address, size):
        libc = FixedMapping._libc = FixedMapping._libc or _load_libc()
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE
        got = libc.mmap(ctypes.c_void_p(address), ctypes.c_size_t(size),
                        mmap.PROT_READ | mmap.PROT_WRITE, flags, -1, 0)
        if got != address:
            if got not in (None, MAP_FAILED):
                libc.munmap(ctypes.c_void_p(got), ctypes.c_size_t(size))
            raise InvalidAllocation(f"cannot map {size} bytes at {address:#x}: the range is in use")
        self._address, self._size = address, size
        self.buffer = (ctypes.c_char * size).from_address(address)

    def madvise(self, advice, offset, size):
        self._libc.madvise(ctypes.c_void_p(self._address + offset), ctypes.c_size_t(size), advice)

    def close(self):
        # As mmap.mmap refuses to close under exported buffers, a mapping some numpy view still
        # references stays (until the process ends) rather than leave that view dangling.
        if self.buffer is not None and sys.getrefcount(self.buffer) <= 2:
            self.buffer = None
            self._libc.munmap(ctypes.c_void_p(self._address), ctypes.c_size_t(self._size))


# Linux's values on every architecture (Python's mmap module lacks them).
MAP_FIXED_NOREPLACE = 0x100000
MAP_FAILED = (1 << 64) - 1


def _load_libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
    return libc
