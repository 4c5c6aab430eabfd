"""The kernel suite's image cases (tests/kernels/images.cl): images and samplers made through
the HSA images extension, read, sampled and written by OpenCL C kernels, each result
compared with tests/kernels/image_reference.py.

Holds these invariants:
- every sampler mode the extension has (normalized or not, nearest or linear, every
  addressing mode) and every channel order and type ROCr supports on gfx10 is read by some
  case, and every writable format is written by one;
- coordinates include texel centres, exact texel edges, points within 1/512 of an edge (where
  the hardware's 8 subtexel bits decide) and points outside the image.
"""
import numpy as np

from softgpu_shim.hsa_abi import (HsaExtImageChannelOrder as Order, HsaExtImageChannelType as Type,
                                  HsaExtImageGeometry as Geometry, HsaExtSamplerAddressingMode as Address,
                                  HsaExtSamplerCoordinateMode as Coordinates, HsaExtSamplerFilterMode as Filter)
from tests.kernels import image_reference as ref
from tests.kernels.checks import Ulps
from tests.kernels.suite import case
from tests.support.images import Image, Sampler

SOURCE = "images.cl"
# gfx90a has no image instructions; gfx1100 reads the gfx10 descriptors ROCr 5.2.3 writes for
# it (its Navi image manager serves every gfx10+ GPU). The inline assembly is gfx10's.
IMAGE_TARGETS = ("gfx1030", "gfx1100")
ASM_TARGETS = ("gfx1030",)
K = 64                      # coordinates (work-items) per sampling case
LINEAR_TOLERANCE = Ulps(1)  # the weighted sum's float64 rounding order may differ from numpy's

_DTYPES = {Type.UNORM_INT8: np.uint8, Type.SNORM_INT8: np.int8, Type.UNORM_INT16: np.uint16,
           Type.SNORM_INT16: np.int16, Type.SIGNED_INT8: np.int8, Type.SIGNED_INT16: np.int16,
           Type.SIGNED_INT32: np.int32, Type.UNSIGNED_INT8: np.uint8, Type.UNSIGNED_INT16: np.uint16,
           Type.UNSIGNED_INT32: np.uint32, Type.HALF_FLOAT: np.float16, Type.FLOAT: np.float32,
           Type.UNORM_SHORT_565: np.uint16, Type.UNORM_SHORT_555: np.uint16,
           Type.UNORM_SHORT_101010: np.uint32}
_COMPONENTS = {Order.R: 1, Order.A: 1, Order.INTENSITY: 1, Order.LUMINANCE: 1, Order.RG: 2, Order.RA: 2,
               Order.RGBA: 4, Order.BGRA: 4, Order.ARGB: 4, Order.SRGBA: 4, Order.RGB: 0}


def pixels(rng, shape, order, channel_type):
    """Random pixels of (z, y, x): finite floats in [-2, 2], every integer code."""
    components = _COMPONENTS[order]
    full = tuple(shape) + ((components,) if components else ())
    dtype = _DTYPES[channel_type]
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-2, 2, full).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, full, endpoint=True, dtype=np.int64).astype(dtype)


def coordinates(rng, sizes, normalized):
    """K coordinates per axis of `sizes`: centres, edges, 1/512 around edges, outside."""
    columns = []
    for size in sizes:
        texel = rng.integers(-1, size + 2, K).astype(np.float64)
        offset = rng.choice([0.5, 0.0, 1 / 1024, -1 / 1024, 0.25, 0.75], K)
        values = texel + offset
        values[-8:] = rng.uniform(-size, 2 * size, 8)
        columns.append(values / size if normalized else values)
    return np.stack(columns, axis=1).astype(np.float32)


def _register(name, kernel, build, tolerance=None, grid=K, workgroup=K):
    build.__name__ = name
    image_case(grid, workgroup, kernel=kernel, tolerance=tolerance)(build)


def image_case(grid, workgroup, **options):
    return case(SOURCE, grid, workgroup, targets=IMAGE_TARGETS, **options)


# --- sampling with every sampler mode (2D RGBA unorm8, 7x5) ---

_MODES = [(Coordinates.NORMALIZED, a) for a in (Address.CLAMP_TO_EDGE, Address.CLAMP_TO_BORDER,
                                                 Address.REPEAT, Address.MIRRORED_REPEAT, Address.UNDEFINED)] + \
         [(Coordinates.UNNORMALIZED, a) for a in (Address.CLAMP_TO_EDGE, Address.CLAMP_TO_BORDER)]


def _sample_2d_case(coordinate_mode, address, filter_mode, order=Order.RGBA, channel_type=Type.UNORM_INT8):
    def build(rng, wave):
        image = pixels(rng, (1, 5, 7), order, channel_type)
        normalized = coordinate_mode == Coordinates.NORMALIZED
        c = coordinates(rng, (7, 5), normalized)
        want = ref.sample(ref.colors(image, order, channel_type), c, normalized=normalized,
                          address=address, linear=filter_mode == Filter.LINEAR, order=order)
        args = [Image(Geometry.GEOMETRY_2D, order, channel_type, image),
                Sampler(coordinate_mode, filter_mode, address), c, np.zeros((K, 4), np.float32)]
        return args, {3: want}
    return build


