"""Data formats of buffer and image resources (the FORMAT numbers of V#s, T#s and MTBUF
instructions): memory elements <-> 32-bit register values.

Holds these invariants:
- a number means what the target's own table (its llvm-generated BUFFER_FORMATS) says: gfx10,
  gfx11 and gfx12 number their unified formats differently from 30 on, and gfx9 numbers a
  data format and a number format pair (dfmt | nfmt << 4); without a target, gfx10's (the
  image and buffer descriptors the runtime makes, for every target);
- a format is its components' bit widths, X first (X in the lowest bytes or bits: llvm's
  and AMD's names list them from the top, 2_10_10_10 has a 10-bit X and a 2-bit W), and one
  kind; numbers that name no such layout (compressed, multimedia, depth-stencil, invalid)
  parse to None, so the instruction faults by name;
- reads convert each component as the kind says: UNORM/SNORM to [0, 1]/[-1, 1] (SNORM's
  most negative code reads -1), USCALED/SSCALED to floats, UINT/SINT extended, FLOAT widened
  (16-bit halves; 11- and 10-bit unsigned floats), SRGB through the sRGB curve to linear
  (X, Y and Z; W is linear);
- writes convert back, rounding to nearest even and saturating, NaN to 0 (UINT/SINT keep
  the low bits, as buffer stores do; image stores saturate first, see core.isa.interp.images;
  small floats round to nearest, store negatives as 0 and overflow as infinity).
"""
from dataclasses import dataclass

import numpy as np

from core.isa import targets
from core.isa.opcodes_gfx1030 import BUFFER_FORMATS

FLOATISH = ("UNORM", "SNORM", "USCALED", "SSCALED", "FLOAT", "SRGB")
INTEGER = ("UINT", "SINT")
# Formats llvm's table does not name: 1 (its default, printed as nothing) and the image-only
# combined formats of gfx10 (ROCr's resource_nv.h).
_UNNAMED_FORMATS = {1: "8_UNORM", 128: "8_SRGB", 129: "8_8_SRGB", 130: "8_8_8_8_SRGB", 133: "5_6_5_UNORM",
                  134: "1_5_5_5_UNORM", 135: "5_5_5_1_UNORM"}
_KINDS = ("UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "FLOAT", "SRGB")
ONE_F32 = 0x3F800000


@dataclass(frozen=True)
class Format:
    widths: tuple       # bits per component, X first
    kind: str           # UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT, SRGB

    @property
    def components(self):
        return len(self.widths)

    @property
    def packed(self):
        """Components that are not whole bytes of one width: read as one element."""
        return len(set(self.widths)) != 1 or self.widths[0] not in (8, 16, 32)

    @property
    def element_bytes(self):
        return sum(self.widths) // 8

    @property
    def component_bytes(self):
        return self.widths[0] // 8

    def default(self, component):
        """What a component the format lacks reads as: 0, and 1 (or 1.0) for w."""
        if component < 3:
            return 0
        return ONE_F32 if self.kind in FLOATISH else 1


def parse(number, target=None):
    """The Format of a format number on `target` (gfx10's numbering without one), or None
    when it is not modelled."""
    number = int(number)
    table = BUFFER_FORMATS if target is None else targets.get(target).opcodes.BUFFER_FORMATS
    # llvm prints the default format (1: 8_UNORM everywhere) as nothing; the others unnamed
    # are gfx10's image-only combined formats.
    unnamed = _UNNAMED_FORMATS.get(number) if number == 1 or table is BUFFER_FORMATS else None
    name = unnamed or table.get(number, "").strip("[]")
    if name.startswith("BUF_DATA_FORMAT_"):         # gfx9: "DATA[,NUM]", NUM UNORM when absent
        data, _, num = name.partition(",")
        name = f"{data.removeprefix('BUF_DATA_FORMAT_')}_{num.removeprefix('BUF_NUM_FORMAT_') or 'UNORM'}"
    name = name.removeprefix("BUF_FMT_")
    *widths, kind = name.split("_") if name else ("",)
    if kind not in _KINDS or not widths or not all(w.isdigit() for w in widths):
        return None
    widths = tuple(int(w) for w in reversed(widths))
    if sum(widths) % 8 or (kind == "FLOAT" and not all(w in (10, 11, 16, 32) for w in widths)):
        return None
    return Format(widths, kind)


# ---- elements <-> components -----------------------------------------------------------

def unpack(raw, fmt):
    """uint8 [k, element_bytes] -> the components' bit fields, uint32 [k, components]."""
    k = raw.shape[0]
    if not fmt.packed:
        dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32}[fmt.component_bytes]
        return np.ascontiguousarray(raw).view(dtype).reshape(k, fmt.components).astype(np.uint32)
    element = np.zeros(k, np.uint64)
    for byte in range(raw.shape[1]):
        element |= raw[:, byte].astype(np.uint64) << np.uint64(8 * byte)
    fields = np.empty((k, fmt.components), np.uint32)
    shift = 0
    for c, width in enumerate(fmt.widths):
        fields[:, c] = (element >> np.uint64(shift)) & np.uint64((1 << width) - 1)
        shift += width
    return fields


