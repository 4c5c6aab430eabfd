"""Vector memory: GLOBAL, FLAT, SCRATCH, MUBUF and MTBUF loads, stores and atomics of every
width, formatted buffer access included (conversions in core.isa.interp.formats).

Holds these invariants:
- addresses follow the encodings: GLOBAL is vaddr(64) + offset, or saddr(64) + vaddr(32) +
  offset; FLAT addresses inside the shared/private apertures go to LDS/scratch; SCRATCH and
  the private segment V# reach the wave's interleaved scratch; other V#s address linearly
  with stride/index and bounds (out-of-range loads give 0, stores are dropped);
- sub-dword loads zero- or sign-extend; d16 loads write one half and keep the other; d16_hi
  stores take the high half;
- atomics return the pre-op value (glc) in the order of core.isa.interp.atomics.
"""
import numpy as np

from core.isa.alu import merge16
from core.isa.interp import access as acc
from core.isa.interp import atomics, formats
from core.isa.apertures import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
from core.isa.interp.registry import HANDLERS
from core.isa.semantics.atomics import COMPARE_OPS
from core.isa.semantics.vmem import LDS_LOADS, VMEM_OPS, Atomic, Load, Store, family as _family
from core.isa.semantics.vmem import named_operands as _named

def _offset(inst):
    return int(inst.mods.get("offset", 0))


def _buffer_offset(inst):
    """A buffer instruction's offset as the 32-bit unsigned term it is in the sum with the
    VGPR offset (gfx12's may be negative: the sum wraps)."""
    return _offset(inst) & 0xFFFFFFFF


# ---- address resolution -------------------------------------------------------------------
def _global_lanes(step, inst, vaddr, saddr):
    ops = step.ops
    if vaddr is None:                      # *_addtid: saddr + offset + 4 * lane
        lanes = np.arange(step.w.lanes, dtype=np.uint64) * np.uint64(4)
        base = ops.scalar(saddr, "b64")[:, None] + lanes[None, :]
    elif saddr is None or saddr.kind in ("off", "null"):
        base = ops.vector(vaddr, "b64")
    else:
        base = ops.scalar(saddr, "b64")[:, None] + ops.vector(vaddr, "b32").astype(np.uint64)
    return base + np.uint64(_offset(inst) & 0xFFFFFFFFFFFFFFFF)


def _resolve(step, inst, family, ops_list, m, esize, active):
    """List of Access objects (one per memory space hit) for the active lanes."""
    if family == "GLOBAL":
        vaddr, saddr = ops_list.get("addr"), ops_list.get("saddr")
        return [acc.linear(step, "arena", _global_lanes(step, inst, vaddr, saddr), active, m, esize).check()]
    if family == "FLAT":
        address = _global_lanes(step, inst, ops_list["addr"], None)
        hi = (address >> np.uint64(32)).astype(np.uint32)
        shared = active & (hi == SHARED_APERTURE_HI)
        private = active & (hi == PRIVATE_APERTURE_HI)
        rest = active & ~shared & ~private
        low = address & np.uint64(0xFFFFFFFF)
        found = []
        if rest.any():
            found.append(acc.linear(step, "arena", address, rest, m, esize).check())
        if shared.any():
            found.append(acc.lds(step, low, shared, m, esize))
        if private.any():
            found.append(acc.private(step, low, private, m, esize).check())
        return found
    if family == "SCRATCH":
        offset = np.full((step.n, step.w.lanes), _offset(inst) & 0xFFFFFFFF, np.uint64)
        if ops_list.get("addr") is not None and ops_list["addr"].kind == "vgpr":
            offset = offset + step.ops.vector(ops_list["addr"]).astype(np.uint64)
        saddr = ops_list.get("saddr")
        if saddr is not None and saddr.kind not in ("off", "null"):
            offset = offset + step.ops.scalar(saddr)[:, None].astype(np.uint64)
        return [acc.private(step, offset & np.uint64(0xFFFFFFFF), active, m, esize).check()]
    if family == "MUBUF":
        return [_buffer(step, inst, ops_list, m, esize, active)]
    raise step.illegal(f"{family} addressing is not modelled")