for _coords_mode, _address in _MODES:
    for _filter in (Filter.NEAREST, Filter.LINEAR):
        _name = (f"image_sample_2d_{_coords_mode.name.lower()}_{_address.name.lower()}_"
                 f"{_filter.name.lower()}")
        _register(_name, "sample_2d", _sample_2d_case(_coords_mode, _address, _filter),
                  {3: LINEAR_TOLERANCE} if _filter == Filter.LINEAR else None)

# A v2 sampler (hsa_ext_sampler_create_v2): each axis wraps by its own mode.
for _filter in (Filter.NEAREST, Filter.LINEAR):
    _register(f"image_sample_2d_per_axis_modes_{_filter.name.lower()}", "sample_2d",
              _sample_2d_case(Coordinates.NORMALIZED, (Address.MIRRORED_REPEAT, Address.CLAMP_TO_BORDER,
                                                       Address.REPEAT), _filter),
              {3: LINEAR_TOLERANCE} if _filter == Filter.LINEAR else None)

# --- every readable format: conversion, channel order, border colour (linear, border) ---

_READABLE = [(o, t) for o in (Order.R, Order.A, Order.RG, Order.RA, Order.RGBA)
             for t in (Type.UNORM_INT8, Type.SNORM_INT16, Type.HALF_FLOAT, Type.FLOAT)] + \
            [(Order.RGBA, Type.UNORM_INT16), (Order.RGBA, Type.SNORM_INT8), (Order.BGRA, Type.UNORM_INT8),
             (Order.ARGB, Type.SNORM_INT8), (Order.SRGBA, Type.UNORM_INT8), (Order.INTENSITY, Type.UNORM_INT16),
             (Order.INTENSITY, Type.HALF_FLOAT), (Order.LUMINANCE, Type.SNORM_INT8),
             (Order.LUMINANCE, Type.FLOAT), (Order.RGB, Type.UNORM_SHORT_565),
             (Order.RGB, Type.UNORM_SHORT_555), (Order.RGB, Type.UNORM_SHORT_101010)]

for _order, _type in _READABLE:
    _register(f"image_read_{_order.name.lower()}_{_type.name.lower()}", "sample_2d",
              _sample_2d_case(Coordinates.NORMALIZED, Address.CLAMP_TO_BORDER, Filter.LINEAR, _order, _type),
              {3: LINEAR_TOLERANCE})

# --- the other geometries: 1D, 1D array, 2D array (layers round and clamp), 3D (trilinear) ---


def _sample_case(geometry, kernel_shape, sizes, arrayed, address, filter_mode, layers=0):
    """kernel_shape: the image's (z, y, x); sizes: the filtered axes' sizes (x first)."""
    def build(rng, wave):
        image = pixels(rng, kernel_shape, Order.RGBA, Type.UNORM_INT16)
        c = coordinates(rng, sizes, True)
        if arrayed:
            c = np.concatenate([c, rng.uniform(-1.5, layers + 0.5, (K, 1)).astype(np.float32)], axis=1)
        linear = filter_mode == Filter.LINEAR
        want = ref.sample(ref.colors(image, Order.RGBA, Type.UNORM_INT16), c, normalized=True,
                          address=address, linear=linear, order=Order.RGBA, arrayed=arrayed)
        if c.shape[1] == 3:                              # float4 coordinates: pad with w
            c = np.concatenate([c, np.zeros((K, 1), np.float32)], axis=1)
        args = [Image(geometry, Order.RGBA, Type.UNORM_INT16, image),
                Sampler(Coordinates.NORMALIZED, filter_mode, address),
                c[:, 0] if c.shape[1] == 1 else c, np.zeros((K, 4), np.float32)]
        return args, {3: want}
    return build


for _filter in (Filter.NEAREST, Filter.LINEAR):
    _tol = {3: LINEAR_TOLERANCE} if _filter == Filter.LINEAR else None
    _f = _filter.name.lower()
    _register(f"image_sample_1d_{_f}", "sample_1d",
              _sample_case(Geometry.GEOMETRY_1D, (1, 1, 13), (13,), False, Address.REPEAT, _filter), _tol)
    _register(f"image_sample_1d_array_{_f}", "sample_1d_array",
              _sample_case(Geometry.GEOMETRY_1DA, (1, 3, 9), (9,), True, Address.CLAMP_TO_EDGE, _filter, 3), _tol)
    _register(f"image_sample_2d_array_{_f}", "sample_2d_array",
              _sample_case(Geometry.GEOMETRY_2DA, (4, 3, 5), (5, 3), True, Address.MIRRORED_REPEAT, _filter, 4),
              _tol)
    _register(f"image_sample_3d_{_f}", "sample_3d",
              _sample_case(Geometry.GEOMETRY_3D, (3, 4, 5), (5, 4, 3), False, Address.CLAMP_TO_BORDER, _filter),
              _tol)


# --- integer images: read_imagei / read_imageui (always point sampled) ---