def pack(fields, fmt):
    """uint32 [k, components] bit fields -> uint8 [k, element_bytes]."""
    fields = np.asarray(fields, np.uint32)
    k = fields.shape[0]
    if not fmt.packed:
        dtype = {1: np.uint8, 2: np.uint16, 4: np.uint32}[fmt.component_bytes]
        return np.ascontiguousarray(fields.astype(dtype)).view(np.uint8).reshape(k, fmt.element_bytes)
    element = np.zeros(k, np.uint64)
    shift = 0
    for c, width in enumerate(fmt.widths):
        element |= (fields[:, c].astype(np.uint64) & np.uint64((1 << width) - 1)) << np.uint64(shift)
        shift += width
    return element.view(np.uint8).reshape(k, 8)[:, :fmt.element_bytes]


# ---- components <-> register values ------------------------------------------------------

def to_register(raw, fmt):
    """Zero-extended components (uint32 [k, components]) -> register bit patterns (uint32)."""
    raw = np.asarray(raw).astype(np.uint32)
    out = np.empty(raw.shape, np.uint32)
    for c, width in enumerate(fmt.widths[:raw.shape[-1]]):
        out[..., c] = _component_to_register(raw[..., c], width, fmt.kind, c)
    return out


def _component_to_register(raw, width, kind, component):
    top = np.uint32(1 << (width - 1))
    signed = ((raw ^ top) - top).view(np.int32) if width < 32 else raw.view(np.int32)
    if kind == "UINT":
        return raw
    if kind == "SINT":
        return signed.view(np.uint32)
    if kind == "FLOAT":
        if width == 32:
            return raw
        if width == 16:
            return raw.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
        return _small_float(raw, width - 5).astype(np.float32).view(np.uint32)
    if kind in ("UNORM", "SRGB"):
        value = raw.astype(np.float64) / float((1 << width) - 1)
        if kind == "SRGB" and component < 3:
            value = srgb_to_linear(value)
    elif kind == "SNORM":
        value = np.maximum(signed.astype(np.float64) / float((1 << (width - 1)) - 1), -1.0)
    elif kind == "USCALED":
        value = raw.astype(np.float64)
    else:
        value = signed.astype(np.float64)
    return value.astype(np.float32).view(np.uint32)


def _small_float(raw, mantissa_bits):
    """The unsigned 11-bit (6 mantissa bits) / 10-bit (5) floats of 10_11_11 formats."""
    exponent = (raw >> np.uint32(mantissa_bits)).astype(np.int64)
    mantissa = (raw & np.uint32((1 << mantissa_bits) - 1)).astype(np.float64)
    scale = float(1 << mantissa_bits)
    normal = np.ldexp(1.0 + mantissa / scale, exponent - 15)
    value = np.where(exponent == 0, np.ldexp(mantissa / scale, -14), normal)
    special = np.where(mantissa == 0, np.inf, np.nan)
    return np.where(exponent == 31, special, value)


def to_memory(values, fmt, component_offset=0):
    """Register bit patterns (uint32 [k, n]) -> components (uint32 holding each one's bits);
    column j is component `component_offset + j`."""
    values = np.asarray(values).astype(np.uint32)
    out = np.empty(values.shape, np.uint32)
    with np.errstate(over="ignore", invalid="ignore"):    # overflow to inf is the conversion
        for j in range(values.shape[-1]):
            c = component_offset + j
            out[..., j] = _component_to_memory(values[..., j], fmt.widths[c], fmt.kind, c)
    return out


def _component_to_memory(values, width, kind, component):
    mask = np.uint32((1 << width) - 1) if width < 32 else np.uint32(0xFFFFFFFF)
    if kind in INTEGER:
        return values & mask
    if kind == "FLOAT":
        if width == 32:
            return values
        if width == 16:
            return values.view(np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)
        return _to_small_float(values.view(np.float32).astype(np.float64), width - 5)
    f = values.view(np.float32).astype(np.float64)
    f = np.where(np.isnan(f), 0.0, f)
    if kind == "SRGB" and component < 3:
        f = linear_to_srgb(np.clip(f, 0.0, 1.0))
    if kind in ("UNORM", "SRGB"):
        ints = np.rint(np.clip(f, 0.0, 1.0) * ((1 << width) - 1))
    elif kind == "SNORM":
        ints = np.rint(np.clip(f, -1.0, 1.0) * ((1 << (width - 1)) - 1))
    elif kind == "USCALED":
        ints = np.clip(np.rint(f), 0, (1 << width) - 1)
    else:
        ints = np.clip(np.rint(f), -(1 << (width - 1)), (1 << (width - 1)) - 1)
    return ints.astype(np.int64).astype(np.uint32) & mask


