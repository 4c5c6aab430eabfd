"""Image formats of a gfx10 GPU: what ROCr's image library supports, and pixel encoding.

Holds these invariants:
- `image_property(order, type, geometry)` is ROCr's format table for gfx10 (its KV-era
  look-up table, which the Navi image manager uses), geometry restrictions included: a
  format it answers with capability 0 can be neither queried as supported nor created;
- every supported format names its gfx10 combined hardware format (the FORMAT field of
  an image or buffer descriptor) and its element size in bytes;
- `encode_pixel` turns the four 32-bit words of hsa_ext_image_clear into exactly one
  element of the format, converting exactly as a kernel's image store does (it is the
  engine's conversion, core.isa.interp.formats: RTE rounding, saturation, linear to sRGB).
"""
import enum

import numpy as np

from core.isa.interp import formats as texel_formats
from core.isa.interp.formats import linear_to_srgb, srgb_to_linear  # noqa: F401 (copies convert)
from core.hsa_abi import (HsaExtImageCapability as Capability,
                          HsaExtImageChannelOrder as Order,
                          HsaExtImageChannelType as Type,
                          HsaExtImageGeometry as Geometry)

RO = Capability.READ_ONLY
ROWO = Capability.READ_ONLY | Capability.WRITE_ONLY
RW = Capability.READ_ONLY | Capability.WRITE_ONLY | Capability.READ_WRITE


class Sel(enum.IntEnum):
    """gfx10 DST_SEL values of image/buffer descriptors."""
    ZERO = 0
    ONE = 1
    X = 4
    Y = 5
    Z = 6
    W = 7


class Property:
    """One (order, type) entry: capability mask, element bytes, gfx10 combined format."""
    __slots__ = ("capability", "element_size", "hw_format")

    def __init__(self, capability, element_size, hw_format):
        self.capability = int(capability)
        self.element_size = element_size
        self.hw_format = hw_format


UNSUPPORTED = Property(0, 0, 0)

# gfx10 combined formats (the 7/9-bit FORMAT field), by channel type, for 1, 2 and 4
# components of 8/16/32 bits.
_ONE = {Type.SNORM_INT8: (1, 2), Type.SNORM_INT16: (2, 8), Type.UNORM_INT8: (1, 1),
        Type.UNORM_INT16: (2, 7), Type.SIGNED_INT8: (1, 6), Type.SIGNED_INT16: (2, 12),
        Type.SIGNED_INT32: (4, 21), Type.UNSIGNED_INT8: (1, 5), Type.UNSIGNED_INT16: (2, 11),
        Type.UNSIGNED_INT32: (4, 20), Type.HALF_FLOAT: (2, 13), Type.FLOAT: (4, 22)}
_TWO = {Type.SNORM_INT8: (2, 15), Type.SNORM_INT16: (4, 24), Type.UNORM_INT8: (2, 14),
        Type.UNORM_INT16: (4, 23), Type.SIGNED_INT8: (2, 19), Type.SIGNED_INT16: (4, 28),
        Type.SIGNED_INT32: (8, 63), Type.UNSIGNED_INT8: (2, 18), Type.UNSIGNED_INT16: (4, 27),
        Type.UNSIGNED_INT32: (8, 62), Type.HALF_FLOAT: (4, 29), Type.FLOAT: (8, 64)}
_FOUR = {Type.SNORM_INT8: (4, 57), Type.SNORM_INT16: (8, 66), Type.UNORM_INT8: (4, 56),
         Type.UNORM_INT16: (8, 65), Type.SIGNED_INT8: (4, 61), Type.SIGNED_INT16: (8, 70),
         Type.SIGNED_INT32: (16, 76), Type.UNSIGNED_INT8: (4, 60), Type.UNSIGNED_INT16: (8, 69),
         Type.UNSIGNED_INT32: (16, 75), Type.HALF_FLOAT: (8, 71), Type.FLOAT: (16, 77)}
_EIGHT_BIT = (Type.SNORM_INT8, Type.UNORM_INT8, Type.SIGNED_INT8, Type.UNSIGNED_INT8)
_NORM_AND_FLOAT = (Type.SNORM_INT8, Type.SNORM_INT16, Type.UNORM_INT8, Type.UNORM_INT16,
                   Type.HALF_FLOAT, Type.FLOAT)


def _entries(table, types=None, capability=RW):
    return {t: Property(capability, *table[t]) for t in (types or table)}