def image_sample_2d_int(rng, wave):
    image = pixels(rng, (1, 4, 6), Order.RG, Type.SIGNED_INT16)
    c = coordinates(rng, (6, 4), False)
    ic = rng.integers(-2, 8, (K, 2)).astype(np.int32)
    texels = ref.colors(image, Order.RG, Type.SIGNED_INT16)
    sampler = dict(normalized=False, address=Address.CLAMP_TO_BORDER, linear=True, order=Order.RG)
    want = ref.sample(texels, c, **sampler).astype(np.int32)
    iwant = ref.sample(texels, ic.astype(np.float32), **sampler).astype(np.int32)
    args = [Image(Geometry.GEOMETRY_2D, Order.RG, Type.SIGNED_INT16, image),
            Sampler(Coordinates.UNNORMALIZED, Filter.LINEAR, Address.CLAMP_TO_BORDER), c, ic,
            np.zeros((K, 4), np.int32), np.zeros((K, 4), np.int32)]
    return args, {4: want, 5: iwant}


def image_sample_2d_uint(rng, wave):
    image = pixels(rng, (1, 5, 3), Order.RGBA, Type.UNSIGNED_INT32)
    c = coordinates(rng, (3, 5), True)
    want = ref.sample(ref.colors(image, Order.RGBA, Type.UNSIGNED_INT32), c, normalized=True,
                      address=Address.REPEAT, linear=False, order=Order.RGBA).astype(np.uint32)
    args = [Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.UNSIGNED_INT32, image),
            Sampler(Coordinates.NORMALIZED, Filter.NEAREST, Address.REPEAT), c, np.zeros((K, 4), np.uint32)]
    return args, {3: want}


def image_sample_2d_half(rng, wave):
    image = pixels(rng, (1, 5, 7), Order.BGRA, Type.UNORM_INT8)
    c = coordinates(rng, (7, 5), True)
    want = ref.sample(ref.colors(image, Order.BGRA, Type.UNORM_INT8), c, normalized=True,
                      address=Address.CLAMP_TO_EDGE, linear=True, order=Order.BGRA)
    args = [Image(Geometry.GEOMETRY_2D, Order.BGRA, Type.UNORM_INT8, image),
            Sampler(Coordinates.NORMALIZED, Filter.LINEAR, Address.CLAMP_TO_EDGE), c, np.zeros((K, 4), np.float16)]
    return args, {3: want.astype(np.float16)}


for _build in (image_sample_2d_int, image_sample_2d_uint, image_sample_2d_half):
    _register(_build.__name__, _build.__name__[len("image_"):], _build)


# --- sampler-less reads (image_load): out-of-range coordinates read 0 ---

def _texel_indices(rng, sizes):
    """K integer coordinates, a quarter of them outside `sizes` (x first)."""
    columns = [rng.integers(0, n, K) for n in sizes]
    outside = rng.random(K) < 0.25
    axis = rng.integers(0, len(sizes), K)
    for a, n in enumerate(sizes):
        columns[a] = np.where(outside & (axis == a), rng.choice([-1, n, n + 3, -7], K), columns[a])
    return np.stack(columns, axis=1).astype(np.int32)


def _loaded(texels, coords, order, integer):
    """What image_load returns: the texel, or zeros (alpha 1 for orders without alpha)."""
    z, y, x = texels.shape[:3]
    c = np.asarray(coords)
    full = [c[:, 0], c[:, 1] if c.shape[1] > 1 else np.zeros(len(c), int),
            c[:, 2] if c.shape[1] > 2 else np.zeros(len(c), int)]
    inside = (full[0] >= 0) & (full[0] < x) & (full[1] >= 0) & (full[1] < y) & (full[2] >= 0) & (full[2] < z)
    safe = [np.where(inside, v, 0) for v in full]
    zero = ref.border(order, integer)
    return np.where(inside[:, None], texels[safe[2], safe[1], safe[0]], zero)


def image_load_2d(rng, wave):
    image = pixels(rng, (1, 6, 9), Order.RGBA, Type.HALF_FLOAT)
    c = _texel_indices(rng, (9, 6))
    want = _loaded(ref.colors(image, Order.RGBA, Type.HALF_FLOAT), c, Order.RGBA, False).astype(np.float32)
    bits = want.view(np.int32)
    args = [Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.HALF_FLOAT, image), c,
            np.zeros((K, 4), np.float32), np.zeros((K, 4), np.int32)]
    return args, {2: want, 3: bits}


def _load_case(geometry, shape, dims, order, channel_type, result_dtype):
    """Sampler-less reads of a (z, y, x) image: `dims` coordinates x, y[, z] (a 1D array's
    layer is y, a 2D array's z), int4-padded beyond two."""
    def build(rng, wave):
        image = pixels(rng, shape, order, channel_type)
        c = _texel_indices(rng, shape[::-1][:dims])
        if c.shape[1] == 3:
            c = np.concatenate([c, np.zeros((K, 1), np.int32)], axis=1)
        want = _loaded(ref.colors(image, order, channel_type), c[:, :3], order, ref.is_integer(channel_type))
        args = [Image(geometry, order, channel_type, image), c, np.zeros((K, 4), result_dtype)]
        return args, {2: want.astype(result_dtype)}
    return build


