"""Where each lane's memory access lands, and moving its bytes: shared by VMEM and DS.

Holds these invariants:
- an access is resolved to element addresses ([k, m]: k active lanes, m elements of 1, 2 or
  4 bytes) in one of two spaces: the arena (global memory and scratch, checked against live
  allocations, faulting) or the workgroup's LDS (bounded: out-of-range reads give 0 and
  out-of-range writes are dropped, as on hardware);
- private (scratch) addresses interleave a dword per lane: byte `off` of lane `t` of a wave
  whose scratch starts at `base` is base + (off // 4) * 4 * lanes + t * 4 + off % 4, for
  MUBUF with the private segment V#, scratch_* and flat accesses alike;
- nothing is written before every lane's access has been checked.
"""
import numpy as np

from core.isa.interp.memory import fault_on_invalid, gather, scatter


class Lds:
    """The chunk's LDS as one byte array; addresses are workgroup * stride + offset."""

    def __init__(self, chunk):
        self.bytes = chunk.lds.reshape(-1)

    def load(self, addresses, nbytes):
        offs = addresses.astype(np.int64)
        if nbytes % 4 == 0 and not (offs & 3).any():
            idx = (offs >> 2)[:, None] + np.arange(nbytes // 4)
            return self.bytes.view(np.uint32)[idx].view(np.uint8).reshape(len(offs), nbytes)
        return self.bytes[offs[:, None] + np.arange(nbytes)]

    def store(self, addresses, values):
        offs = addresses.astype(np.int64)
        self.bytes[offs[:, None] + np.arange(values.shape[1])] = values


class Lanes:
    """Which lanes of a [n, lanes] group take part: all of them (dense, the common case, with no
    index arrays built) or those an index names."""

    def __init__(self, shape, index=None):
        self.shape = shape
        self.index = index            # None (dense) or (wave-in-group [k], lane [k])

    @classmethod
    def of(cls, active):
        return cls(active.shape, None if active.all() else np.nonzero(active))

    @property
    def count(self):
        return self.shape[0] * self.shape[1] if self.index is None else self.index[0].size

    def take(self, array):
        """[n, lanes, ...] (or broadcastable to it) -> [k, ...] for the taking part lanes."""
        array = np.broadcast_to(array, self.shape + np.shape(array)[2:])
        if self.index is None:
            return array.reshape((-1,) + array.shape[2:])
        return array[self.index]

    def place(self, full, values):
        """Write values [k, ...] into full [n, lanes, ...] at the taking part lanes."""
        if self.index is None:
            full.reshape((-1,) + full.shape[2:])[...] = values
        else:
            full[self.index] = values

    def waves(self):
        if self.index is None:
            return np.repeat(np.arange(self.shape[0]), self.shape[1])
        return self.index[0]

    def lanes(self):
        if self.index is None:
            return np.tile(np.arange(self.shape[1]), self.shape[0])
        return self.index[1]

    def subset(self, keep):
        return Lanes(self.shape, (self.waves()[keep], self.lanes()[keep]))


class Access:
    """The taking part lanes of one instruction and their element addresses in one space."""

    def __init__(self, step, space, addresses, lanes, esize, ok=None):
        self.step = step
        self.space = space            # 'arena' or 'lds'
        self.addresses = addresses    # uint64 [k, m]
        self.lanes = lanes            # Lanes
        self.esize = esize
        self.ok = ok                  # LDS and bounded buffers: bool [k, m] elements in range

    def backend(self):
        return self.step.dispatch.memory if self.space == "arena" else Lds(self.step.chunk)

    def in_range(self):
        if self.ok is None:
            return np.ones(self.addresses.shape, np.bool_)
        return self.ok

    def in_bounds(self):
        """This access restricted to its lanes in range (an atomic's: [k, 1] addresses), so
        out-of-bounds buffer lanes are neither checked, applied nor misaligned."""
        if self.ok is None:
            return self
        keep = np.flatnonzero(self.ok.all(axis=1))
        return Access(self.step, self.space, self.addresses[keep], self.lanes.subset(keep), self.esize)

    def check(self):
        """Fault unless every element address lies in a live allocation (arena accesses)."""
        if self.space != "arena" or not self.addresses.size:
            return self
        if self.ok is None:
            fault_on_invalid(self.step, self.step.dispatch.memory, self.addresses, self.esize, self.lanes)
        else:
            rows, _ = np.nonzero(self.ok)
            fault_on_invalid(self.step, self.step.dispatch.memory, self.addresses[self.ok][:, None],
                             self.esize, self.lanes.subset(rows))
        return self

    def load(self):
        """uint32 [k, m] (zero-extended elements; 0 where out of range)."""
        if not self.addresses.size:
            return np.zeros(self.addresses.shape, np.uint32)
        values = gather(self.backend(), self.addresses, self.esize)
        if self.ok is not None:
            values = np.where(self.ok, values, np.uint32(0))
        return values

    def store(self, values):
        if self.space == "arena":
            self.step.dispatch.stores += 1
        if self.ok is not None and not self.ok.all():
            scatter(self.backend(), self.addresses[self.ok], self.esize, values[self.ok])
        elif self.addresses.size:
            scatter(self.backend(), self.addresses, self.esize, values)


def element_offsets(m, esize):
    return (np.arange(m, dtype=np.uint64) * np.uint64(esize))[None, :]


def linear(step, space, lane_addresses, active, m, esize):
    """Access of m consecutive elements from each active lane's address ([n, lanes] uint64)."""
    lanes = Lanes.of(active)
    base = lanes.take(lane_addresses).astype(np.uint64, copy=False)
    return Access(step, space, base[:, None] + element_offsets(m, esize), lanes, esize)


def private(step, offsets, active, m, esize, wave_base=None):
    """Access of m elements at per-lane private offsets ([n, lanes]) in each wave's scratch."""
    w = step.w
    lanes = Lanes.of(active)
    off = lanes.take(offsets).astype(np.uint64)[:, None] + element_offsets(m, esize)
    if wave_base is None:
        wave_base = flat_scratch(step)
    base = lanes.take(wave_base[:, None]).astype(np.uint64)[:, None]
    lane = lanes.lanes().astype(np.uint64)[:, None]
    four = np.uint64(4)
    addresses = base + (off // four) * four * np.uint64(w.lanes) + lane * four + off % four
    return Access(step, "arena", addresses, lanes, esize)


def flat_scratch(step):
    """Each wave's FLAT_SCRATCH (its scratch base) as uint64 [n]: gfx9 keeps it in the SGPR
    pair flat_scratch (operand codes 102:103), later targets in a register of their own."""
    w = step.w
    if step.dispatch.plan.desc.target.flat_scratch == "sgprs":
        pair = w.sgpr[step.idx, 102:104].astype(np.uint64)
        return pair[:, 0] | pair[:, 1] << np.uint64(32)
    return w.flat_scratch[step.idx]


def lds(step, offsets, active, m, esize, stride=None):
    """Access of m elements (stride bytes apart, default esize) at per-lane LDS offsets."""
    if step.inst.mods.get("gds"):
        raise step.illegal(f"{step.inst.mnemonic} gds: GDS data accesses are not modelled")
    lanes = Lanes.of(active)
    chunk = step.chunk
    group = lanes.take(step.w.workgroup[step.idx][:, None]).astype(np.uint64)
    off = lanes.take(offsets).astype(np.uint64) & np.uint64(0xFFFFFFFF)
    step_bytes = np.uint64(esize if stride is None else stride)
    elements = off[:, None] + np.arange(m, dtype=np.uint64)[None, :] * step_bytes
    ok = elements + np.uint64(esize) <= np.uint64(step.dispatch.plan.lds_bytes)
    addresses = group[:, None] * np.uint64(chunk.lds.shape[1]) + np.where(ok, elements, 0)
    return Access(step, "lds", addresses, lanes, esize, ok)
