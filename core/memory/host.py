"""Host memory outside the arena that kernels may reach: locked and registered ranges.

Holds these invariants:
- a range is recorded only if every page of it is mapped in this process when it is
  locked or registered (mincore), so the engine never gets a view of unmapped memory;
- locking the same range again counts: it stays reachable until unlocked as many times;
  a different size at the same start is another range, as ROCr permits overlapping locks;
- `ranges()` is sorted by start; ranges may overlap (ROCr allows overlapping locks),
  so address checks must merge them (Memory.valid_ranges does);
- locked memory has a second, agent address (`agent_address`): the host address plus
  AGENT_ALIAS_OFFSET. ROCr on a discrete GPU hands out a GPU virtual address distinct
  from the host pointer, and clients rely on that (HIP 5.2 keys pinned memory by both
  addresses and aborts in hipHostUnregister when they coincide). Host addresses are
  below 2**47, so aliases lie in [2**47, 2**48): no process mapping, no flat aperture,
  and the CPU faults on them as it would on a GPU-only address.
"""
import bisect
import ctypes
import os
import threading

PAGE = os.sysconf("SC_PAGE_SIZE")
AGENT_ALIAS_OFFSET = 1 << 47
LOCKED = "locked"
REGISTERED = "registered"

# Bytes of address space one mincore call checks (its answer takes one byte per page).
_MINCORE_SPAN = 256 << 20

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_libc.mincore.restype = ctypes.c_int


def is_mapped(address, size):
    """True when every page of [address, address+size) is mapped in this process.

    mincore answers for up to _MINCORE_SPAN bytes per system call (ENOMEM on any hole),
    where probing page by page would cost one call per 4 KiB. Its answer buffer is fixed:
    sized by the range, a caller's absurd size would allocate gigabytes (found by fuzzing).
    """
    if address <= 0 or size <= 0 or address + size > 1 << 47:
        return False
    start = address // PAGE * PAGE
    end = -(-(address + size) // PAGE) * PAGE
    residency = ctypes.create_string_buffer(_MINCORE_SPAN // PAGE)
    for chunk in range(start, end, _MINCORE_SPAN):
        if _libc.mincore(chunk, min(_MINCORE_SPAN, end - chunk), residency) != 0:
            return False
    return True


def agent_address(host_address):
    """The address GPUs use for locked host memory at `host_address`."""
    return host_address + AGENT_ALIAS_OFFSET


def is_agent_alias(address):
    return AGENT_ALIAS_OFFSET <= address < 2 * AGENT_ALIAS_OFFSET


def view(address, size):
    """A writable numpy uint8 view of host memory the caller knows to be mapped."""
    import numpy as np      # not at the top: hsa_init does not need numpy
    return np.ctypeslib.as_array((ctypes.c_uint8 * size).from_address(address))


class HostRange:
    __slots__ = ("start", "size", "kind", "agents", "pool", "count", "user_data")

    def __init__(self, start, size, kind, agents, pool):
        self.start = start
        self.size = size
        self.kind = kind          # LOCKED or REGISTERED
        self.agents = agents      # GPU agents that may reach it (lock), all GPUs (register)
        self.pool = pool          # the CPU pool whose properties it takes (lock_to_pool)
        self.count = 1
        self.user_data = 0

    @property
    def end(self):
        return self.start + self.size


class HostRanges:
    def __init__(self):
        self._ranges = []          # sorted by (start, kind)
        self._lock = threading.Lock()
        self.version = 0
        self.on_change = None      # called after every change (the native tier's C copy)

    def add(self, start, size, kind, agents, pool=None):
        """Record a range, or count it again if the same range is already there."""
        with self._lock:
            for r in self._ranges:
                if (r.start, r.size, r.kind) == (start, size, kind):
                    r.count += 1
                    return r
            entry = HostRange(start, size, kind, agents, pool)
            keys = [(r.start, r.kind) for r in self._ranges]
            self._ranges.insert(bisect.bisect(keys, (start, kind)), entry)
            self._changed()
            return entry

    def _changed(self):
        self.version += 1
        if self.on_change is not None:
            self.on_change()

    def remove(self, start, kind, size=None):
        """Drop one count of the latest range recorded at `start`; False if there is none."""
        with self._lock:
            matches = [r for r in self._ranges if r.start == start and r.kind == kind
                       and (size is None or r.size == size)]
            if not matches:
                return False
            entry = matches[-1]
            entry.count -= 1
            if entry.count == 0:
                self._ranges.remove(entry)
                self._changed()
            return True

    def containing(self, address, kind=None):
        """The range holding `address` (the innermost-starting one), or None."""
        with self._lock:
            best = None
            for r in self._ranges:
                if r.start <= address < r.end and (kind is None or r.kind == kind):
                    if best is None or r.start >= best.start:
                        best = r
            return best

    def ranges(self):
        with self._lock:
            return list(self._ranges)

    def clear(self):
        with self._lock:
            self._ranges = []
            self._changed()