for _name, _geometry, _shape, _dims, _order, _type, _dtype in (
        ("load_1d_array", Geometry.GEOMETRY_1DA, (1, 5, 11), 2, Order.R, Type.UNSIGNED_INT8, np.uint32),
        ("load_3d", Geometry.GEOMETRY_3D, (3, 4, 5), 3, Order.LUMINANCE, Type.UNORM_INT8, np.float32),
        ("load_2d_array", Geometry.GEOMETRY_2DA, (3, 2, 7), 3, Order.RA, Type.SIGNED_INT32, np.int32)):
    _register(f"image_{_name}", _name, _load_case(_geometry, _shape, _dims, _order, _type, _dtype))
_register("image_load_2d", "load_2d", image_load_2d)


# --- writes: every writable format (round to nearest even, saturate), every geometry ---

def _store_values(rng, n, integer=None):
    """RGBA values to write: spread beyond [0, 1], exact codes and halfway points of 8 bits."""
    if integer is not None:
        return rng.integers(*integer, (n, 4), endpoint=True, dtype=np.int64)
    values = rng.uniform(-1.25, 1.25, (n, 4))
    pick = rng.random((n, 4))
    values = np.where(pick < 0.2, rng.integers(-255, 256, (n, 4)) / 255.0, values)
    values = np.where((pick >= 0.2) & (pick < 0.3), (rng.integers(-255, 255, (n, 4)) + 0.5) / 255.0, values)
    return values.astype(np.float32)


def _store_case(kernel, geometry, shape, order, channel_type, values_range=None, value_dtype=np.float32):
    """Write every texel of an image of (z, y, x) `shape`; grid = (x, y, z)."""
    def build(rng, wave):
        count = int(np.prod(shape))
        values = _store_values(rng, count, values_range).astype(value_dtype)
        initial = np.zeros_like(pixels(rng, shape, order, channel_type))
        want = ref.store_elements(values.astype(np.float32) if value_dtype == np.float16 else values,
                                  order, channel_type).reshape(initial.shape)
        return [Image(geometry, order, channel_type, initial), values], {0: want}
    z, y, x = shape
    build.__name__ = kernel
    return build, (x, y, z)


_WRITABLE = [(Order.RGBA, Type.UNORM_INT8), (Order.BGRA, Type.UNORM_INT8), (Order.ARGB, Type.SNORM_INT8),
             (Order.R, Type.FLOAT), (Order.RG, Type.HALF_FLOAT), (Order.RGBA, Type.UNORM_INT16),
             (Order.RA, Type.SNORM_INT16), (Order.A, Type.UNORM_INT8), (Order.INTENSITY, Type.FLOAT),
             (Order.LUMINANCE, Type.UNORM_INT16), (Order.RGB, Type.UNORM_SHORT_565),
             (Order.RGB, Type.UNORM_SHORT_555), (Order.RGB, Type.UNORM_SHORT_101010)]

_STORES = [(f"image_write_{o.name.lower()}_{t.name.lower()}", "store_2d", Geometry.GEOMETRY_2D, (1, 6, 9), o, t,
            None, np.float32) for o, t in _WRITABLE] + [
    ("image_write_int_saturates", "store_2d_int", Geometry.GEOMETRY_2D, (1, 4, 8), Order.RGBA,
     Type.SIGNED_INT8, (-300, 300), np.int32),
    ("image_write_uint_saturates", "store_2d_uint", Geometry.GEOMETRY_2D, (1, 4, 8), Order.RG,
     Type.UNSIGNED_INT16, (0, 2**32 - 1), np.uint32),
    ("image_write_half", "store_2d_half", Geometry.GEOMETRY_2D, (1, 3, 10), Order.RGBA, Type.UNORM_INT16,
     None, np.float16),
    ("image_write_1d_array", "store_1d_array", Geometry.GEOMETRY_1DA, (1, 3, 17), Order.R, Type.HALF_FLOAT,
     None, np.float32),
    ("image_write_2d_array", "store_2d_array", Geometry.GEOMETRY_2DA, (3, 2, 5), Order.RG, Type.SNORM_INT8,
     None, np.float32),
    ("image_write_3d", "store_3d", Geometry.GEOMETRY_3D, (2, 3, 4), Order.RGBA, Type.FLOAT, None, np.float32),
]

for _name, _kernel, _geometry, _shape, _order, _type, _range, _dtype in _STORES:
    _build, _grid = _store_case(_kernel, _geometry, _shape, _order, _type, _range, _dtype)
    _build.__name__ = _name
    image_case(_grid, _grid, kernel=_kernel)(_build)


def image_read_write(rng, wave):
    image = pixels(rng, (1, 4, 6), Order.RGBA, Type.FLOAT)
    want = (image * np.float32(0.5) + np.float32(0.25)).astype(np.float32)
    return [Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.FLOAT, image)], {0: want}


image_case((6, 4), (6, 4), kernel="read_write_2d")(image_read_write)


def image_queries(rng, wave):
    layered = pixels(rng, (4, 3, 5), Order.RGBA, Type.UNORM_INT8)
    volume = pixels(rng, (6, 2, 7), Order.R, Type.FLOAT)
    clk_unorm_int8, clk_rgba = 0x10D2, 0x10B5
    want = np.array([5, 3, 4, clk_unorm_int8, clk_rgba, 7, 2, 6], np.int32)
    return [Image(Geometry.GEOMETRY_2DA, Order.RGBA, Type.UNORM_INT8, layered),
            Image(Geometry.GEOMETRY_3D, Order.R, Type.FLOAT, volume), np.zeros(8, np.int32)], {2: want}


