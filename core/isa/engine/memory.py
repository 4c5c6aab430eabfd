"""Device memory as kernels see it: the arena, checked lane by lane, vectorized.

Holds three invariants:
- every access of every active lane is checked against the live allocations before any
  byte moves; a lane outside them faults the whole instruction, which then writes nothing;
- loads and stores move little-endian bytes through the arena's numpy view; when several
  lanes store to one address the highest (wave, lane) wins, as some serial order would give;
- live ranges are re-read only when the arena changed (its `version`).
"""
import numpy as np


class DeviceMemory:
    def __init__(self, session):
        self.arena = session.arena
        self.base = np.uint64(self.arena.base)
        self._version = None
        self._starts = self._ends = None

    def _ranges(self):
        if self._version != self.arena.version:
            self._starts, self._ends = self.arena.live_ranges()
            self._version = self.arena.version
        return self._starts, self._ends

    def valid(self, addresses, nbytes):
        """bool per address: [address, address + nbytes) lies in one live allocation."""
        starts, ends = self._ranges()
        addresses = addresses.astype(np.uint64, copy=False)
        if starts.size == 0:
            return np.zeros(addresses.shape, np.bool_)
        slot = np.searchsorted(starts, addresses, side="right") - 1
        inside = slot >= 0
        end = ends[np.maximum(slot, 0)]
        return inside & (addresses + np.uint64(nbytes) <= end) & (addresses >= self.base)

    def all_valid(self, addresses, nbytes):
        """True when every address is valid; checks the span first, as accesses of one
        instruction nearly always fall in one allocation."""
        starts, ends = self._ranges()
        if starts.size == 0:
            return False
        low, high = addresses.min(), addresses.max() + np.uint64(nbytes)
        slot = int(np.searchsorted(starts, low, side="right")) - 1
        if slot >= 0 and low >= starts[slot] and high <= ends[slot]:
            return True
        return bool(self.valid(addresses.reshape(-1), nbytes).all())

    def offsets(self, addresses):
        return (addresses.astype(np.uint64, copy=False) - self.base).astype(np.int64)

    def load(self, addresses, nbytes):
        """uint8 [k, nbytes] read at each (checked) address."""
        offs = self.offsets(addresses)
        data = self.arena.bytes
        if nbytes % 4 == 0 and not (offs & 3).any():
            words = data.view(np.uint32)
            idx = (offs >> 2)[:, None] + np.arange(nbytes // 4)
            return words[idx].view(np.uint8).reshape(len(offs), nbytes)
        return data[offs[:, None] + np.arange(nbytes)]

    def store(self, addresses, values):
        """Write uint8 [k, nbytes] `values` at each (checked) address, in order."""
        offs = self.offsets(addresses)
        nbytes = values.shape[1]
        data = self.arena.bytes
        if nbytes % 4 == 0 and not (offs & 3).any():
            words = data.view(np.uint32)
            idx = (offs >> 2)[:, None] + np.arange(nbytes // 4)
            words[idx] = np.ascontiguousarray(values).view(np.uint32)
            return
        data[offs[:, None] + np.arange(nbytes)] = values

    def words(self):
        return self.arena.bytes.view(np.uint32)


def fault_on_invalid(step, mem, addresses, nbytes, lanes):
    """Raise a memory fault naming the first lane whose access is outside memory.

    addresses: uint64 [k, m] element addresses of the k lanes `lanes` (an access.Lanes)."""
    if mem.all_valid(addresses, nbytes):
        return
    ok = mem.valid(addresses.reshape(-1), nbytes).reshape(addresses.shape).all(axis=1)
    bad = int(np.flatnonzero(~ok)[0])
    wave, lane = int(lanes.waves()[bad]), int(lanes.lanes()[bad])
    first = addresses[bad][~mem.valid(addresses[bad], nbytes)][0]
    raise step.memory_fault("access outside every live allocation", wave, lane, int(first))


def gather(mem, addresses, esize):
    """uint32 [k, m]: element of `esize` bytes (1, 2, 4) at each address, zero-extended."""
    flat = addresses.reshape(-1)
    if esize == 4:
        return mem.load(flat, 4).view(np.uint32).reshape(addresses.shape)
    raw = mem.load(flat, esize)
    value = raw[:, 0].astype(np.uint32)
    if esize == 2:
        value |= raw[:, 1].astype(np.uint32) << np.uint32(8)
    return value.reshape(addresses.shape)


def scatter(mem, addresses, esize, values):
    flat = addresses.reshape(-1)
    values = np.ascontiguousarray(values.reshape(-1).astype(np.uint32))
    raw = values.view(np.uint8).reshape(-1, 4)[:, :esize]
    mem.store(flat, raw)
