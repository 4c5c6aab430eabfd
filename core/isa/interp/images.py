"""Image instructions (MIMG; gfx12's VIMAGE/VSAMPLE): loads, stores, atomics, samples, gathers and queries.

Holds these invariants:
- address words are read as core.isa.mimg lays them out for the opcode, DIM and A16; the
  T#'s TYPE decides which coordinates count, each taken by its role in the DIM (a 2D image
  accessed with a 2D-array DIM ignores the layer, a 1D array's layer is the DIM's layer
  word wherever it lies: ROCm's blit kernels rely on both), missing coordinates are 0;
- loads return the format's conversion of each texel through the T#'s DST_SEL, and zero
  components for texels outside the image (mip level, extent or array view); stores write
  DST_SEL's inverse (component X takes the first channel that reads X), integer formats
  saturated, and drop texels outside the image; atomics do neither outside it;
- every texel inside the image must lie in memory the kernel may reach: otherwise the
  instruction faults before anything is written, as other memory instructions do; a
  descriptor no image access can use faults naming its field;
- data registers follow DMASK (gather4: four texels of one channel), D16 (two 16-bit
  values a dword) and TFE/LWE (a status dword written 0: every texel is resident).
"""
import numpy as np

from core.isa import mimg
from core.isa.interp import access as acc
from core.isa.interp import formats
from core.isa.interp import image_resources as res
from core.isa.interp import sampling
from core.isa.interp.memory import fault_on_invalid
from core.isa.interp.registry import HANDLERS
from core.isa.interp.vmem import apply_atomic, wide_read, wide_write
from core.isa.semantics.atomics import COMPARE_OPS
from core.isa.semantics.vmem import ATOMICS
from core.isa.opcodes_gfx1030 import TABLES

_FLOAT_ROLES = ("bias", "lod", "clamp")


# ---- operands --------------------------------------------------------------------------------
class Operands:
    """An image instruction's registers: address dwords, T#, S#, data."""

    def __init__(self, step, inst):
        m = inst.mods
        self.op = mimg.op_of(inst.mnemonic)
        layout, words = mimg.address_layout(inst.mnemonic, m["dim"], m["a16"])
        self.layout = layout
        has_sampler = self.op.uses_sampler
        tail = 1 + has_sampler + (self.op.kind in ("store", "atomic"))
        addresses = inst.src[:len(inst.src) - tail]
        # One operand of all the address dwords, one per dword (NSA), or (gfx12) one per
        # dword and a last one holding the rest.
        registers = [r for op in addresses for r in range(op.index, op.index + op.count)]
        if len(registers) < words:
            raise step.illegal(f"{inst.mnemonic} needs {words} address registers, the encoding names "
                               f"{len(registers)}")
        self.registers = registers[:words]
        self.rsrc = inst.src[len(addresses)]
        self.ssamp = inst.src[len(addresses) + 1] if has_sampler else None
        self.data = inst.src[-1] if self.op.kind in ("store", "atomic") else (inst.dst[0] if inst.dst else None)
        self.data_dwords = mimg.data_dwords(inst.mnemonic, m["dmask"], m["d16"], m["tfe"] | m["lwe"],
                                            inst.target)
        if self.data is not None and self.data.count < self.data_dwords:
            raise step.illegal(f"{inst.mnemonic} moves {self.data_dwords} data registers, the encoding "
                               f"names {self.data.count}")

    def words(self, step):
        return [step.ops.vgpr_read(r) for r in self.registers]

    def values(self, step, a16, g16, integer):
        """{role: [n, lanes] array}: floats (float64) or integers (int64) as the role is."""
        words = self.words(step)
        out = {}
        for role, dword, half in self.layout:
            word = words[dword]
            sixteen = (a16 and role not in ("offset", "zcompare") and not role.startswith("d")) or \
                (g16 and role.startswith("d") and role.endswith(("h", "v")))
            floating = not integer or role in _FLOAT_ROLES or role.startswith("d") or role == "zcompare"
            if role == "offset":
                out[role] = word.astype(np.int64)
            elif sixteen:
                bits = (word >> np.uint32(16 * half)) & np.uint32(0xFFFF)
                out[role] = (bits.astype(np.uint16).view(np.float16).astype(np.float64) if floating
                             else bits.astype(np.int64))
            else:
                out[role] = (word.view(np.float32).astype(np.float64) if floating
                             else word.astype(np.int64))
        return out


