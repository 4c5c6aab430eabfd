"""Where each lane's memory access lands, and moving its bytes: shared by VMEM and DS.

Holds three invariants:
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

from core.isa.engine.memory import fault_on_invalid, gather, scatter


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


class Access:
    """The active lanes of one instruction and their element addresses in one space."""

    def __init__(self, step, space, addresses, positions, esize, ok=None):
        self.step = step
        self.space = space            # 'arena' or 'lds'
        self.addresses = addresses    # uint64 [k, m]
        self.positions = positions    # (wave-in-group [k], lane [k])
        self.esize = esize
        self.ok = ok                  # LDS: bool [k, m] elements inside the allocation

    def backend(self):
        return self.step.dispatch.memory if self.space == "arena" else Lds(self.step.chunk)

    def in_range(self):
        """bool [k, m]: LDS elements inside the allocation (arena accesses were checked)."""
        if self.ok is None:
            return np.ones(self.addresses.shape, np.bool_)
        return self.ok

    def check(self):
        if self.space == "arena" and self.addresses.size:
            positions = np.stack(self.positions, axis=1)
            fault_on_invalid(self.step, self.step.dispatch.memory, self.addresses, self.esize, positions)
        return self

    def load(self):
        if not self.addresses.size:
            return np.zeros(self.addresses.shape, np.uint32)
        ok = self.in_range()
        values = gather(self.backend(), self.addresses, self.esize)
        return np.where(ok, values, 0).astype(np.uint32)

    def store(self, values):
        ok = self.in_range()
        if not ok.all():
            scatter(self.backend(), self.addresses[ok], self.esize, values[ok])
        elif self.addresses.size:
            scatter(self.backend(), self.addresses, self.esize, values)

    def subset(self, keep):
        return Access(self.step, self.space, self.addresses[keep],
                      (self.positions[0][keep], self.positions[1][keep]), self.esize,
                      None if self.ok is None else self.ok[keep])


def element_offsets(m, esize):
    return (np.arange(m, dtype=np.uint64) * np.uint64(esize))[None, :]


def linear(step, space, lane_addresses, active, m, esize):
    """Access of m consecutive elements from each active lane's address ([n, lanes] uint64)."""
    positions = np.nonzero(active)
    base = lane_addresses[positions].astype(np.uint64)
    return Access(step, space, base[:, None] + element_offsets(m, esize), positions, esize)


def private(step, offsets, active, m, esize, wave_base=None):
    """Access of m elements at per-lane private offsets ([n, lanes]) in each wave's scratch."""
    w = step.w
    positions = np.nonzero(active)
    off = offsets[positions].astype(np.uint64)[:, None] + element_offsets(m, esize)
    if wave_base is None:
        wave_base = w.flat_scratch[step.idx]
    base = np.broadcast_to(wave_base[:, None], active.shape)[positions].astype(np.uint64)[:, None]
    lane = positions[1].astype(np.uint64)[:, None]
    lanes = np.uint64(w.lanes)
    four = np.uint64(4)
    addresses = base + (off // four) * four * lanes + lane * four + off % four
    return Access(step, "arena", addresses, positions, esize)


def lds(step, offsets, active, m, esize, stride=None):
    """Access of m elements (stride bytes apart, default esize) at per-lane LDS offsets."""
    positions = np.nonzero(active)
    chunk = step.chunk
    group = step.w.workgroup[step.wave_indices()][positions[0]].astype(np.uint64)
    off = offsets[positions].astype(np.uint64) & np.uint64(0xFFFFFFFF)
    step_bytes = np.uint64(esize if stride is None else stride)
    elements = off[:, None] + np.arange(m, dtype=np.uint64)[None, :] * step_bytes
    ok = elements + np.uint64(esize) <= np.uint64(step.dispatch.lds_bytes)
    addresses = group[:, None] * np.uint64(chunk.lds.shape[1]) + np.where(ok, elements, 0)
    return Access(step, "lds", addresses, positions, esize, ok)


def scatter_rows(step, access, values, n_lanes_shape):
    """Place per-active-lane values [k] back into a [n, lanes] array (zeros elsewhere)."""
    full = np.zeros(n_lanes_shape, np.uint32)
    full[access.positions] = values
    return full
