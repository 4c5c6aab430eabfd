"""Buffer data formats (MTBUF `format`, the V# format field of buffer_*_format_*): converting
between memory components and 32-bit register values.

Holds two invariants:
- only formats whose components share one width of 8, 16 or 32 bits are modelled; any other
  (packed 10/11-bit, invalid) is reported as None so the instruction faults by name;
- loads convert each component as the format says (UNORM/SNORM to [0, 1]/[-1, 1] floats,
  USCALED/SSCALED to floats, UINT/SINT extended, FLOAT widened); stores convert back, rounding
  to nearest even and saturating.
"""
from dataclasses import dataclass

import numpy as np

from core.isa.opcodes_gfx1030 import BUFFER_FORMATS

FLOATISH = ("UNORM", "SNORM", "USCALED", "SSCALED", "FLOAT")


@dataclass(frozen=True)
class Format:
    bits: int           # per component
    components: int
    kind: str           # UNORM, SNORM, USCALED, SSCALED, UINT, SINT, FLOAT

    @property
    def bytes(self):
        return self.bits // 8

    def default(self, component):
        """What a component the format lacks reads as: 0, and 1 (or 1.0) for w."""
        if component < 3:
            return 0
        return int(np.array(1.0, np.float32).view(np.uint32)) if self.kind in FLOATISH else 1


def parse(number):
    """The Format of a gfx10 unified format number, or None when it is not modelled."""
    name = BUFFER_FORMATS.get(int(number), "").strip("[]")
    if not name.startswith("BUF_FMT_"):
        return None
    *widths, kind = name[len("BUF_FMT_"):].split("_")
    if len(set(widths)) != 1 or widths[0] not in ("8", "16", "32"):
        return None
    if kind == "FLOAT" and widths[0] == "8":
        return None
    return Format(int(widths[0]), len(widths), kind)


def to_register(raw, fmt):
    """Zero-extended components (uint32) -> register bit patterns (uint32)."""
    raw = raw.astype(np.uint32)
    bits = fmt.bits
    signed = ((raw ^ np.uint32(1 << (bits - 1))) - np.uint32(1 << (bits - 1))).view(np.int32) \
        if bits < 32 else raw.view(np.int32)
    if fmt.kind == "UINT":
        return raw
    if fmt.kind == "SINT":
        return signed.view(np.uint32)
    if fmt.kind == "FLOAT":
        return raw if bits == 32 else raw.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
    if fmt.kind == "UNORM":
        value = raw.astype(np.float64) / float((1 << bits) - 1)
    elif fmt.kind == "SNORM":
        value = np.maximum(signed.astype(np.float64) / float((1 << (bits - 1)) - 1), -1.0)
    elif fmt.kind == "USCALED":
        value = raw.astype(np.float64)
    else:
        value = signed.astype(np.float64)
    return value.astype(np.float32).view(np.uint32)


def to_memory(values, fmt):
    """Register bit patterns (uint32) -> components (uint32 holding `fmt.bits` bits)."""
    with np.errstate(over="ignore", invalid="ignore"):    # overflow to inf is the conversion
        return _to_memory(values, fmt)


def _to_memory(values, fmt):
    values = values.astype(np.uint32)
    bits = fmt.bits
    mask = np.uint32((1 << bits) - 1) if bits < 32 else np.uint32(0xFFFFFFFF)
    if fmt.kind in ("UINT", "SINT"):
        return values & mask
    if fmt.kind == "FLOAT":
        if bits == 32:
            return values
        return values.view(np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)
    f = values.view(np.float32).astype(np.float64)
    f = np.where(np.isnan(f), 0.0, f)
    if fmt.kind == "UNORM":
        ints = np.rint(np.clip(f, 0.0, 1.0) * ((1 << bits) - 1))
    elif fmt.kind == "SNORM":
        ints = np.rint(np.clip(f, -1.0, 1.0) * ((1 << (bits - 1)) - 1))
    elif fmt.kind == "USCALED":
        ints = np.clip(np.rint(f), 0, (1 << bits) - 1)
    else:
        ints = np.clip(np.rint(f), -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return ints.astype(np.int64).astype(np.uint32) & mask
