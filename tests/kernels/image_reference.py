"""numpy references for image kernels: what OpenCL's and HIP's image functions return on
gfx10, written from the OpenCL specification's sampling rules and the hardware's precision.

Holds three invariants:
- pixels convert to RGBA as the OpenCL specification says for each channel order and type
  (section 8.3: normalized integers divide by 2^n - 1, SNORM clamps to -1, sRGB decodes to
  linear, orders without alpha read alpha 1, intensity and luminance replicate);
- sampling follows the specification's addressing and filtering formulas, with the
  hardware's precision: the texel-space coordinate is rounded to a multiple of 1/256 (8
  subtexel bits) before linear filtering splits it, so weights are multiples of 1/256, and
  before nearest filtering takes its floor — unless the device library adjusted a nearest
  coordinate first (ROCm's read_imagef, tex2D, gradients and gathers snap it to the texel's
  edge: ockl's ADJUST_*), which makes nearest filtering the specification's floor(s * size)
  in float32; the weighted sum is rounded once to float32;
- out-of-range array layers clamp, border texels read the border colour the specification
  gives the channel order (transparent black, or opaque black for orders without alpha).
"""
import numpy as np

from softgpu_shim.hsa_abi import (HsaExtImageChannelOrder as Order, HsaExtImageChannelType as Type,
                                  HsaExtSamplerAddressingMode as Address)

_NORMALIZED = {Type.UNORM_INT8: (8, False), Type.UNORM_INT16: (16, False),
               Type.SNORM_INT8: (8, True), Type.SNORM_INT16: (16, True)}
_INTEGER = (Type.SIGNED_INT8, Type.SIGNED_INT16, Type.SIGNED_INT32, Type.UNSIGNED_INT8,
            Type.UNSIGNED_INT16, Type.UNSIGNED_INT32)
# Packed RGB: (bits of r, g, b) from the top down, b in the low bits.
_PACKED = {Type.UNORM_SHORT_565: (5, 6, 5), Type.UNORM_SHORT_555: (5, 5, 5),
           Type.UNORM_SHORT_101010: (10, 10, 10)}
_NO_ALPHA = (Order.R, Order.RG, Order.RGB, Order.LUMINANCE, Order.DEPTH)


def is_integer(channel_type):
    return channel_type in _INTEGER


def _components(pixels, channel_type):
    """Component values in memory order (float32 for float-ish types, int64 for integers)."""
    if channel_type in _NORMALIZED:
        bits, signed = _NORMALIZED[channel_type]
        top = float(2 ** (bits - 1) - 1 if signed else 2 ** bits - 1)
        values = np.maximum(pixels.astype(np.float64) / top, -1.0)
        return values.astype(np.float32)
    if channel_type in _PACKED:
        element = pixels.astype(np.int64)
        fields, shift = [], 0
        for bits in reversed(_PACKED[channel_type]):        # b, g, r from the low bits
            fields.append(((element >> shift) & ((1 << bits) - 1)) / float(2 ** bits - 1))
            shift += bits
        b, g, r = fields
        return np.stack([r, g, b], axis=-1).astype(np.float32)
    if channel_type in (Type.HALF_FLOAT, Type.FLOAT):
        return pixels.astype(np.float32)
    return pixels.astype(np.int64)


def srgb_to_linear(v):
    v = np.asarray(v, np.float64)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v):
    v = np.asarray(v, np.float64)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.maximum(v, 0) ** (1 / 2.4) - 0.055)


# Where each of R, G, B, A comes from: a component index, or the constant 0 / 1.
_SOURCES = {Order.R: (0, "0", "0", "1"), Order.A: ("0", "0", "0", 0), Order.RG: (0, 1, "0", "1"),
            Order.RA: (0, "0", "0", 1), Order.RGB: (0, 1, 2, "1"), Order.RGBA: (0, 1, 2, 3),
            Order.BGRA: (2, 1, 0, 3), Order.ARGB: (1, 2, 3, 0), Order.INTENSITY: (0, 0, 0, 0),
            Order.LUMINANCE: (0, 0, 0, "1"), Order.SRGBA: (0, 1, 2, 3), Order.DEPTH: (0, "0", "0", "0")}


def colors(pixels, order, channel_type):
    """RGBA of every pixel ([..., 4]): float64 holding float32 values, or int64. Pixels have
    a last axis of components, except packed formats (one element each)."""
    c = _components(pixels, channel_type)
    integer = channel_type in _INTEGER
    constant = {"0": 0, "1": 1 if integer else 1.0}
    rgba = [np.full(c.shape[:-1], constant[src]) if isinstance(src, str) else c[..., src]
            for src in _SOURCES[order]]
    out = np.stack(rgba, axis=-1).astype(np.float64)
    if order == Order.SRGBA:                  # decoded from the 8-bit codes themselves
        out[..., :3] = srgb_to_linear(pixels[..., :3] / 255.0).astype(np.float32)
    return out.astype(np.int64) if integer else out