image_case(1, 1, kernel="queries")(image_queries)


def image_buffer(rng, wave):
    """1D buffer images: buffer_load_format / buffer_store_format through the V#'s DST_SEL."""
    values = pixels(rng, (1, 1, K), Order.INTENSITY, Type.FLOAT)
    got = ref.colors(values, Order.INTENSITY, Type.FLOAT)[0, 0].astype(np.float32)
    written = ref.store_elements(got[:, ::-1], Order.BGRA, Type.UNORM_INT8).reshape(1, 1, K, 4)
    return [Image(Geometry.GEOMETRY_1DB, Order.INTENSITY, Type.FLOAT, values),
            Image(Geometry.GEOMETRY_1DB, Order.BGRA, Type.UNORM_INT8, np.zeros((1, 1, K, 4), np.uint8)),
            np.zeros((K, 4), np.float32)], {1: written, 2: got}


image_case(K, K, kernel="buffer_image")(image_buffer)


def image_buffer_packed(rng, wave):
    """A packed format on a buffer image: one 32-bit element per texel, blue in the low bits."""
    values = pixels(rng, (1, 1, K), Order.RGB, Type.UNORM_SHORT_101010)
    got = ref.colors(values, Order.RGB, Type.UNORM_SHORT_101010)[0, 0].astype(np.float32)
    written = ref.store_elements(got[:, ::-1], Order.RGB, Type.UNORM_SHORT_101010).reshape(1, 1, K)
    return [Image(Geometry.GEOMETRY_1DB, Order.RGB, Type.UNORM_SHORT_101010, values),
            Image(Geometry.GEOMETRY_1DB, Order.RGB, Type.UNORM_SHORT_101010, np.zeros((1, 1, K), np.uint32)),
            np.zeros((K, 4), np.float32)], {1: written, 2: got}


image_case(K, K, kernel="buffer_image")(image_buffer_packed)


# --- mip levels (hsa_amd_image_create with a T# of several levels), LODs, gradients ---