def _descriptor_groups(step, ops, active):
    """[(Resource, Sampler or None, Lanes)] for each distinct descriptor of the group that
    some active lane uses."""
    rsrc = step.ops.scalar_regs(ops.rsrc, 8)
    keys = rsrc if ops.ssamp is None else np.concatenate([rsrc, step.ops.scalar_regs(ops.ssamp, 4)], axis=1)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    groups = []
    for k, words in enumerate(unique):
        waves = inverse.reshape(-1) == k
        lanes = acc.Lanes.of(active & waves[:, None])
        if not lanes.count:
            continue
        try:
            resource = res.Resource.decode(words[:8])
            sampler = None if ops.ssamp is None else res.Sampler.decode(words[8:])
        except res.InvalidResource as error:
            raise step.memory_fault(f"invalid image descriptor: {error}", int(lanes.waves()[0]),
                                    int(lanes.lanes()[0]), _descriptor_base(words))
        except res.UnmodelledResource as error:
            raise step.illegal(f"image descriptor: {error}", int(lanes.waves()[0]))
        groups.append((resource, sampler, lanes))
    return groups


def _descriptor_base(words):
    return (int(words[0]) << 8) | ((int(words[1]) & 0xFF) << 40)


# ---- texel memory ------------------------------------------------------------------------------
class Texels:
    """Reading and writing whole texels of one resource for a subset of lanes (`lanes`)."""

    def __init__(self, step, resource, lanes, fmt=None, raw=False):
        self.step = step
        self.resource = resource
        self.lanes = lanes
        self.fmt = fmt or resource.fmt
        self.raw = raw              # *_pck: the components' bits, no conversion
        self.memory = step.dispatch.memory

    def checked(self, addresses, inside):
        """(lanes inside, their addresses), faulting unless each texel is in reachable memory."""
        where = np.flatnonzero(inside)
        at = addresses[where]
        if at.size:
            fault_on_invalid(self.step, self.memory, at[:, None], self.fmt.element_bytes,
                             self.lanes.subset(where))
        return where, at

    def read(self, x, y, z, level, inside):
        """Component register values uint32 [k, 4] (missing components at their defaults,
        everything 0 where not inside)."""
        k = x.shape[0]
        out = np.zeros((k, 4), np.uint32)
        where, at = self.checked(self.resource.addresses(x, y, z, level), inside)
        if at.size:
            fields = formats.unpack(self.memory.load(at, self.fmt.element_bytes), self.fmt)
            comps = fields if self.raw else formats.to_register(fields, self.fmt)
            full = np.array([int(c == 3) if self.raw else self.fmt.default(c) for c in range(4)], np.uint32)
            full = np.broadcast_to(full, (at.size, 4)).copy()
            full[:, :self.fmt.components] = comps
            out[where] = full
        return out

    def write(self, x, y, z, level, inside, components):
        where, at = self.checked(self.resource.addresses(x, y, z, level), inside)
        if at.size:
            values = components[where][:, :self.fmt.components]
            fields = values if self.raw else formats.to_memory(values, self.fmt)
            self.memory.store(at, formats.pack(fields, self.fmt))


_RAW = formats.Format((32,), "UINT")      # what a *_pck load's constant 1 is: the integer 1


def _sign_extended(components, fmt):
    out = components.copy()
    for c, width in enumerate(fmt.widths):
        top = np.uint32(1 << (width - 1))
        out[:, c] = (components[:, c] ^ top) - top if width < 32 else components[:, c]
    return out


# ---- coordinates ---------------------------------------------------------------------------
# Which of the instruction's coordinate roles (its DIM's) each resource coordinate takes:
# gfx10 reads a 1D array's layer from the DIM's layer word, wherever that is (ROCm's blit
# kernels move it to the third word for 2D-array DIMs).
_ROLE_SOURCES = {"x": ("x",), "y": ("y",), "z": ("z", "slice", "face"), "slice": ("slice", "face", "z")}