_TABLE = {
    Order.A: _entries(_ONE),
    Order.R: _entries(_ONE),
    Order.RG: _entries(_TWO),
    Order.RA: _entries(_TWO),
    Order.RGB: {Type.UNORM_SHORT_555: Property(RW, 2, 134), Type.UNORM_SHORT_565: Property(RW, 2, 133),
                Type.UNORM_SHORT_101010: Property(RW, 4, 50)},
    Order.RGBA: _entries(_FOUR),
    Order.BGRA: _entries(_FOUR, _EIGHT_BIT),
    Order.ARGB: _entries(_FOUR, _EIGHT_BIT),
    Order.SRGBA: {Type.UNORM_INT8: Property(RO, 4, 130)},
    Order.INTENSITY: _entries(_ONE, _NORM_AND_FLOAT),
    Order.LUMINANCE: _entries(_ONE, _NORM_AND_FLOAT),
    # ROCr lists 24-bit depth with capability 0 (its table's "TODO: 24 bit").
    Order.DEPTH: {Type.UNORM_INT16: Property(ROWO, 2, 7), Type.FLOAT: Property(ROWO, 4, 22)},
}

# Read swizzles (DST_SEL x, y, z, w) per channel order, as ROCr's table gives them.
_S = Sel
SWIZZLE = {
    Order.A: (_S.ZERO, _S.ZERO, _S.ZERO, _S.X), Order.R: (_S.X, _S.ZERO, _S.ZERO, _S.ONE),
    Order.RX: (_S.X, _S.ZERO, _S.ZERO, _S.ONE), Order.RG: (_S.X, _S.Y, _S.ZERO, _S.ONE),
    Order.RGX: (_S.X, _S.Y, _S.ZERO, _S.ONE), Order.RA: (_S.X, _S.ZERO, _S.ZERO, _S.Y),
    Order.RGB: (_S.Z, _S.Y, _S.X, _S.ONE), Order.RGBX: (_S.Z, _S.Y, _S.X, _S.ONE),
    Order.RGBA: (_S.X, _S.Y, _S.Z, _S.W), Order.BGRA: (_S.Z, _S.Y, _S.X, _S.W),
    Order.ARGB: (_S.Y, _S.Z, _S.W, _S.X), Order.ABGR: (_S.Y, _S.X, _S.W, _S.Z),
    Order.SRGB: (_S.X, _S.Y, _S.Z, _S.ONE), Order.SRGBX: (_S.X, _S.Y, _S.Z, _S.ONE),
    Order.SRGBA: (_S.X, _S.Y, _S.Z, _S.W), Order.SBGRA: (_S.Z, _S.Y, _S.X, _S.W),
    Order.INTENSITY: (_S.X, _S.X, _S.X, _S.X), Order.LUMINANCE: (_S.X, _S.X, _S.X, _S.ONE),
    Order.DEPTH: (_S.X, _S.ZERO, _S.ZERO, _S.ZERO), Order.DEPTH_STENCIL: (_S.Y, _S.ZERO, _S.ZERO, _S.ZERO),
}

_SRGB_ORDERS = (Order.SRGB, Order.SRGBX, Order.SRGBA, Order.SBGRA)
_DEPTH_ORDERS = (Order.DEPTH, Order.DEPTH_STENCIL)


def image_property(order, channel_type, geometry):
    """ROCr's ImageProperty for a format on a geometry (UNSUPPORTED when it has none)."""
    entry = _TABLE.get(order, {}).get(channel_type, UNSUPPORTED)
    if geometry == Geometry.GEOMETRY_1DB:
        # The hardware has no buffer access to sRGB or 555/565-packed data.
        if order in _SRGB_ORDERS or channel_type in (Type.UNORM_SHORT_555, Type.UNORM_SHORT_565):
            return UNSUPPORTED
    elif geometry in (Geometry.GEOMETRY_2DDEPTH, Geometry.GEOMETRY_2DADEPTH):
        if order not in _DEPTH_ORDERS:
            return UNSUPPORTED
    return entry


def is_srgb(order):
    return order in _SRGB_ORDERS


# ---- pixel encoding (hsa_ext_image_clear) -------------------------------------------------

def encode_pixel(order, channel_type, words):
    """The element bytes an image store of `words` (4 x uint32: float4, int4 or uint4 by
    channel type, as hsa_ext_image_clear takes them) leaves in memory: the engine's own
    image-store conversion for the format's hardware format and read swizzle."""
    fmt = texel_formats.parse(_TABLE[order][channel_type].hw_format)
    channels = np.asarray(words, dtype=np.uint32).reshape(1, 4)
    components = texel_formats.deselect(channels, [int(sel) for sel in SWIZZLE[order]])
    fields = texel_formats.to_memory(texel_formats.saturate(components, fmt)[:, :fmt.components], fmt)
    return texel_formats.pack(fields, fmt)[0].tobytes()