def mip_image(rng, width, height, levels):
    """A 2D RGBA float image of `levels` mip levels in gfx10's linear mip layout: the Image
    (its raw bytes written directly) and each level's pixels [h, w, 4]."""
    layout, total = ref.mip_layout(width, height, levels, 16)
    raw = np.zeros(total // 4, np.float32)
    level_pixels = []
    for offset, pitch, w, h in layout:
        texels = rng.uniform(-2, 2, (h, w, 4)).astype(np.float32)
        raw[offset // 4:offset // 4 + pitch * h * 4].reshape(h, pitch * 4)[:, :w * 4] = texels.reshape(h, -1)
        level_pixels.append(texels)

    def with_levels(words):
        words = list(words)
        words[3] |= (levels - 1) << 16          # LAST_LEVEL
        words[5] |= (levels - 1) << 4           # MAX_MIP: the resource's layout has them all
        return words

    image = Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.FLOAT, level_pixels[0][None],
                  descriptor_words=with_levels, data_bytes=total, raw=raw)
    return image, level_pixels, layout


def image_mip_copy_level(rng, wave):
    """image_load_mip / image_store_mip: level 1 of one image, plus 0.5, into level 2 of
    another (texels outside level 2 are dropped)."""
    source, levels, layout = mip_image(rng, 9, 7, 4)
    target, _, _ = mip_image(rng, 9, 7, 4)
    target.raw[:] = 0
    want = target.raw.copy()
    offset, pitch, w, h = layout[2]
    want[offset // 4:offset // 4 + pitch * h * 4].reshape(h, pitch * 4)[:, :w * 4] = \
        (levels[1][:h, :w] + np.float32(0.5)).reshape(h, -1)
    return [source, target, np.int32(1), np.int32(2)], {1: want}


image_case((4, 3), (4, 3), kernel="copy_level")(image_mip_copy_level)


def _lod_case(gradients):
    def build(rng, wave):
        image, levels, _ = mip_image(rng, 8, 6, 3)
        xy = coordinates(rng, (8, 6), True)
        extra = rng.uniform(0, 3, (K, 2)).astype(np.float32)
        c = np.concatenate([xy, extra], axis=1)
        # HSA samplers have no mip filter (MIP_FILTER_NONE): every LOD reads the base level.
        texels = levels[0][None]
        want = ref.sample(texels, xy, normalized=True, address=Address.CLAMP_TO_EDGE, linear=False,
                          order=Order.RGBA, adjusted=gradients)
        sampler = Sampler(Coordinates.NORMALIZED, Filter.NEAREST, Address.CLAMP_TO_EDGE)
        if gradients:
            d = rng.uniform(-0.5, 0.5, (K, 4)).astype(np.float32)
            return [image, sampler, c, d, np.zeros((K, 4), np.float32)], {4: want}
        return [image, sampler, c, np.zeros((K, 4), np.float32)], {3: want}
    return build


_register("image_sample_lod", "sample_lod_2d", _lod_case(False))
_register("image_sample_gradients", "sample_grad_2d", _lod_case(True))


def _gather_case(filter_mode, address, channel):
    def build(rng, wave):
        image = pixels(rng, (1, 5, 6), Order.RGBA, Type.FLOAT)
        c = coordinates(rng, (6, 5), True)
        want = ref.gather(ref.colors(image, Order.RGBA, Type.FLOAT), c, channel, normalized=True,
                          address=address, order=Order.RGBA, adjusted=filter_mode == Filter.NEAREST)
        return [Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.FLOAT, image), Sampler(Coordinates.NORMALIZED,
                filter_mode, address), c, np.int32(channel), np.zeros((K, 4), np.float32)], {4: want}
    return build


for _filter, _address, _channel in ((Filter.NEAREST, Address.CLAMP_TO_EDGE, 0),
                                     (Filter.LINEAR, Address.CLAMP_TO_BORDER, 1),
                                     (Filter.LINEAR, Address.REPEAT, 3)):
    _register(f"image_gather_{_filter.name.lower()}_{_address.name.lower()}_{_channel}", "gather_2d",
              _gather_case(_filter, _address, _channel))


# --- forms only inline assembly reaches (tests/kernels/image_asm.cl) ---

ASM = "image_asm.cl"


def asm_case(grid, workgroup, **options):
    return case(ASM, grid, workgroup, targets=ASM_TARGETS, **options)


def quad_lod(c, sizes):
    """log2 of the larger texel footprint of each 2x2 lane quad (lanes 4q+1 and 4q+2 minus 4q)."""
    q = c.reshape(-1, 4, c.shape[1]).astype(np.float64) * np.asarray(sizes, np.float64)
    dx = np.repeat(q[:, 1] - q[:, 0], 4, axis=0)
    dy = np.repeat(q[:, 2] - q[:, 0], 4, axis=0)
    with np.errstate(divide="ignore"):
        return np.log2(np.maximum(np.hypot(*dx.T), np.hypot(*dy.T)))


def image_sample_forms(rng, wave):
    image = pixels(rng, (1, 6, 8), Order.R, Type.FLOAT)
    texels = ref.colors(image, Order.R, Type.FLOAT)
    xy = coordinates(rng, (8, 6), True)
    refs = rng.uniform(-2, 2, K).astype(np.float32)
    c = np.concatenate([xy, refs[:, None], rng.uniform(0, 2, (K, 1)).astype(np.float32)], axis=1)
    point = dict(normalized=True, address=Address.CLAMP_TO_EDGE, linear=False, order=Order.R, adjusted=False)
    plain = ref.sample(texels, xy, **point)[:, 0]
    shifted = ref.sample(texels, xy, offsets=(1, -1), **point)[:, 0]
    passed = (refs < plain).astype(np.float32)
    halves = ref.sample(texels, xy.astype(np.float16).astype(np.float32), **point)[:, 0]
    gathered = ref.gather(texels, xy, 0, normalized=True, address=Address.CLAMP_TO_EDGE, order=Order.R,
                          adjusted=False)
    compared = (refs[:, None] < gathered).astype(np.float32)
    lod = quad_lod(xy, (8, 6)).astype(np.float32)
    want = np.concatenate([np.stack([passed, shifted, plain, plain, plain, shifted, passed, plain, plain,
                                     halves], axis=1), gathered, compared,
                           np.stack([np.zeros(K, np.float32), lod], axis=1)], axis=1)
    args = [Image(Geometry.GEOMETRY_2D, Order.R, Type.FLOAT, image),
            Sampler(Coordinates.NORMALIZED, Filter.NEAREST, Address.CLAMP_TO_EDGE), c, np.zeros(20 * K, np.float32)]
    return args, {3: want}


asm_case(K, K, kernel="sample_forms")(image_sample_forms)


def image_mip_filters(rng, wave):
    image, levels, _ = mip_image(rng, 8, 6, 3)
    xy = coordinates(rng, (8, 6), True)
    lod = rng.uniform(-0.5, 3.0, K).astype(np.float32)
    c = np.concatenate([xy, lod[:, None], np.zeros((K, 1), np.float32)], axis=1)
    bilinear = dict(normalized=True, address=Address.REPEAT, linear=True, order=Order.RGBA, rounded=False)
    per_level = np.stack([ref.sample(level[None], xy, **bilinear) for level in levels])   # [3, K, 4]
    fixed = np.clip(np.rint(lod.astype(np.float64) * 256) / 256, 0, 2)
    nearest = np.floor(fixed + 0.5).astype(int)
    lo = np.floor(fixed).astype(int)
    hi = np.minimum(lo + 1, 2)
    frac = (fixed - lo)[:, None]
    lanes = np.arange(K)
    point = per_level[nearest, lanes].astype(np.float32)
    linear = (per_level[lo, lanes] * (1 - frac) + per_level[hi, lanes] * frac).astype(np.float32)
    want = np.stack([point, linear], axis=1)
    args = [image, Sampler(Coordinates.NORMALIZED, Filter.LINEAR, Address.REPEAT), c,
            np.zeros((2 * K, 4), np.float32)]
    return args, {3: want}


asm_case(K, K, kernel="mip_filters", tolerance={3: LINEAR_TOLERANCE})(image_mip_filters)


def image_raw_forms(rng, wave):
    image = pixels(rng, (1, 8, 8), Order.RGBA, Type.SIGNED_INT8)
    c = _texel_indices(rng, (8, 8))
    inside = (c[:, 0] >= 0) & (c[:, 0] < 8) & (c[:, 1] >= 0) & (c[:, 1] < 8)
    texel = image[0, np.clip(c[:, 1], 0, 7), np.clip(c[:, 0], 0, 7)].astype(np.int64)
    texel = np.where(inside[:, None], texel, 0)
    signed = texel & 0xFFFFFFFF
    want = np.concatenate([texel & 0xFF, signed, signed, texel & 0xFF, np.tile([8, 8, 1, 1], (K, 1))], axis=1)
    i = np.arange(K)
    stored = np.stack([i, 0x1FF + i, 7 * i, np.full(K, 0x80)], axis=1) & 0xFF
    both = np.concatenate([stored, stored[:, ::-1]]).astype(np.uint8).reshape(1, 16, 8, 4)
    args = [Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.SIGNED_INT8, image),
            Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.UNSIGNED_INT8, np.zeros((1, 16, 8, 4), np.uint8)),
            c, np.zeros(20 * K, np.uint32)]
    return args, {1: both, 3: want.astype(np.uint32).ravel()}