def _resource_coords(values, dim, resource, shape):
    """The instruction's coordinates as the resource's (TYPE order), 0 where absent."""
    given = mimg.DIMS[dim].coords
    out = []
    for role in res.COORDINATES[resource.kind]:
        source = next((r for r in _ROLE_SOURCES[role] if r in given), None)
        out.append(values[source] if source else np.zeros(shape, values["x"].dtype))
    return out


def _bounds(resource, coords, level):
    """(x, y, z, inside) of integer coordinates at absolute `level` (int64 arrays)."""
    k = coords[0].shape[0]
    names = res.COORDINATES[resource.kind]
    w, h, d = (np.maximum(np.int64(n) >> level, 1) for n in (resource.width, resource.height, resource.depth))
    x = coords[0]
    y = coords[names.index("y")] if "y" in names else np.zeros(k, np.int64)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h) & (level <= resource.last_level)
    if "z" in names:
        z = coords[2]
        inside &= (z >= 0) & (z < d)
    elif "slice" in names:
        z = coords[names.index("slice")]
        inside &= (z >= 0) & (z < resource.layers)
    else:
        z = np.zeros(k, np.int64)
    safe = [np.where(inside, v, 0) for v in (x, y, z)]
    return safe[0], safe[1], safe[2], inside


# ---- register data ---------------------------------------------------------------------------
def _write_channels(step, ops, inst, channels, floating, active):
    """Write the DMASK channels (register values [n, lanes, 4]) to the data registers."""
    m = inst.mods
    picked = [channels[..., c] for c in range(4) if m["dmask"] >> c & 1] or [channels[..., 0]]
    if ops.op.kind == "gather4":
        picked = [channels[..., c] for c in range(4)]
    values = np.stack(picked, axis=-1)
    if m["d16"]:
        values = formats.pack_halves(formats.to_half(values, floating))
    if m["tfe"] or m["lwe"]:
        values = np.concatenate([values, np.zeros_like(values[..., :1])], axis=-1)
    for j in range(values.shape[-1]):
        step.ops.vgpr_write(ops.data.index + j, values[..., j], active)


