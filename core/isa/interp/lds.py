"""DS instructions: LDS reads, writes (one and two addresses), atomics, ds_swizzle,
ds_bpermute/ds_permute, ds_append/ds_consume (LDS or GDS counters). The GWS family is in gws.

Holds these invariants:
- a lane's LDS address is its 32-bit VGPR plus the instruction offset(s), inside its own
  workgroup's LDS; out-of-range reads give 0 and out-of-range writes are dropped;
- cross-lane DS operations (swizzle, permutes) move data between lanes without touching LDS,
  and a lane reading an inactive lane gets 0;
- GDS is reached only by ds_append/ds_consume; any other DS instruction with the gds bit
  faults rather than touching LDS in its place.
"""
import numpy as np

from core.isa.alu import merge16
from core.isa.handler_tables import fill
from core.isa.interp import access as acc
from core.isa.interp import atomics
from core.isa.interp.registry import HANDLERS, handles
from core.isa.interp.vmem import wide_read
from core.isa.semantics.atomics import DS_TWO_DATA_OPS, ds_value_and_second
from core.isa.semantics.lds import (TRANSPOSED_READS, ds_offsets, ds_parts, memory_operations,
                                    swizzle_plan, transposed_sources)


def _addresses(step, addr):
    return step.ops.vector(addr).astype(np.uint64)


def _read(form, pair=False, st64=False):
    esize, count, signed, half = form

    def run(step, inst):
        vdst, addr, _ = ds_parts(inst, True)
        active = step.ops.exec
        base = _addresses(step, addr)
        ops = step.ops
        offsets = ds_offsets(inst, esize * count, pair, st64)
        results = []
        for off in offsets:
            access = acc.lds(step, base + np.uint64(off), active, count, esize)
            values = np.zeros((step.n, step.w.lanes, count), np.uint32)
            access.lanes.place(values, access.load())
            results.append(values)
        values = np.concatenate(results, axis=-1)
        if signed:
            sign = np.uint32(1 << (8 * esize - 1))
            values = (values ^ sign) - sign
            if half:
                values &= np.uint32(0xFFFF)
        if half:
            ops.vgpr_write(vdst.index, merge16(ops.vgpr_read(vdst.index), values[..., 0], half == "hi"), active)
            return
        for j in range(values.shape[-1]):
            ops.vgpr_write(vdst.index + j, values[..., j], active)
    return run


def _read_transposed(bits):
    """gfx950's ds_read_b64_tr_b*: 64 bits per lane, traded within groups of 16 lanes
    (core.isa.semantics.lds.TRANSPOSED_READS)."""
    dtype = np.uint16 if bits == 16 else np.uint8

    def run(step, inst):
        vdst, addr, _ = ds_parts(inst, True)
        active = step.ops.exec
        base = _addresses(step, addr) + np.uint64(ds_offsets(inst, 8, False, False)[0])
        access = acc.lds(step, base, active, 2, 4)
        loaded = np.zeros((step.n, step.w.lanes, 2), np.uint32)
        access.lanes.place(loaded, access.load())
        elements = loaded.view(dtype)                              # [n, lanes, 64 / bits]
        source_lane, source_element = transposed_sources(bits, step.w.lanes)
        words = np.ascontiguousarray(elements[:, source_lane, source_element]).view(np.uint32)
        for j in range(2):
            step.ops.vgpr_write(vdst.index + j, words[..., j], active)
    return run


def _write(form, pair=False, st64=False):
    esize, count, high = form

    def run(step, inst):
        _, addr, data = ds_parts(inst, False)
        active = step.ops.exec
        base = _addresses(step, addr)
        targets = tuple(zip(ds_offsets(inst, esize * count, pair, st64), data))
        for off, source in targets:
            values = np.stack([step.ops.vgpr_read(source.index + j) for j in range(count)], axis=-1)
            if high:
                values = values >> np.uint32(16)
            access = acc.lds(step, base + np.uint64(off), active, count, esize)
            access.store(access.lanes.take(values))
    return run