def border(order, integer):
    value = (0, 0, 0, 1) if order in _NO_ALPHA else (0, 0, 0, 0)
    return np.array(value, np.int64 if integer else np.float64)


# ---- sampling -------------------------------------------------------------------------------

def _fixed(u):
    """The texel-space coordinate as the hardware holds it: a multiple of 1/256."""
    return np.rint(u * 256.0) / 256.0


def _address(i, n, mode):
    """(index, inside) by the sampler's addressing mode (UNDEFINED behaves as REPEAT)."""
    if mode in (Address.REPEAT, Address.UNDEFINED):
        return np.mod(i, n), np.ones(i.shape, bool)
    if mode == Address.MIRRORED_REPEAT:
        m = np.mod(i, 2 * n)
        return np.where(m < n, m, 2 * n - 1 - m), np.ones(i.shape, bool)
    if mode == Address.CLAMP_TO_EDGE:
        return np.clip(i, 0, n - 1), np.ones(i.shape, bool)
    return np.clip(i, 0, n - 1), (i >= 0) & (i < n)


def sample(texels, coords, *, normalized, address, linear, order, arrayed=False, adjusted=True,
           offsets=None, rounded=True):
    """Sampled RGBA per coordinate. texels: [z, y, x, 4] colours (z: depth or layer, y: rows
    or, for 1D arrays, layers); coords: [k, d] (x[, y[, z]]) with the layer last for arrays.
    1D images have texels [1, 1, x, 4] and coords [k, 1]. `adjusted`: the device library
    snapped nearest-filtered coordinates to texel edges (read_imagef; not read_imagef with
    an explicit LOD); `offsets`: texel offsets per axis (the image_sample_*_o forms);
    `rounded=False` leaves the weighted sum in float64 (one level of a mip blend)."""
    texels = np.asarray(texels)
    integer = texels.dtype.kind == "i"
    snapped = adjusted and not linear          # the library snaps for nearest samplers only
    linear = linear and not integer            # integer formats are point sampled
    depth, height, width = texels.shape[:3]
    coords = np.asarray(coords, np.float32)
    k, d = coords.shape
    spatial = d - 1 if arrayed else d
    if arrayed:
        layers = height if spatial == 1 else depth
        layer = np.clip(np.rint(coords[:, -1]), 0, layers - 1).astype(np.int64)
    sizes = [width, height, depth][:spatial]
    taps_per_axis = []
    for axis in range(spatial):
        if snapped:        # the library's float32 arithmetic, then an exact texel edge
            u = coords[:, axis] * np.float32(sizes[axis]) if normalized else coords[:, axis]
        else:              # the texture unit scales exactly, then rounds to 1/256
            u = coords[:, axis].astype(np.float64) * (sizes[axis] if normalized else 1)
        if offsets is not None:
            u = u + offsets[axis]
        if linear:
            t = _fixed(u.astype(np.float64)) - 0.5
            i0 = np.floor(t)
            a = t - i0
            i0 = i0.astype(np.int64)
            taps_per_axis.append([(i0, 1 - a), (i0 + 1, a)])
        else:
            point = np.floor(u) if snapped else np.floor(_fixed(u.astype(np.float64)))
            taps_per_axis.append([(point.astype(np.int64), np.ones(k))])
    total = np.zeros((k, 4))
    edge = border(order, integer)
    combos = [[]]
    for taps in taps_per_axis:
        combos = [c + [t] for c in combos for t in taps]
    for combo in combos:
        weight = np.ones(k)
        index, inside = [], np.ones(k, bool)
        for axis, (i, w) in enumerate(combo):
            # `address`: one mode, or one per axis (x, y, z) as a v2 sampler has them.
            j, ok = _address(i, sizes[axis], address[axis] if isinstance(address, tuple) else address)
            index.append(j)
            inside &= ok
            weight = weight * w
        x = index[0]
        y = index[1] if spatial > 1 else (layer if arrayed else np.zeros(k, np.int64))
        z = index[2] if spatial > 2 else (layer if arrayed and spatial == 2 else np.zeros(k, np.int64))
        value = np.where(inside[:, None], texels[z, y, x], edge)
        if integer:
            return value
        total += weight[:, None] * value
    return total.astype(np.float32) if rounded else total


