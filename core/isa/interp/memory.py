"""Device memory as kernels see it: the arena, checked lane by lane, vectorized.

Holds these invariants:
- every access of every active lane is checked against the valid ranges before any
  byte moves; a lane outside them faults the whole instruction, which then writes nothing;
  every check and reduction holds for an empty set of accesses (no lane takes part);
- loads and stores move little-endian bytes through the arena's numpy view; when several
  lanes store to one address the highest (wave, lane) wins, as some serial order would give;
- valid ranges come from the session's memory part (core.memory): arena allocations mapped
  to the kernel's agent and locked/registered host memory, which is reached through its own
  numpy view.
"""
import numpy as np


class DeviceMemory:
    """What a kernel of `agent` may touch: the session's valid ranges (live arena allocations
    mapped to the agent, locked/registered host memory), with the bytes behind them."""

    def __init__(self, session, agent=None):
        self.arena = session.arena
        self.memory = getattr(session, "memory", None)
        self.agent = agent
        self.base = np.uint64(self.arena.base)
        self.end = np.uint64(self.arena.base + self.arena.size)

    def _ranges(self):
        if self.memory is not None:
            return self.memory.valid_ranges(self.agent)
        return self.arena.live_ranges()

    def valid(self, addresses, nbytes):
        """bool per address: [address, address + nbytes) lies in one valid range."""
        starts, ends = self._ranges()
        addresses = addresses.astype(np.uint64, copy=False)
        if starts.size == 0:
            return np.zeros(addresses.shape, np.bool_)
        slot = np.searchsorted(starts, addresses, side="right") - 1
        end = ends[np.maximum(slot, 0)]
        last = addresses + np.uint64(nbytes)
        # `last < addresses`: the access wraps past 2**64 (found by fuzzing kernel arguments).
        return (slot >= 0) & (last >= addresses) & (last <= end)

    def all_valid(self, addresses, nbytes):
        """True when every address is valid (so for none: an instruction whose lanes are all
        out of a buffer's bounds, or inactive, touches nothing); checks the span first, as
        accesses of one instruction nearly always fall in one allocation."""
        if addresses.size == 0:
            return True
        starts, ends = self._ranges()
        if starts.size == 0:
            return False
        low = addresses.min()
        high = int(addresses.max()) + nbytes        # a Python int: no wrap past 2**64
        slot = int(np.searchsorted(starts, low, side="right")) - 1
        if slot >= 0 and low >= starts[slot] and high <= int(ends[slot]):
            return True
        return bool(self.valid(addresses.reshape(-1), nbytes).all())

    def parts(self, addresses):
        """[(mask or None, uint8 view, view start)]: which bytes hold each (valid) address.
        The arena in the common case; registered host ranges for addresses outside it."""
        inside = (addresses >= self.base) & (addresses < self.end)
        if inside.all():
            return [(None, self.arena.bytes, self.base)]
        found = [(inside, self.arena.bytes, self.base)] if inside.any() else []
        for start, end, _kind, view in (self.memory.host_ranges() if self.memory else ()):
            mask = ~inside & (addresses >= np.uint64(start)) & (addresses < np.uint64(end))
            if mask.any():
                found.append((mask, view, np.uint64(start)))
        return found

    def load(self, addresses, nbytes):
        """uint8 [k, nbytes] read at each (checked) address."""
        out = None
        for mask, view, start in self.parts(addresses):
            chunk = _load(view, addresses if mask is None else addresses[mask], start, nbytes)
            if mask is None:
                return chunk
            if out is None:
                out = np.zeros((addresses.size, nbytes), np.uint8)
            out[mask] = chunk
        return out

    def store(self, addresses, values):
        """Write uint8 [k, nbytes] `values` at each (checked) address, in order."""
        for mask, view, start in self.parts(addresses):
            if mask is None:
                _store(view, addresses, start, values)
            else:
                _store(view, addresses[mask], start, values[mask])


def _contiguous(offs, nbytes):
    """The first offset when the k accesses tile one contiguous run (unit-stride lanes: the
    common case), so bytes move by slicing instead of fancy indexing; else None."""
    if offs.size < 2:
        return None
    first = int(offs[0])
    if int(offs[-1]) - first != (offs.size - 1) * nbytes or (np.diff(offs) != nbytes).any():
        return None
    return first


def _load(view, addresses, start, nbytes):
    offs = (addresses - start).view(np.int64)         # offsets < 2^63: reinterpret, no copy
    first = _contiguous(offs, nbytes)
    if first is not None:
        return view[first:first + offs.size * nbytes].reshape(offs.size, nbytes).copy()
    if nbytes % 4 == 0 and not (offs & 3).any() and view.size % 4 == 0:
        idx = (offs >> 2)[:, None] + np.arange(nbytes // 4)
        return view.view(np.uint32)[idx].view(np.uint8).reshape(len(offs), nbytes)
    return view[offs[:, None] + np.arange(nbytes)]


def _store(view, addresses, start, values):
    offs = (addresses - start).view(np.int64)
    nbytes = values.shape[1]
    first = _contiguous(offs, nbytes)
    if first is not None:
        view[first:first + offs.size * nbytes] = np.ascontiguousarray(values).reshape(-1)
        return
    if nbytes % 4 == 0 and not (offs & 3).any() and view.size % 4 == 0:
        idx = (offs >> 2)[:, None] + np.arange(nbytes // 4)
        view.view(np.uint32)[idx] = np.ascontiguousarray(values).view(np.uint32)
        return
    view[offs[:, None] + np.arange(nbytes)] = values


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