def _buffer(step, inst, ops_list, m, esize, active):
    ops = step.ops
    rsrc = ops.scalar_regs(ops_list["srsrc"], 4).astype(np.uint64)         # [n, 4]
    base = rsrc[:, 0] | ((rsrc[:, 1] & np.uint64(0xFFFF)) << np.uint64(32))
    stride = (rsrc[:, 1] >> np.uint64(16)) & np.uint64(0x3FFF)
    swizzle = (rsrc[:, 1] >> np.uint64(31)) & np.uint64(1)
    records = rsrc[:, 2]
    index_stride = np.uint64(8) << ((rsrc[:, 3] >> np.uint64(21)) & np.uint64(3))
    add_tid = (rsrc[:, 3] >> np.uint64(23)) & np.uint64(1)
    soffset = ops.scalar(ops_list["soffset"]).astype(np.uint64)
    vaddr = ops_list.get("vaddr")
    if (not inst.mods.get("idxen") and (swizzle == 1).all() and (stride == 0).all()
            and (add_tid == 1).all() and (index_stride == step.w.lanes).all()):
        # The private segment V#: per-lane interleaved scratch, the common case at -O0.
        offset = np.full((step.n, 1), _buffer_offset(inst), np.uint64)
        if inst.mods.get("offen"):
            offset = (offset + ops.vector(vaddr).astype(np.uint64)) & np.uint64(0xFFFFFFFF)
        return acc.private(step, offset, active, m, esize, wave_base=base + soffset).check()
    shape = (step.n, step.w.lanes)
    offset = np.full(shape, _buffer_offset(inst), np.uint64)
    index = np.zeros(shape, np.uint64)
    if inst.mods.get("idxen") and inst.mods.get("offen"):
        index = index + ops.vector(vaddr).astype(np.uint64)
        offset = offset + ops.vgpr_read(vaddr.index + 1).astype(np.uint64)
    elif inst.mods.get("idxen"):
        index = index + ops.vector(vaddr).astype(np.uint64)
    elif inst.mods.get("offen"):
        offset = offset + ops.vector(vaddr).astype(np.uint64)
    offset &= np.uint64(0xFFFFFFFF)
    index = index + add_tid[:, None] * np.arange(step.w.lanes, dtype=np.uint64)[None, :]
    lanes = acc.Lanes.of(active)
    wave = lanes.waves()
    off = lanes.take(offset)[:, None] + acc.element_offsets(m, esize)
    idx = lanes.take(index)[:, None]
    base, soffset, stride = base[wave][:, None], soffset[wave][:, None], stride[wave][:, None]
    if np.all(swizzle == 1):
        istride = index_stride[wave][:, None]
        four = np.uint64(4)
        addresses = (base + soffset + (idx // istride * stride + off // four * four) * istride
                     + idx % istride * four + off % four)
        return acc.Access(step, "arena", addresses, lanes, esize).check()
    if np.any(swizzle == 1):
        raise step.illegal("a wave group mixes swizzled and linear buffer descriptors")
    records = records[wave][:, None]
    in_bounds = np.where(stride == 0, off + np.uint64(esize) <= records, (idx < records) & (off < stride))
    addresses = base + soffset + idx * stride + off
    return acc.Access(step, "arena", addresses, lanes, esize, in_bounds).check()


# ---- loads, stores, atomics ---------------------------------------------------------------
def _load(form):
    esize, count, signed, half = form

    def run(step, inst):
        family = _family(inst)
        named = _named(family, inst)
        active = step.ops.exec
        vdst = named["vdst"]
        results = np.zeros((step.n, step.w.lanes, count), np.uint32)
        for access in _resolve(step, inst, family, named, count, esize, active):
            access.lanes.place(results, access.load())
        if signed:
            bits = 8 * esize
            sign = np.uint32(1 << (bits - 1))
            results = (results ^ sign) - sign
            if half:
                results &= np.uint32(0xFFFF)
        ops = step.ops
        if half:
            merged = merge16(ops.vgpr_read(vdst.index), results[..., 0], half == "hi")
            ops.vgpr_write(vdst.index, merged, active)
            return
        for j in range(count):
            ops.vgpr_write(vdst.index + j, results[..., j], active)
    return run


def _load_to_lds(form):
    """global_load_lds_*: the lanes' data to LDS at M0 + offset + lane * size (LDS_LOADS)."""
    esize, count, _, _ = form

    def run(step, inst):
        named = _named("GLOBAL", inst)
        active = step.ops.exec
        values = np.zeros((step.n, step.w.lanes, count), np.uint32)
        for access in _resolve(step, inst, "GLOBAL", named, count, esize, active):
            access.lanes.place(values, access.load())
        lane = np.arange(step.w.lanes, dtype=np.uint64) * np.uint64(esize * count)
        start = (step.ops.m0().astype(np.uint64)[:, None] + np.uint64(_offset(inst) & 0xFFFFFFFF)
                 + lane[None, :])
        target = acc.lds(step, start, active, count, esize)
        target.store(target.lanes.take(values))
    return run


def _store(form):
    esize, count, high = form

    def run(step, inst):
        family = _family(inst)
        named = _named(family, inst)
        active = step.ops.exec
        data = named["data"]
        values = np.stack([step.ops.vgpr_read(data.index + j) for j in range(count)], axis=-1)
        if high:
            values = values >> np.uint32(16)
        for access in _resolve(step, inst, family, named, count, esize, active):
            access.store(access.lanes.take(values))
    return run


def _atomic(record):
    op, wide = record
    dtype = np.uint64 if wide else np.uint32
    words = 2 if wide else 1
    compare = op in COMPARE_OPS

    def run(step, inst):
        family = _family(inst)
        named = _named(family, inst)
        active = step.ops.exec
        data = named["data"]
        value = wide_read(step, data.index, words)
        cmp = wide_read(step, data.index + words, words) if compare else None
        old_all = np.zeros((step.n, step.w.lanes), dtype)
        step.dispatch.stores += 1
        # Out-of-bounds buffer lanes take no part: no fault, no change, 0 returned.
        accesses = [a.in_bounds() for a in _resolve(step, inst, family, named, 1, 8 if wide else 4, active)]
        for access in accesses:                  # every lane is checked before any applies
            misaligned = access.addresses[:, 0] % np.uint64(8 if wide else 4) != 0
            if misaligned.any():
                bad = int(np.flatnonzero(misaligned)[0])
                raise step.memory_fault("misaligned atomic", int(access.lanes.waves()[bad]),
                                        access.lanes.lanes()[bad], int(access.addresses[bad, 0]))
        for access in accesses:
            apply_atomic(step, access, op, value, cmp, old_all)
        if named["vdst"] is not None and inst.mods.get("glc"):
            wide_write(step, named["vdst"].index, old_all, active)
    return run


def apply_atomic(step, access, op, value, cmp, old_all):
    """Apply `op` (core.isa.interp.atomics) at the lanes' addresses of `access` with the
    [n, lanes] data `value` (and `cmp`); their old values go to old_all [n, lanes], whose
    dtype (uint32 or uint64) is the atomic's width. Device memory takes host atomics where the
    dispatch has a compare_exchange (inside the native tier's callouts); LDS never does (a
    callout has its workgroup's LDS to itself)."""
    dtype = old_all.dtype.type
    old = np.zeros(access.addresses.shape[0], dtype)
    taken = access.lanes.take(value)
    compared = None if cmp is None else access.lanes.take(cmp)
    shared = step.dispatch.compare_exchange if access.space != "lds" else None
    for mask, memory, index in word_views(step, access, dtype):
        keep = slice(None) if mask is None else mask
        against = None if compared is None else compared[keep]
        if shared is None:
            old[keep] = atomics.apply(memory, index, op, taken[keep], against)
        else:
            old[keep] = atomics.apply_shared(memory, index, op, taken[keep], against, shared)
    access.lanes.place(old_all, old)


def wide_read(step, reg, words):
    """One (uint32) or two (uint64, low dword first) VGPRs as [n, lanes] values."""
    lo = step.ops.vgpr_read(reg)
    if words == 1:
        return lo
    return lo.astype(np.uint64) | (step.ops.vgpr_read(reg + 1).astype(np.uint64) << np.uint64(32))


def wide_write(step, reg, values, active):
    """Write uint32 values to one VGPR, uint64 values to two (low dword first)."""
    step.ops.vgpr_write(reg, (values & values.dtype.type(0xFFFFFFFF)).astype(np.uint32), active)
    if values.dtype == np.uint64:
        step.ops.vgpr_write(reg + 1, (values >> np.uint64(32)).astype(np.uint32), active)


def word_views(step, access, dtype):
    """[(lane mask or None, memory as dtype words, word index per lane)] for an atomic."""
    size = np.uint64(np.dtype(dtype).itemsize)
    at = access.addresses[:, 0]
    if access.space == "lds":
        return [(None, step.chunk.lds.reshape(-1).view(dtype), (at // size).astype(np.int64))]
    views = []
    for mask, view, start in step.dispatch.memory.parts(at):
        where = at if mask is None else at[mask]
        views.append((mask, view[:view.size // int(size) * int(size)].view(dtype),
                      ((where - start) // size).astype(np.int64)))
    return views


# ---- formatted buffer access (buffer_*_format_*, tbuffer_*) ---------------------------------
COMPONENTS = {"x": 1, "xy": 2, "xyz": 3, "xyzw": 4}


def _buffer_format(step, inst, named):
    """The Format and each wave's DST_SEL ([n, 1, 4]) of a formatted buffer access."""
    words = step.ops.scalar_regs(named["srsrc"], 4)[:, 3]
    if inst.mnemonic.startswith("tbuffer"):
        # The instruction's own format: the target's numbering, as llvm writes it
        fmt, number = formats.parse(int(inst.mods["format"]), inst.target), int(inst.mods["format"])
    else:
        # The V#'s FORMAT [18:12], in gfx10's numbering on every target: the numbering of
        # the descriptors SoftGPU's runtime makes (core/images/descriptors.py)
        numbers = np.unique((words >> np.uint32(12)) & np.uint32(0x7F))
        if numbers.size != 1:
            raise step.illegal("a wave group mixes buffer formats")
        number = int(numbers[0])
        fmt = formats.parse(number)
    if fmt is None or fmt.element_bytes not in (1, 2, 4) and fmt.packed:
        raise step.illegal(f"buffer data format {number} is not modelled")
    dst_sel = np.stack([(words >> np.uint32(3 * c)) & np.uint32(7) for c in range(4)], axis=-1)
    return fmt, dst_sel[:, None, :]


def _components(step, inst, named, fmt, active):
    """Every component of each lane's element (register values [n, lanes, 4], components the
    format lacks at their defaults, 0 outside the buffer's range), and its Access (packed
    formats: of one whole element)."""
    if fmt.packed:
        access = _buffer(step, inst, named, 1, fmt.element_bytes, active)
        fields = formats.unpack(_element_bytes(access.load()[:, 0], fmt), fmt)
    else:
        access = _buffer(step, inst, named, fmt.components, fmt.component_bytes, active)
        fields = access.load()
    loaded = np.zeros((step.n, step.w.lanes, fmt.components), np.uint32)
    access.lanes.place(loaded, formats.to_register(fields, fmt))
    components = np.empty((step.n, step.w.lanes, 4), np.uint32)
    for c in range(4):
        components[..., c] = fmt.default(c)
    components[..., :fmt.components] = loaded
    return components, access


def _format_load(count, d16, hi=False):
    """buffer/tbuffer_load_format_*: the element's components through the V#'s DST_SEL (the
    d16_hi form: the x component's half into the high half, the low half kept)."""
    def run(step, inst):
        named = _named("MUBUF", inst)
        fmt, dst_sel = _buffer_format(step, inst, named)
        active = step.ops.exec
        components, _ = _components(step, inst, named, fmt, active)
        values = formats.select(components, dst_sel, fmt)[..., :count]
        vdst = named["vdst"]
        if d16:
            values = formats.pack_halves(formats.to_half(values, fmt.kind in formats.FLOATISH))
        if hi:
            kept = step.ops.vgpr_read(vdst.index) & np.uint32(0xFFFF)
            values = (kept | values[..., 0] << np.uint32(16))[..., None]
        for j in range(values.shape[-1]):
            step.ops.vgpr_write(vdst.index + j, values[..., j], active)
    return run


def _format_store(count, d16, hi=False):
    """buffer/tbuffer_store_format_*: the components the first `count` channels select
    (DST_SEL's inverse) are written; the element's other components keep their values (the
    d16_hi form stores the register's high half as x)."""
    def run(step, inst):
        named = _named("MUBUF", inst)
        fmt, dst_sel = _buffer_format(step, inst, named)
        active = step.ops.exec
        data = named["data"]
        words = -(-count // 2) if d16 else count
        values = np.stack([step.ops.vgpr_read(data.index + j) for j in range(words)], axis=-1)
        if hi:
            values = values >> np.uint32(16)
        if d16:
            values = formats.from_half(formats.unpack_halves(values, count), fmt.kind in formats.FLOATISH)
        channels = np.zeros(values.shape[:-1] + (4,), np.uint32)
        channels[..., :count] = values
        sel = np.broadcast_to(dst_sel, channels.shape)
        written = np.zeros(channels.shape, bool)
        for c in range(count):
            written |= sel[..., c:c + 1] == 4 + np.arange(4)
        components, access = _components(step, inst, named, fmt, active)
        components = np.where(written, formats.deselect(channels, dst_sel), components)
        fields = formats.to_memory(access.lanes.take(components[..., :fmt.components]), fmt)
        if fmt.packed:
            element = np.zeros((fields.shape[0], 4), np.uint8)
            element[:, :fmt.element_bytes] = formats.pack(fields, fmt)
            fields = element.view(np.uint32)
        access.store(fields)
    return run


def _element_bytes(values, fmt):
    """uint32 [k] zero-extended elements -> their bytes, uint8 [k, element_bytes]."""
    return np.ascontiguousarray(values.astype(np.uint32)).view(np.uint8).reshape(-1, 4)[:, :fmt.element_bytes]


def _register():
    handlers = {Load: _load, Store: _store, Atomic: _atomic}
    for mnemonic, record in VMEM_OPS.items():
        HANDLERS[mnemonic] = handlers[type(record)](record)
    for mnemonic, record in LDS_LOADS.items():
        HANDLERS[mnemonic] = _load_to_lds(record)
    for letters, count in COMPONENTS.items():
        for prefix in ("buffer", "tbuffer"):
            HANDLERS[f"{prefix}_load_format_{letters}"] = _format_load(count, False)
            HANDLERS[f"{prefix}_load_format_d16_{letters}"] = _format_load(count, True)
            HANDLERS[f"{prefix}_store_format_{letters}"] = _format_store(count, False)
            HANDLERS[f"{prefix}_store_format_d16_{letters}"] = _format_store(count, True)
    HANDLERS["buffer_load_format_d16_hi_x"] = _format_load(1, True, hi=True)
    HANDLERS["buffer_store_format_d16_hi_x"] = _format_store(1, True, hi=True)


_register()