def _atomic(op, wide, returns, new_first=False):
    dtype = np.uint64 if wide else np.uint32
    words = 2 if wide else 1
    two_data = op in DS_TWO_DATA_OPS

    def run(step, inst):
        vdst, addr, data = ds_parts(inst, returns)
        active = step.ops.exec
        base = _addresses(step, addr) + np.uint64(int(inst.mods.get("offset", 0)))
        access = acc.lds(step, base, active, 1, 8 if wide else 4)
        first = access.lanes.take(wide_read(step, data[0].index, words))
        second = access.lanes.take(wide_read(step, data[1].index, words)) if two_data else None
        value, compare = ds_value_and_second(op, new_first, first, second)
        inside = access.ok[:, 0]
        memory = step.chunk.lds.reshape(-1).view(dtype)
        index = (access.addresses[inside, 0] // np.uint64(words * 4)).astype(np.int64)
        old = np.zeros(inside.size, dtype)
        old[inside] = atomics.apply(memory, index, op, value[inside],
                                    None if compare is None else compare[inside])
        if returns:
            full = np.zeros((step.n, step.w.lanes), dtype)
            access.lanes.place(full, old)
            step.ops.vgpr_write(vdst.index, (full & dtype(0xFFFFFFFF)).astype(np.uint32), active)
            if wide:
                step.ops.vgpr_write(vdst.index + 1, (full >> np.uint64(32)).astype(np.uint32), active)
    return run


def _exchange2(wide, st64):
    """ds_wrxchg2(st64)_rtn: swap data0/data1 with the elements at offset0/offset1, returning
    both old elements (offsets scaled by the element size, and by 64 for st64)."""
    words = 2 if wide else 1

    def run(step, inst):
        vdst, addr, data = ds_parts(inst, True)
        active = step.ops.exec
        base = _addresses(step, addr)
        old = []
        for k, off in enumerate(ds_offsets(inst, 4 * words, True, st64)):
            access = acc.lds(step, base + np.uint64(off), active, words, 4)
            values = np.zeros((step.n, step.w.lanes, words), np.uint32)
            access.lanes.place(values, access.load())
            new = np.stack([step.ops.vgpr_read(data[k].index + j) for j in range(words)], axis=-1)
            access.store(access.lanes.take(new))
            old.append(values)
        old = np.concatenate(old, axis=-1)
        for j in range(old.shape[-1]):
            step.ops.vgpr_write(vdst.index + j, old[..., j], active)
    return run


fill(HANDLERS, memory_operations(),
     {"read": _read, "write": _write, "exchange2": _exchange2, "atomic": _atomic})
for _name, _bits in TRANSPOSED_READS.items():
    HANDLERS[_name] = _read_transposed(_bits)


# ---- cross-lane DS ------------------------------------------------------------------------
def _gather_lanes(step, values, source):
    """values [n, lanes] read from lanes source [n, lanes]; inactive source lanes give 0."""
    values = np.broadcast_to(values, (step.n, step.w.lanes))
    got = np.take_along_axis(values, source, axis=1)
    alive = np.take_along_axis(step.ops.exec, source, axis=1)
    return np.where(alive, got, np.uint32(0))


@handles("ds_swizzle_b32")
def _swizzle(step, inst):
    vdst, addr, _ = ds_parts(inst, True)
    lanes = step.w.lanes
    source = np.broadcast_to(swizzle_plan(int(inst.mods.get("offset", 0)), lanes), (step.n, lanes))
    step.ops.vgpr_write(vdst.index, _gather_lanes(step, step.ops.vector(addr), source), step.ops.exec)


def _bpermute(inactive_too):
    """ds_bpermute_b32 (an inactive source lane gives 0), and gfx12's ds_bpermute_fi_b32
    ("fetch inactive": its register's value)."""
    def run(step, inst):
        vdst, addr, data = ds_parts(inst, True)
        offset = int(inst.mods.get("offset", 0))
        source = ((step.ops.vector(addr).astype(np.int64) + offset) // 4) % step.w.lanes
        source = np.broadcast_to(source, (step.n, step.w.lanes))
        values = step.ops.vector(data[0])
        got = (np.take_along_axis(np.broadcast_to(values, source.shape), source, axis=1) if inactive_too
               else _gather_lanes(step, values, source))
        step.ops.vgpr_write(vdst.index, got, step.ops.exec)
    return run


handles("ds_bpermute_b32")(_bpermute(False))
handles("ds_bpermute_fi_b32")(_bpermute(True))


@handles("ds_permute_b32")
def _permute(step, inst):
    vdst, addr, data = ds_parts(inst, True)
    offset = int(inst.mods.get("offset", 0))
    active = step.ops.exec
    target = ((step.ops.vector(addr).astype(np.int64) + offset) // 4) % step.w.lanes
    values = np.broadcast_to(step.ops.vector(data[0]), (step.n, step.w.lanes))
    out = np.zeros((step.n, step.w.lanes), np.uint32)
    wave, lane = np.nonzero(active)
    out[wave, target[wave, lane]] = values[wave, lane]        # highest lane wins a conflict
    step.ops.vgpr_write(vdst.index, out, active)


def _append(step, inst, op):
    """ds_append/ds_consume: add/subtract the wave's active lane count at the dword M0[15:0] +
    offset of the workgroup's LDS (or, with gds, of the queue's GDS); every active lane gets
    the value before. An address past the memory reads 0 and changes nothing."""
    vdst = inst.dst[0]
    active = step.ops.exec
    counts = active.sum(axis=1).astype(np.uint32)
    offset = (step.ops.m0().astype(np.int64) & 0xFFFF) + int(inst.mods.get("offset", 0))
    if inst.mods.get("gds"):
        sync = step.dispatch.plan.global_sync
        if sync is None:
            raise step.illegal(f"{inst.mnemonic} gds: the queue has no GDS")
        memory, start, size = sync.gds.view(np.uint32), np.zeros(step.n, np.int64), sync.gds.size
    else:
        stride = step.chunk.lds.shape[1]
        memory = step.chunk.lds.reshape(-1).view(np.uint32)
        start, size = step.w.workgroup[step.wave_indices()] * stride, step.dispatch.plan.lds_bytes
    inside = offset + 4 <= size
    old = np.zeros(step.n, np.uint32)
    old[inside] = atomics.apply(memory, (start + offset)[inside] // 4, op, counts[inside])
    step.ops.vgpr_write(vdst.index, np.broadcast_to(old[:, None], active.shape), active)


@handles("ds_append")
def _ds_append(step, inst):
    _append(step, inst, "add")


@handles("ds_consume")
def _ds_consume(step, inst):
    _append(step, inst, "sub")