def gather(texels, coords, channel, *, normalized, address, order, adjusted, offsets=(0, 0)):
    """amd_fetch4's four texels of one channel: the bilinear footprint's (i0, j1), (i1, j1),
    (i1, j0), (i0, j0), i along x. `adjusted`: nearest sampler, coordinates snapped first;
    `offsets`: texel offsets (image_gather4_*_o)."""
    texels = np.asarray(texels)
    height, width = texels.shape[1:3]
    coords = np.asarray(coords, np.float32)
    corners = []
    for axis, size in enumerate((width, height)):
        u = coords[:, axis] * np.float32(size) if normalized else coords[:, axis]
        u = np.floor(u).astype(np.float64) if adjusted else _fixed(u.astype(np.float64) + offsets[axis])
        first = np.floor(u - 0.5).astype(np.int64)
        corners.append([_address(first, size, address), _address(first + 1, size, address)])
    edge = border(order, texels.dtype.kind == "i")[channel]
    out = []
    for xi, yi in ((0, 1), (1, 1), (1, 0), (0, 0)):
        (x, x_ok), (y, y_ok) = corners[0][xi], corners[1][yi]
        out.append(np.where(x_ok & y_ok, texels[0, y, x, channel], edge))
    return np.stack(out, axis=1).astype(np.float32)


def mip_layout(width, height, levels, element_bytes):
    """gfx10's linear mip chain: [(byte offset, row pitch in elements, width, height)] per
    level, levels stored smallest first, rows aligned to 256 bytes; and the chain's bytes."""
    align = 256 // element_bytes
    sizes = [(max(width >> level, 1), max(height >> level, 1)) for level in range(levels)]
    offsets, total = {}, 0
    for level in reversed(range(levels)):
        w, h = sizes[level]
        pitch = -(-w // align) * align
        offsets[level] = (total, pitch, w, h)
        total += pitch * h * element_bytes
    return [offsets[level] for level in range(levels)], total


# ---- stores ---------------------------------------------------------------------------------

def store_elements(rgba, order, channel_type):
    """The pixels (as Image pixels: component dtype, [..., components]) write_image{f,i,ui}
    of RGBA values leaves: round to nearest even and saturate; sRGB encodes."""
    rgba = np.asarray(rgba)
    memory_order = {Order.R: [0], Order.A: [3], Order.RG: [0, 1], Order.RA: [0, 3],
                    Order.RGBA: [0, 1, 2, 3], Order.BGRA: [2, 1, 0, 3], Order.ARGB: [3, 0, 1, 2],
                    Order.INTENSITY: [0], Order.LUMINANCE: [0], Order.RGB: [0, 1, 2],
                    Order.SRGBA: [0, 1, 2, 3]}[order]
    values = rgba[..., memory_order]
    if channel_type in _PACKED:
        bits = _PACKED[channel_type]
        element = np.zeros(values.shape[:-1], np.int64)
        for c, width in enumerate(bits):           # r first: the highest field
            field = np.rint(np.clip(np.nan_to_num(values[..., c].astype(np.float64)), 0, 1) * (2 ** width - 1))
            element = (element << width) | field.astype(np.int64)
        return element.astype(np.uint32 if channel_type == Type.UNORM_SHORT_101010 else np.uint16)
    if channel_type in _NORMALIZED:
        nbits, signed = _NORMALIZED[channel_type]
        f = np.nan_to_num(values.astype(np.float64))
        if order == Order.SRGBA:
            f[..., :3] = linear_to_srgb(np.clip(f[..., :3], 0, 1))
        top = 2 ** (nbits - 1) - 1 if signed else 2 ** nbits - 1
        ints = np.rint(np.clip(f, -1.0 if signed else 0.0, 1.0) * top)
        dtype = {8: np.int8, 16: np.int16}[nbits] if signed else {8: np.uint8, 16: np.uint16}[nbits]
        return ints.astype(dtype)
    if channel_type == Type.HALF_FLOAT:
        return values.astype(np.float32).astype(np.float16)
    if channel_type == Type.FLOAT:
        return values.astype(np.float32)
    dtype = {Type.SIGNED_INT8: np.int8, Type.SIGNED_INT16: np.int16, Type.SIGNED_INT32: np.int32,
             Type.UNSIGNED_INT8: np.uint8, Type.UNSIGNED_INT16: np.uint16,
             Type.UNSIGNED_INT32: np.uint32}[channel_type]
    info = np.iinfo(dtype)
    return np.clip(values.astype(np.int64), info.min, info.max).astype(dtype)