def _to_small_float(f, mantissa_bits):
    """Nearest unsigned small float: negative values store 0, values beyond the largest
    finite one and infinity store infinity, NaN a NaN."""
    nan = np.isnan(f)
    f = np.where(nan, 0.0, np.maximum(f, 0.0))
    _, exponent = np.frexp(f)                              # f = m * 2**exponent, m in [0.5, 1)
    # Spacing of representable values around f: normal numbers keep mantissa_bits after
    # the leading one, subnormals are multiples of 2**-(14 + mantissa_bits).
    step = np.ldexp(1.0, np.maximum(exponent - 1, -14) - mantissa_bits)
    units = np.rint(f / step)                              # f ~ units * step
    biased = np.maximum(exponent - 1, -14) + 15            # exponent field before rounding
    # units in [2**m, 2**(m+1)] for normal numbers (2**(m+1): rounded up into the next binade)
    bits = np.where((biased > 1) & (units > 0), (biased - 1) * (1 << mantissa_bits) + units, units)
    bits = np.where(np.isinf(f) | (bits >= 31 << mantissa_bits), 31 << mantissa_bits, bits)
    bits = np.where(nan, (31 << mantissa_bits) | 1, bits)
    return bits.astype(np.int64).astype(np.uint32)


def saturate(values, fmt):
    """Integer register values ([k, n] uint32) clamped to the format's component ranges, as
    image stores write them (UINT unsigned, SINT signed); other kinds unchanged."""
    if fmt.kind not in INTEGER:
        return values
    out = values.copy()
    for c, width in enumerate(fmt.widths[:values.shape[-1]]):
        if width == 32:
            continue
        if fmt.kind == "UINT":
            out[..., c] = np.minimum(values[..., c], np.uint32((1 << width) - 1))
        else:
            signed = np.clip(values[..., c].view(np.int32), -(1 << (width - 1)), (1 << (width - 1)) - 1)
            out[..., c] = signed.astype(np.int32).view(np.uint32)
    return out


def linear_to_srgb(values):
    v = np.asarray(values, dtype=np.float64)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.power(np.maximum(v, 0.0), 1 / 2.4) - 0.055)


def srgb_to_linear(values):
    v = np.asarray(values, dtype=np.float64)
    return np.where(v <= 0.04045, v / 12.92, np.power((v + 0.055) / 1.055, 2.4))


# ---- DST_SEL: components X..W <-> channels RGBA --------------------------------------------

SEL_1 = 1                    # DST_SEL's constant 1 (0 is the constant 0; 4..7 select X..W)


def select(components, dst_sel, fmt):
    """Channels RGBA (register values [..., 4]) from components X..W ([..., 4], missing ones at
    their defaults) through DST_SEL (4 values, or [..., 4] per element)."""
    one = ONE_F32 if fmt.kind in FLOATISH else 1
    sel = np.broadcast_to(np.asarray(dst_sel), components.shape)
    picked = np.take_along_axis(components, np.clip(sel - 4, 0, 3).astype(np.int64), axis=-1)
    return np.where(sel == SEL_1, np.uint32(one), np.where(sel >= 4, picked, np.uint32(0))).astype(np.uint32)


def deselect(channels, dst_sel):
    """Components X..W a store writes from channels RGBA ([..., 4]): each component takes the
    first channel whose DST_SEL reads it, 0 if none does."""
    sel = np.broadcast_to(np.asarray(dst_sel), channels.shape)
    components = np.zeros(channels.shape, np.uint32)
    for component in range(4):
        for channel in range(3, -1, -1):          # the first reader wins: write it last
            hit = sel[..., channel] == 4 + component
            components[..., component] = np.where(hit, channels[..., channel], components[..., component])
    return components


# ---- 16-bit data (D16) -----------------------------------------------------------------------

def to_half(values, floating):
    """32-bit register values -> the 16-bit values D16 instructions hold (floats narrow to f16,
    integers keep their low half)."""
    if floating:
        with np.errstate(over="ignore"):                  # overflow to inf is the conversion
            return values.view(np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)
    return values & np.uint32(0xFFFF)


def from_half(values, floating):
    if floating:
        return values.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
    return values


def pack_halves(halves):
    """[..., n] 16-bit values -> [..., ceil(n / 2)] dwords, low half first."""
    if halves.shape[-1] % 2:
        halves = np.concatenate([halves, np.zeros_like(halves[..., :1])], axis=-1)
    return halves[..., 0::2] | (halves[..., 1::2] << np.uint32(16))


def unpack_halves(words, count):
    """[..., ceil(count / 2)] dwords -> [..., count] 16-bit values (as uint32)."""
    halves = np.stack([words >> np.uint32(16 * h) & np.uint32(0xFFFF) for h in (0, 1)], axis=-1)
    return halves.reshape(words.shape[:-1] + (-1,))[..., :count]
