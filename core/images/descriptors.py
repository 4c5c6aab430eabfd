"""gfx10 (gfx1030) image, buffer and sampler descriptors, as ROCr's Navi image manager fills them.

An hsa_ext_image_t is the device address of a 48-byte object: the 8-dword image
resource (T#; a 4-dword buffer resource V# for 1DB images) followed by ROCr's three
"HSAIL ABI" dwords (channel type, channel order, width). An hsa_ext_sampler_t is the
address of a 32-byte object whose first 4 dwords are the sampler (S#).

Holds these invariants:
- every field is placed at its gfx10 bit position (ROCr's resource_nv.h layout), where
  the engine's image instructions read it (core.isa.interp.image_resources);
- descriptors carry the image's full device address. ROCr subtracts the GPU's local
  region base, which KFD reports as 0 on discrete GPUs; SoftGPU's local pool reports
  the arena start there, so subtracting it would leave an offset nothing could use.
"""
from core.images.formats import SWIZZLE, Sel
from core.hsa_abi import (HsaExtImageGeometry as Geometry,
                          HsaExtSamplerAddressingMode as Addressing,
                          HsaExtSamplerCoordinateMode as Coordinates,
                          HsaExtSamplerFilterMode as Filter)

IMAGE_OBJECT_BYTES = 48
SAMPLER_OBJECT_BYTES = 32

# SQ_RSRC_IMG_* resource types by geometry (depth images are plain 2D/2D-array images).
_RESOURCE_TYPE = {Geometry.GEOMETRY_1D: 8, Geometry.GEOMETRY_2D: 9, Geometry.GEOMETRY_3D: 10,
                  Geometry.GEOMETRY_1DA: 12, Geometry.GEOMETRY_2DA: 13, Geometry.GEOMETRY_1DB: 0,
                  Geometry.GEOMETRY_2DDEPTH: 9, Geometry.GEOMETRY_2DADEPTH: 13}
_ARRAYS = (Geometry.GEOMETRY_1DA, Geometry.GEOMETRY_2DA, Geometry.GEOMETRY_2DADEPTH)
SW_MODE_LINEAR = 0

# TEX_BC_SWIZZLE values.
_BC_XYZW, _BC_XWYZ, _BC_WZYX, _BC_WXYZ, _BC_ZYXW, _BC_YXWZ = range(6)


def _border_color_swizzle(swizzle):
    """ROCr's GetBcSwizzle: where the border colour's alpha lands for this read swizzle."""
    r, g, b, a = swizzle
    if a == Sel.X:
        if b == Sel.Y:
            return _BC_WZYX
        if r == g == b == Sel.X:
            return _BC_XYZW
        return _BC_WXYZ
    if r == Sel.X:
        if g == Sel.Y or (g == Sel.X and b == Sel.X and a == Sel.W):
            return _BC_XYZW
        return _BC_XWYZ
    if g == Sel.X:
        return _BC_YXWZ
    if b == Sel.X:
        return _BC_ZYXW
    return _BC_XYZW


def _dst_sel(swizzle):
    x, y, z, w = swizzle
    return int(x) | int(y) << 3 | int(z) << 6 | int(w) << 9


def image_words(image):
    """The 12 dwords of ROCr's image object for `image` (core.images.objects.Image)."""
    desc, prop, address = image.desc, image.prop, image.data
    swizzle = SWIZZLE[desc.channel_order]
    if desc.geometry == Geometry.GEOMETRY_1DB:
        words = [address & 0xFFFFFFFF,
                 (address >> 32) & 0xFFFF | (prop.element_size & 0x3FFF) << 16,
                 (desc.width * prop.element_size) & 0xFFFFFFFF,
                 # INDEX_STRIDE is a 2-bit field that ROCr assigns the element size to:
                 # the bits that fit are what its descriptor holds.
                 _dst_sel(swizzle) | prop.hw_format << 12 | (prop.element_size & 3) << 21 | 1 << 24,
                 0, 0, 0, 0]
    else:
        width = max(desc.width, 1) - 1
        if desc.geometry in _ARRAYS:
            word4 = (max(desc.array_size, 1) - 1) & 0x1FFF
        elif desc.geometry == Geometry.GEOMETRY_3D:
            word4 = (max(desc.depth, 1) - 1) & 0x1FFF
        else:
            # gfx1030 keeps pitch-1 (in elements) where 1D and 2D images have no depth.
            word4 = (image.pitch_elements - 1) & 0x3FFF
        words = [(address >> 8) & 0xFFFFFFFF,
                 (address >> 40) & 0xFF | prop.hw_format << 20 | (width & 3) << 30,
                 (width >> 2) & 0xFFF | ((max(desc.height, 1) - 1) & 0x3FFF) << 14 | 1 << 31,
                 _dst_sel(swizzle) | SW_MODE_LINEAR << 20 | _border_color_swizzle(swizzle) << 25
                 | _RESOURCE_TYPE[desc.geometry] << 28,
                 word4, 0, 0, 0]
    return words + [desc.channel_type, desc.channel_order, desc.width & 0xFFFFFFFF, 0]