def _read_channels(step, ops, inst, floating):
    """The store data as channels RGBA (register values [n, lanes, 4], absent ones 0)."""
    m = inst.mods
    enabled = [c for c in range(4) if m["dmask"] >> c & 1] or [0]
    words = -(-len(enabled) // 2) if m["d16"] else len(enabled)
    data = np.stack([step.ops.vgpr_read(ops.data.index + j) for j in range(words)], axis=-1)
    if m["d16"]:
        data = formats.from_half(formats.unpack_halves(data, len(enabled)), floating)
    channels = np.zeros(data.shape[:-1] + (4,), np.uint32)
    for j, c in enumerate(enabled):
        channels[..., c] = data[..., j]
    return channels


# ---- handlers --------------------------------------------------------------------------------
def _memory_access(step, inst):
    """image_load*, image_store*: integer coordinates, no sampler; the *_pck forms move each
    component's bits unconverted, one per dword (*_sgn: sign-extended)."""
    ops = Operands(step, inst)
    active = step.ops.exec
    m = inst.mods
    values = ops.values(step, m["a16"], False, integer=True)
    store = ops.op.kind == "store"
    channels_in = None
    out = np.zeros((step.n, step.w.lanes, 4), np.uint32)
    floating = True
    for resource, _, lanes in _descriptor_groups(step, ops, active):
        fmt = resource.fmt
        floating = fmt.kind in formats.FLOATISH and not ops.op.packed
        coords = [lanes.take(c) for c in _resource_coords(values, m["dim"], resource, active.shape)]
        mip = lanes.take(values["mip"]) if "mip" in values else 0
        level = resource.base_level + np.asarray(mip, np.int64) + np.zeros(lanes.count, np.int64)
        level_ok = level <= resource.last_level
        level = np.where(level_ok, level, resource.base_level)
        x, y, z, inside = _bounds(resource, coords, level)
        inside &= level_ok
        raw = ops.op.packed
        texels = Texels(step, resource, lanes, raw=raw)
        if store:
            if channels_in is None:
                channels_in = _read_channels(step, ops, inst, floating)
            components = formats.deselect(lanes.take(channels_in), resource.dst_sel)
            texels.write(x, y, z, level, inside, components if raw else formats.saturate(components, fmt))
        else:
            components = texels.read(x, y, z, level, inside)
            if ops.op.signed:
                components = _sign_extended(components, fmt)
            lanes.place(out, formats.select(components, resource.dst_sel, fmt if not raw else _RAW))
    if not store and ops.data is not None:
        _write_channels(step, ops, inst, out, floating, active)


def _sample(step, inst):
    """image_sample*, image_gather4*, image_get_lod: float coordinates through an S#."""
    ops = Operands(step, inst)
    active = step.ops.exec
    m = inst.mods
    values = ops.values(step, m["a16"], ops.op.g16, integer=False)
    out = np.zeros((step.n, step.w.lanes, 4), np.uint32)
    floating = True
    for resource, sampler_state, lanes in _descriptor_groups(step, ops, active):
        fmt = _read_format(resource, sampler_state)
        integer = fmt.kind in formats.INTEGER
        floating = not integer or ops.op.kind == "get_lod"
        request = _request(ops.op, values, m, resource, sampler_state, lanes, active.shape)
        texels = Texels(step, resource, lanes, fmt)

        def read(x, y, z, level, inside, texels=texels, integer=integer):
            bits = texels.read(x, y, z, level, inside)
            return bits.view(np.int32).astype(np.int64) if integer else \
                bits.view(np.float32).astype(np.float64)

        unit = sampling.Sampler(resource, sampler_state, read, integer)
        if ops.op.kind == "get_lod":
            clamped, raw = unit.lods(request)
            available = resource.last_level - resource.base_level
            result = np.stack([np.clip(clamped, 0, available), raw, np.zeros_like(raw), np.zeros_like(raw)],
                              axis=1).astype(np.float32).view(np.uint32)
        elif ops.op.kind == "gather4":
            channel = (m["dmask"] & -m["dmask"]).bit_length() - 1 if m["dmask"] else 0
            sel = resource.dst_sel[channel]
            component = sel - 4 if sel >= 4 else (1.0 if sel == 1 else 0.0,)
            result = _to_bits(unit.gather(request, component), integer)
        else:
            components = _to_bits(unit.sample(request), integer)
            result = formats.select(components, resource.dst_sel, fmt)
        lanes.place(out, result)
    _write_channels(step, ops, inst, out, floating, active)


def _read_format(resource, sampler_state):
    """The format texels are read as: the S# may force or skip sRGB decoding."""
    fmt = resource.fmt
    if fmt.kind == "SRGB" and sampler_state.skip_degamma:
        return formats.Format(fmt.widths, "UNORM")
    if fmt.kind == "UNORM" and sampler_state.force_degamma:
        return formats.Format(fmt.widths, "SRGB")
    return fmt


def _to_bits(values, integer):
    if integer:
        return values.astype(np.int64).astype(np.int32).view(np.uint32)
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(np.float32).view(np.uint32)


def _request(op, values, mods, resource, sampler_state, lanes, shape):
    """The sampling.Request of the lanes `lanes` (implicit derivatives from whole quads)."""
    coords_full = [c.astype(np.float64) for c in _resource_coords(values, mods["dim"], resource, shape)]
    spatial = sampling.SPATIAL[resource.kind]
    gradients = None
    if op.derivatives:
        zero = np.zeros(lanes.count)
        gradients = {d: [lanes.take(values[f"d{a}d{d}"]) if f"d{a}d{d}" in values else zero
                         for a in "xyz"[:spatial]] for d in ("h", "v")}
    elif op.lod == "" and "_lz" not in op.name:
        derivatives = [sampling.quad_derivatives(c) for c in coords_full[:spatial]]
        gradients = {"h": [lanes.take(d[0]) for d in derivatives],
                     "v": [lanes.take(d[1]) for d in derivatives]}
    lod = 0.0 if "_lz" in op.name else (lanes.take(values["lod"]) if op.lod == "lod" else None)
    offsets = None
    if op.offset:
        packed = lanes.take(values["offset"])
        offsets = [((packed >> (8 * a)) & 0x3F) - ((packed >> (8 * a)) & 0x20) * 2 for a in range(3)]
    return sampling.Request(
        [lanes.take(c) for c in coords_full], lod=lod,
        bias=lanes.take(values["bias"]) if op.bias else None,
        clamp=lanes.take(values["clamp"]) if op.lod == "clamp" else None,
        gradients=gradients, offsets=offsets,
        zcompare=lanes.take(values["zcompare"]).astype(np.float32).astype(np.float64) if op.compare else None,
        unnormalized=sampler_state.unnormalized or bool(mods["unorm"]))


def _resinfo(step, inst):
    """image_get_resinfo: (width, height, depth or layers, levels) of a mip level."""
    ops = Operands(step, inst)
    active = step.ops.exec
    m = inst.mods
    values = ops.values(step, m["a16"], False, integer=True)
    out = np.zeros((step.n, step.w.lanes, 4), np.uint32)
    for resource, _, lanes in _descriptor_groups(step, ops, active):
        level = resource.base_level + lanes.take(values["mip"])
        w, h, d = (np.maximum(np.int64(n) >> np.minimum(level, 63), 1)
                   for n in (resource.width, resource.height, resource.depth))
        layers = np.full(lanes.count, resource.layers, np.int64)
        one = np.ones(lanes.count, np.int64)
        y = {"1D": one, "1D_ARRAY": layers}.get(resource.kind, h)
        z = {"3D": d, "2D_ARRAY": layers, "CUBE": layers}.get(resource.kind, one)
        count = np.full(lanes.count, resource.last_level - resource.base_level + 1, np.int64)
        result = np.stack([w, y, z, count], axis=1)
        result = np.where((level <= resource.last_level)[:, None], result, 0).astype(np.uint32)
        lanes.place(out, result)
    _write_channels(step, ops, inst, out, False, active)


def _atomic(op_name):
    """image_atomic_*: 32-bit ops on 4-byte texels, 64-bit (DMASK 0x3; cmpswap 0xF) on 8-byte."""
    def run(step, inst):
        ops = Operands(step, inst)
        active = step.ops.exec
        m = inst.mods
        values = ops.values(step, m["a16"], False, integer=True)
        compare = op_name in COMPARE_OPS
        words = ops.data_dwords - (1 if m["tfe"] or m["lwe"] else 0)
        width = words // 2 if compare else words
        if width not in (1, 2):
            raise step.illegal(f"{inst.mnemonic} with DMASK {m['dmask']:#x} is not modelled")
        data = wide_read(step, ops.data.index, width)
        cmp = wide_read(step, ops.data.index + width, width) if compare else None
        old_all = np.zeros((step.n, step.w.lanes), np.uint64 if width == 2 else np.uint32)
        for resource, _, lanes in _descriptor_groups(step, ops, active):
            if resource.fmt.element_bytes != 4 * width:
                raise step.illegal(f"{inst.mnemonic} on image format {resource.format_number} "
                                   f"({resource.fmt.element_bytes}-byte texels) is not modelled")
            coords = [lanes.take(c) for c in _resource_coords(values, m["dim"], resource, active.shape)]
            level = np.full(lanes.count, resource.base_level, np.int64)
            x, y, z, inside = _bounds(resource, coords, level)
            where, at = Texels(step, resource, lanes).checked(resource.addresses(x, y, z, level), inside)
            if at.size:
                access = acc.Access(step, "arena", at[:, None], lanes.subset(where), 4 * width)
                apply_atomic(step, access, ATOMICS[op_name], data, cmp, old_all)
        if m["glc"]:
            wide_write(step, ops.data.index, old_all, active)
    return run


def _register():
    for row in TABLES["MIMG"].values():
        name = row["name"]
        kind = mimg.op_of(name).kind
        if kind in ("load", "store"):
            HANDLERS[name] = _memory_access
        elif kind in ("sample", "gather4", "get_lod"):
            HANDLERS[name] = _sample
        elif kind == "resinfo":
            HANDLERS[name] = _resinfo
        elif kind == "atomic":
            HANDLERS[name] = _atomic(name[len("image_atomic_"):])


_register()