asm_case(K, K, kernel="raw_forms")(image_raw_forms)


def atomic_chain(initial, data, lanes):
    """Old values of the kernel's chain of atomics on each lane's texel (uint32 arithmetic;
    the signed minimum's operand is negative in odd lanes, where an unsigned one differs)."""
    mask = 0xFFFFFFFF
    signed = lambda x: np.where(x & 0x80000000, x - (1 << 32), x)    # noqa: E731
    steps = [lambda x: (x + data) & mask, lambda x: (x - 3) & mask, lambda x: np.maximum(x, 1000),
             lambda x: np.minimum(x, 5000), lambda x: np.maximum(signed(x), -7) & mask,
             lambda x: np.minimum(signed(x), np.where(lanes & 1, -5, 4000)) & mask,
             lambda x: x & 0xFF7, lambda x: x | 0x100,
             lambda x: x ^ 0x55, lambda x: np.where(x >= 3000, 0, x + 1),
             lambda x: np.where((x == 0) | (x > 3000), 3000, x - 1), lambda x: 77 + lanes]
    value, olds = initial.astype(np.int64), []
    for step in steps:
        olds.append(value)
        value = step(value)
    return olds + [value]                   # the cmpswap's old value: the swapped-in 77 + i


def image_atomic_forms(rng, wave):
    initial = rng.integers(0, 4000, (1, 8, 8, 1)).astype(np.uint32)
    counter = rng.integers(0, 100, (1, 1, 4, 1)).astype(np.uint32)
    v = rng.integers(0, 500, K).astype(np.uint32)
    olds = atomic_chain(initial.ravel(), v.astype(np.int64), np.arange(K))
    floats = rng.uniform(-2, 2, (1, 8, 8, 1)).astype(np.float32)
    start = floats.ravel()
    raised = np.maximum(start, np.float32(-0.5))
    lowered = np.minimum(raised, np.float32(0.75))
    float_olds = [start, raised, lowered]
    final = np.where(lowered == np.float32(0.75), np.float32(2.5), lowered).reshape(floats.shape)
    want = np.stack(olds + [np.full(K, 0xFEED)] + [f.view(np.uint32) for f in float_olds], axis=1)
    total = counter.copy()
    total[0, 0, 0, 0] += np.arange(1, K + 1).sum()
    args = [Image(Geometry.GEOMETRY_2D, Order.R, Type.UNSIGNED_INT32, initial),
            Image(Geometry.GEOMETRY_2D, Order.R, Type.UNSIGNED_INT32, counter),
            Image(Geometry.GEOMETRY_2D, Order.R, Type.FLOAT, floats), v, np.zeros(17 * K, np.uint32)]
    return args, {0: np.full((1, 8, 8, 1), 42, np.uint32), 1: total, 2: final,
                  4: want.astype(np.uint32).ravel()}


asm_case(K, K, kernel="atomic_forms")(image_atomic_forms)


# --- every sample and gather4 form, generated: each reads the same 2D R32F image with a
# nearest sampler of one mip level, so LOD inputs change nothing and the address words
# must be read from their places: [offset][bias][z-compare][d/dh..., d/dv...] x y [lod or
# clamp] (the ISA's order, written here independently of core.isa.mimg). -O2 only: the
# descriptors are whole-tuple "s" operands, which clang-15 gives VGPRs at -O0 ---

def _address_roles(name):
    mods = name.split("_")[2:]
    roles = [r for r, on in (("offset", "o" in mods), ("bias", "b" in mods), ("zcompare", "c" in mods)) if on]
    if "d" in mods or "cd" in mods:
        roles += ["gh", "gv"] if "g16" in mods else ["dxdh", "dydh", "dxdv", "dydv"]
    roles += ["x", "y"]
    if "l" in mods or "cl" in mods:
        roles.append("lod")
    return roles