def _field(word, shift, bits, value):
    mask = ((1 << bits) - 1) << shift
    return (word & ~mask) | ((value << shift) & mask)


def imported_words(image, layout_words):
    """ROCr's descriptor for hsa_amd_image_create: the caller's 8 dwords (from another
    API's image metadata) with base address, format and swizzle set for this image."""
    desc, prop, address = image.desc, image.prop, image.data
    words = list(layout_words)
    dst_sel = _dst_sel(SWIZZLE[desc.channel_order])
    if desc.geometry == Geometry.GEOMETRY_1DB:
        words[0] = address & 0xFFFFFFFF
        words[1] = _field(_field(words[1], 0, 16, address >> 32), 16, 14, prop.element_size)
        words[3] = _field(_field(_field(words[3], 0, 12, dst_sel), 12, 7, prop.hw_format), 21, 2, prop.element_size)
    else:
        words[0] = (address >> 8) & 0xFFFFFFFF
        words[1] = _field(_field(words[1], 0, 8, address >> 40), 20, 9, prop.hw_format)
        words[3] = _field(words[3], 0, 12, dst_sel)
        if desc.geometry in (Geometry.GEOMETRY_1D, Geometry.GEOMETRY_1DA):
            words[3] = _field(words[3], 28, 4, _RESOURCE_TYPE[desc.geometry])
        # The metadata (compression) address is stored relative to the image data.
        meta = (words[7] << 16 | ((words[6] >> 24) & 0xFF) << 8) + address
        words[6] = _field(words[6], 24, 8, meta >> 8)
        words[7] = (meta >> 16) & 0xFFFFFFFF
    return words + [desc.channel_type, desc.channel_order, desc.width & 0xFFFFFFFF, 0]


# SQ_TEX_CLAMP by addressing mode; UNDEFINED behaves as REPEAT (ROCr).
_CLAMP = {Addressing.CLAMP_TO_EDGE: 2, Addressing.CLAMP_TO_BORDER: 6, Addressing.MIRRORED_REPEAT: 1,
          Addressing.UNDEFINED: 0, Addressing.REPEAT: 0}
_XY_FILTER = {Filter.NEAREST: 0, Filter.LINEAR: 1}
MAX_LOD = 4095


def sampler_descriptor_valid(coordinate_mode, filter_mode, address_modes):
    """address_modes: the (x, y, z) modes (hsa_ext_sampler_descriptor_v2_t; a v1 descriptor's
    one mode serves all three axes, as ROCr widens it)."""
    return (coordinate_mode in (Coordinates.UNNORMALIZED, Coordinates.NORMALIZED)
            and filter_mode in _XY_FILTER and all(mode in _CLAMP for mode in address_modes))


def sampler_words(coordinate_mode, filter_mode, address_modes):
    """The 8 dwords of ROCr's sampler object (S# in the first four, transparent-black border);
    the S# clamps each axis by its own (x, y, z) mode."""
    clamp_x, clamp_y, clamp_z = (_CLAMP[mode] for mode in address_modes)
    unnormalized = int(coordinate_mode == Coordinates.UNNORMALIZED)
    xy = _XY_FILTER[filter_mode]
    return [clamp_x | clamp_y << 3 | clamp_z << 6 | unnormalized << 15,
            MAX_LOD << 12,
            xy << 20 | xy << 22,
            0, 0, 0, 0, 0]