_ROLE_VALUES = {"offset": "offset", "bias": "0.75f", "zcompare": "c[i].z", "dxdh": "0.01f", "dydh": "-0.02f",
                "dxdv": "0.03f", "dydv": "0.015f", "gh": "gh", "gv": "gv", "x": "c[i].x", "y": "c[i].y",
                "lod": "0.5f"}


def _every_sample_source():
    from core.isa.opcodes_gfx1030 import TABLES
    names = sorted(row["name"] for row in TABLES["MIMG"].values()
                   if row["name"].startswith(("image_sample", "image_gather4")))
    body, width = [], 0
    for name in names:
        roles = _address_roles(name)
        gather = name.startswith("image_gather4")
        sampler = "less" if "_c" in name.replace("_cd", "_xd").replace("_cl", "_xl") else "plain"
        addresses = ", ".join(f"%{i + 1}" for i in range(len(roles)))
        text = (f"{name} %0, [{addresses}], %{len(roles) + 1}, %{len(roles) + 2} dmask:0x1 "
                f"dim:SQ_RSRC_IMG_2D\\n s_waitcnt vmcnt(0)")
        inputs = ", ".join(f'"v"({_ROLE_VALUES[r]})' for r in roles)
        result = "g" if gather else "r"
        body.append(f'  __asm__ volatile("{text}" : "=v"({result}) : {inputs}, "s"(t), "s"({sampler}));')
        body.append(f"  vstore4(g, 0, o + {width});" if gather else f"  o[{width}] = r;")
        width += 4 if gather else 1
    source = f"""#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void every_sample(read_only image2d_t img, sampler_t s, global const float4 *c, global float *out) {{
  size_t i = get_global_id(0);
  global float *o = out + {width} * i;
  uint8 v8 = *(__constant uint8 *)__builtin_astype(img, __constant uint *);
  uint8 t = (uint8)(__builtin_amdgcn_readfirstlane(v8.s0), __builtin_amdgcn_readfirstlane(v8.s1),
                    __builtin_amdgcn_readfirstlane(v8.s2), __builtin_amdgcn_readfirstlane(v8.s3),
                    __builtin_amdgcn_readfirstlane(v8.s4), __builtin_amdgcn_readfirstlane(v8.s5),
                    __builtin_amdgcn_readfirstlane(v8.s6), __builtin_amdgcn_readfirstlane(v8.s7));
  uint4 w = *(__constant uint4 *)__builtin_astype(s, __constant uint *);
  uint4 plain = (uint4)(__builtin_amdgcn_readfirstlane(w.s0), __builtin_amdgcn_readfirstlane(w.s1),
                        __builtin_amdgcn_readfirstlane(w.s2), __builtin_amdgcn_readfirstlane(w.s3));
  uint4 less = plain;
  less.x |= 1u << 12;                     // DEPTH_COMPARE_FUNC = LESS: reference < texel
  uint offset = 1u | (0x3Fu << 8);        // +1 texel along x, -1 along y
  uint gh = as_ushort((half)0.01f) | (uint)as_ushort((half)-0.02f) << 16;
  uint gv = as_ushort((half)0.03f) | (uint)as_ushort((half)0.015f) << 16;
  float r;
  float4 g;
{chr(10).join(body)}
}}
"""
    return source, names, width


EVERY_SAMPLE, _EVERY_NAMES, _EVERY_WIDTH = _every_sample_source()


def image_every_sample(rng, wave):
    image = pixels(rng, (1, 6, 8), Order.R, Type.FLOAT)
    texels = ref.colors(image, Order.R, Type.FLOAT)
    xy = coordinates(rng, (8, 6), True)
    refs = rng.uniform(-2, 2, K).astype(np.float32)
    c = np.concatenate([xy, refs[:, None], np.zeros((K, 1), np.float32)], axis=1)
    columns = []
    for name in _EVERY_NAMES:
        roles = _address_roles(name)
        offsets = (1, -1) if "offset" in roles else (0, 0)
        if name.startswith("image_gather4"):
            values = ref.gather(texels, xy, 0, normalized=True, address=Address.CLAMP_TO_EDGE, order=Order.R,
                                adjusted=False, offsets=offsets)
        else:
            values = ref.sample(texels, xy, normalized=True, address=Address.CLAMP_TO_EDGE, linear=False,
                                order=Order.R, adjusted=False, offsets=offsets)[:, :1]
        if "zcompare" in roles:
            values = (refs[:, None] < values).astype(np.float32)
        columns.append(values)
    want = np.concatenate(columns, axis=1).astype(np.float32)
    assert want.shape[1] == _EVERY_WIDTH
    args = [Image(Geometry.GEOMETRY_2D, Order.R, Type.FLOAT, image),
            Sampler(Coordinates.NORMALIZED, Filter.NEAREST, Address.CLAMP_TO_EDGE), c,
            np.zeros(_EVERY_WIDTH * K, np.float32)]
    return args, {3: want.ravel()}


case(EVERY_SAMPLE, K, K, opts=("-O2",), kernel="every_sample", targets=ASM_TARGETS)(image_every_sample)
