"""Images and samplers (HSA_EXTENSION_IMAGES): validation, layout, descriptors, host-side copies.

Holds these invariants:
- sizes, limits and errors follow ROCr's image library for gfx1030, check for check:
  format (FORMAT_UNSUPPORTED), dimensions against the profile's gpu.images limits
  (SIZE_UNSUPPORTED), the linear layout (a pitch the address library rejects is
  HSA_STATUS_ERROR, one it lays out differently is PITCH_UNSUPPORTED), data alignment;
- image data is always laid out linearly: rows of pitch_elements elements, padded to
  256 bytes, slices of one row pitch times the height. ROCr tiles opaque images of
  base-profile GPUs; SoftGPU lays them out as ROCr does for full-profile agents and
  1DB images, so an opaque image's size is its linear size;
- an image or sampler handle is the device address of its descriptor object in the
  arena (core.images.descriptors), as ROCr's is; a destroyed one never resolves while
  its slot is unused, and freed slots are reused last (first in, first out);
- every host-side operation (import, export, copy, clear) checks its region against
  the image extent and re-checks that the image data is still live HSA or locked
  memory, so a freed backing store is INVALID_ARGUMENT, never a crash;
- kernels reach images through the descriptors alone (core.isa.interp.images reads the
  T# and S# as gfx10 does): nothing here is consulted while a kernel runs.
"""
import collections
import threading

import numpy as np

from core.images import descriptors as image_descriptors, formats as image_formats
from core.errors import (HsaError, ImageFormatUnsupported, ImagePitchUnsupported, ImageSizeUnsupported,
                         InvalidArgument)
from core.memory import host
from core.hsa_abi import (HsaExtImageChannelOrder as Order, HsaExtImageChannelType as Type,
                          HsaExtImageGeometry as Geometry)

BASE_ALIGNMENT = 256          # gfx10 linear surfaces: base and row alignment in bytes
SLOT_BYTES = 64               # one descriptor object per slot, 16-byte aligned as ROCr's
PAGE = 4096
# How many of x, y, z a geometry's coordinates use (array layers included).
_DIMENSIONS = {Geometry.GEOMETRY_1D: 1, Geometry.GEOMETRY_1DB: 1, Geometry.GEOMETRY_2D: 2,
               Geometry.GEOMETRY_1DA: 2, Geometry.GEOMETRY_2DDEPTH: 2, Geometry.GEOMETRY_3D: 3,
               Geometry.GEOMETRY_2DA: 3, Geometry.GEOMETRY_2DADEPTH: 3}
_ONE_D = (Geometry.GEOMETRY_1D, Geometry.GEOMETRY_1DA, Geometry.GEOMETRY_1DB)

Descriptor = collections.namedtuple("Descriptor", "geometry width height depth array_size channel_type channel_order")
Layout = collections.namedtuple("Layout", "pitch_elements row_pitch slice_pitch size alignment")


def valid_geometry(geometry):
    return geometry in _DIMENSIONS


def max_dimensions(agent, geometry):
    """(width, height, depth, array layers) the agent supports for `geometry` (ROCr's
    per-geometry table, with the profile's gpu.images numbers; zeros for a CPU)."""
    if not agent.is_gpu:
        return (0, 0, 0, 0)
    limits = agent.spec["images"]
    two_d, three_d, layers = limits["max_2d"], limits["max_3d"], limits["max_array_layers"]
    return {Geometry.GEOMETRY_1D: (limits["max_1d"], 1, 1, 1),
            Geometry.GEOMETRY_1DB: (limits["max_1d_buffer"], 1, 1, 1),
            Geometry.GEOMETRY_1DA: (limits["max_1d"], 1, 1, layers),
            Geometry.GEOMETRY_2D: (two_d[0], two_d[1], 1, 1),
            Geometry.GEOMETRY_2DDEPTH: (two_d[0], two_d[1], 1, 1),
            Geometry.GEOMETRY_2DA: (two_d[0], two_d[1], 1, layers),
            Geometry.GEOMETRY_2DADEPTH: (two_d[0], two_d[1], 1, layers),
            Geometry.GEOMETRY_3D: (three_d[0], three_d[1], three_d[2], 1)}[geometry]


def capability(agent, order, channel_type, geometry):
    """The capability mask ROCr answers: the format table's on a GPU, 0 on a CPU."""
    if not agent.is_gpu:
        return 0
    return image_formats.image_property(order, channel_type, geometry).capability


def extent(desc):
    """(x, y, z) extent of the image in its own coordinates (array layers count as y or z)."""
    w, h, d, layers = (max(v, 1) for v in (desc.width, desc.height, desc.depth, desc.array_size))
    return {Geometry.GEOMETRY_1D: (w, 1, 1), Geometry.GEOMETRY_1DB: (w, 1, 1),
            Geometry.GEOMETRY_1DA: (w, layers, 1), Geometry.GEOMETRY_2D: (w, h, 1),
            Geometry.GEOMETRY_2DDEPTH: (w, h, 1), Geometry.GEOMETRY_2DA: (w, h, layers),
            Geometry.GEOMETRY_2DADEPTH: (w, h, layers), Geometry.GEOMETRY_3D: (w, h, d)}[desc.geometry]


def data_info(agent, desc, linear, row_pitch=0, slice_pitch=0):
    """ROCr's GetImageSizeAndAlignment: the Layout of `desc`, or its error."""
    prop = image_formats.image_property(desc.channel_order, desc.channel_type, desc.geometry)
    if not agent.is_gpu or prop.capability == 0:
        raise ImageFormatUnsupported(f"format (order {desc.channel_order}, type {desc.channel_type}) "
                                     f"is not supported on geometry {desc.geometry} of this agent")
    limits = max_dimensions(agent, desc.geometry)
    if any(v > limit for v, limit in zip((desc.width, desc.height, desc.depth, desc.array_size), limits)):
        raise ImageSizeUnsupported(f"{desc.width}x{desc.height}x{desc.depth}[{desc.array_size}] exceeds "
                                   f"{limits} for geometry {desc.geometry}")
    return layout(desc, prop.element_size, linear, row_pitch, slice_pitch)


def layout(desc, element_size, linear, row_pitch=0, slice_pitch=0):
    """gfx10 linear layout (the address library's rules for gfx1030, custom pitch included)."""
    pitch_align = BASE_ALIGNMENT // element_size
    width = max(desc.width, 1)
    pitch = -(-width // pitch_align) * pitch_align
    custom = row_pitch // element_size
    if custom:
        if custom % pitch_align or custom < pitch:
            # The address library rejects the surface; ROCr answers its generic error.
            raise HsaError(f"row pitch {row_pitch} is not a multiple of {BASE_ALIGNMENT} bytes "
                           f"at least as wide as {width} elements")
        pitch = custom
    height = 1 if desc.geometry in _ONE_D else max(desc.height, 1)
    slices = max(desc.array_size, desc.depth, 1)
    row = pitch * element_size
    slice_bytes = row * height
    if linear and desc.geometry != Geometry.GEOMETRY_1DB and (
            (row_pitch and row != row_pitch) or (slice_pitch and slice_bytes != slice_pitch)):
        raise ImagePitchUnsupported(f"pitches {row_pitch}/{slice_pitch} differ from the layout's {row}/{slice_bytes}")
    return Layout(pitch, row, slice_bytes, slice_bytes * slices, BASE_ALIGNMENT)


def imported_layout(desc, element_size, words):
    """The layout of image data described by foreign metadata (hsa_amd_image_create):
    gfx1030 keeps pitch-1 of 1D and 2D images in dword 4; other geometries use the
    default linear pitch. SoftGPU addresses the data linearly whatever swizzle mode the
    metadata names."""
    pitch_align = BASE_ALIGNMENT // element_size
    width = max(desc.width, 1)
    pitch = -(-width // pitch_align) * pitch_align
    if desc.geometry in (Geometry.GEOMETRY_1D, Geometry.GEOMETRY_2D, Geometry.GEOMETRY_2DDEPTH):
        pitch = max((words[4] & 0x3FFF) + 1, width)
    height = 1 if desc.geometry in _ONE_D else max(desc.height, 1)
    row = pitch * element_size
    return Layout(pitch, row, row * height, row * height * max(desc.array_size, desc.depth, 1), BASE_ALIGNMENT)


def default_pitches(desc, element_size, row_pitch, slice_pitch):
    """ROCr's enforceDefaultPitch for the *_with_layout calls: unpadded rows, whole slices."""
    if row_pitch == 0:
        row_pitch = desc.width * element_size
    if slice_pitch == 0 and (desc.depth or desc.array_size):
        if desc.geometry in (Geometry.GEOMETRY_3D, Geometry.GEOMETRY_2DA, Geometry.GEOMETRY_2DADEPTH):
            slice_pitch = row_pitch * desc.height
        elif desc.geometry == Geometry.GEOMETRY_1DA:
            slice_pitch = row_pitch
    return row_pitch, slice_pitch


class Image:
    __slots__ = ("agent", "desc", "prop", "data", "permission", "pitch_elements", "row_pitch",
                 "slice_pitch", "size", "handle")

    def __init__(self, agent, desc, prop, data, permission, layout_):
        self.agent = agent
        self.desc = desc
        self.prop = prop
        self.data = data
        self.permission = permission
        self.pitch_elements = layout_.pitch_elements
        self.row_pitch = layout_.row_pitch
        self.slice_pitch = layout_.slice_pitch
        self.size = layout_.size
        self.handle = None


class Sampler:
    __slots__ = ("agent", "coordinate_mode", "filter_mode", "address_modes", "handle")

    def __init__(self, agent, coordinate_mode, filter_mode, address_modes):
        self.agent = agent
        self.coordinate_mode = coordinate_mode
        self.filter_mode = filter_mode
        self.address_modes = address_modes      # (x, y, z)
        self.handle = None


class Images:
    """The session's images and samplers, addressed by their descriptors' device addresses."""

    def __init__(self, session):
        self.session = session
        self._images = {}
        self._samplers = {}
        self._pages = []
        self._free_slots = collections.deque()
        self._lock = threading.Lock()

    def __len__(self):
        """Live images and samplers."""
        return len(self._images) + len(self._samplers)

    def close(self):
        for page in self._pages:
            self.session.arena.free(page)
        self._pages.clear()
        self._images.clear()
        self._samplers.clear()

    # -- descriptor slots ----------------------------------------------------------------

    def _take_slot(self):
        if not self._free_slots:
            page = self.session.arena.allocate(PAGE, owner=self, info={"images": "descriptors"}).address
            self._pages.append(page)
            self._free_slots.extend(range(page, page + PAGE, SLOT_BYTES))
        return self._free_slots.popleft()

    def _write(self, address, words):
        self.session.arena.view(address, SLOT_BYTES).view(np.uint32)[:] = 0
        self.session.arena.view(address, 4 * len(words)).view(np.uint32)[:] = np.array(words, dtype=np.uint32)

    def _release(self, address):
        self.session.arena.view(address, SLOT_BYTES)[:] = 0
        self._free_slots.append(address)

    # -- images --------------------------------------------------------------------------

    def create(self, agent, desc, data, permission, layout_, layout_words=None):
        """A new image over `data`; `layout_words` are foreign descriptor dwords to adopt
        (hsa_amd_image_create), else the descriptor is built from the layout."""
        prop = image_formats.image_property(desc.channel_order, desc.channel_type, desc.geometry)
        image = Image(agent, desc, prop, data, permission, layout_)
        self._backing(image)
        words = (image_descriptors.image_words(image) if layout_words is None
                 else image_descriptors.imported_words(image, layout_words))
        with self._lock:
            image.handle = self._take_slot()
            self._write(image.handle, words)
            self._images[image.handle] = image
        return image.handle

    def image(self, handle):
        image = self._images.get(int(handle))
        if image is None:
            raise InvalidArgument(f"{int(handle):#x} is not a live image")
        return image

    def destroy(self, handle):
        with self._lock:
            if self._images.pop(int(handle), None) is None:
                raise InvalidArgument(f"{int(handle):#x} is not a live image")
            self._release(int(handle))

    # -- samplers ------------------------------------------------------------------------

    def create_sampler(self, agent, coordinate_mode, filter_mode, address_modes):
        sampler = Sampler(agent, coordinate_mode, filter_mode, tuple(address_modes))
        with self._lock:
            sampler.handle = self._take_slot()
            self._write(sampler.handle, image_descriptors.sampler_words(coordinate_mode, filter_mode, address_modes))
            self._samplers[sampler.handle] = sampler
        return sampler.handle

    def destroy_sampler(self, handle):
        with self._lock:
            if self._samplers.pop(int(handle), None) is None:
                raise InvalidArgument(f"{int(handle):#x} is not a live sampler")
            self._release(int(handle))

    # -- data ----------------------------------------------------------------------------

    def _backing(self, image):
        """A uint8 view of the image's data; InvalidArgument unless it is live HSA or locked memory."""
        memory = self.session.memory
        memory.require_accessible(image.data, image.size, "image data")
        address = memory.host_address(image.data)
        if self.session.arena.contains(address, image.size):
            return self.session.arena.view(address, image.size)
        return host.view(address, image.size)

    def _region(self, image, offset, size):
        """A (z, y, x*element) strided view of `image`'s data for one checked region."""
        es = image.prop.element_size
        start = offset[0] * es + offset[1] * image.row_pitch + offset[2] * image.slice_pitch
        base = self._backing(image)[start:]
        return np.lib.stride_tricks.as_strided(base, (size[2], size[1], size[0] * es),
                                               (image.slice_pitch, image.row_pitch, 1))

    def import_(self, image, source, row_pitch, slice_pitch, offset, size):
        if 0 in size:
            return
        _, buffer = self._buffer(image, source, row_pitch, slice_pitch, size)
        self._region(image, offset, size)[...] = buffer

    def export(self, image, destination, row_pitch, slice_pitch, offset, size):
        if 0 in size:
            return
        # Read, fill the region, write back: bytes between rows of the buffer stay as they were.
        staging, buffer = self._buffer(image, destination, row_pitch, slice_pitch, size)
        buffer[...] = self._region(image, offset, size)
        self.session.memory.copy(destination, staging.ctypes.data, staging.size)

    def _buffer(self, image, address, row_pitch, slice_pitch, size):
        """The staging copy of the caller's buffer a region of `size` elements spans, and that
        copy seen as the region's (z, y, x*element) array under the buffer's pitches."""
        es = image.prop.element_size
        rows, slices = buffer_pitches(image.desc.geometry, es, size, row_pitch, slice_pitch)
        span = ((size[2] - 1) * slices + (size[1] - 1) * rows + size[0]) * es
        staging = self._staging(address, span)
        return staging, _strided(staging, size, es, rows, slices)

    def _staging(self, address, span):
        """A copy of the caller's buffer [address, address+span). Its two ends are read
        first, so a garbage pitch fails as INVALID_ARGUMENT before anything is allocated."""
        probe = np.empty(1, dtype=np.uint8)
        for end in (address, address + span - 1):
            self.session.memory.copy(probe.ctypes.data, end, 1)
        staging = np.empty(span, dtype=np.uint8)
        # Touch every page first: the safe copy (process_vm_writev) faults fresh pages in
        # one at a time through the kernel, 10x slower than a store (16 MiB: 150 -> 12 ms).
        staging[::PAGE] = 0
        self.session.memory.copy(staging.ctypes.data, address, span)
        return staging

    def copy(self, source, destination, source_offset, destination_offset, size):
        if 0 in size:
            return
        pixels = np.array(self._region(source, source_offset, size))
        src_order, dst_order = source.desc.channel_order, destination.desc.channel_order
        if src_order != dst_order:
            # The one conversion ROCr's copy performs: sRGB <-> linear RGBA, 8-bit unorm.
            channels = pixels.reshape(size[2], size[1], size[0], 4)
            convert = image_formats.srgb_to_linear if image_formats.is_srgb(src_order) else image_formats.linear_to_srgb
            rgb = convert(channels[..., :3] / 255.0)
            channels[..., :3] = np.rint(np.clip(rgb, 0.0, 1.0) * 255.0).astype(np.uint8)
        self._region(destination, destination_offset, size)[...] = pixels

    def clear(self, image, words, offset, size):
        if 0 in size:
            return
        pixel = np.frombuffer(image_formats.encode_pixel(image.desc.channel_order, image.desc.channel_type, words),
                              dtype=np.uint8)
        # One row of pixels, broadcast over rows: a contiguous inner copy, not 4-byte ones.
        self._region(image, offset, size)[...] = np.tile(pixel, size[0])


def copy_compatible(source, destination):
    """ROCr copies between equal formats, and between sRGBA and RGBA of 8-bit unorm."""
    a, b = source.desc, destination.desc
    if (a.channel_order, a.channel_type) == (b.channel_order, b.channel_type):
        return True
    return (a.channel_type == b.channel_type == Type.UNORM_INT8
            and {a.channel_order, b.channel_order} == {Order.SRGBA, Order.RGBA})


def buffer_pitches(geometry, element_size, size, row_pitch, slice_pitch):
    """ROCr's CalcBufferRowSlicePitchesInPixel: (row, slice) pitches of a linear buffer in
    elements; a pitch of 0 (or too small) means tightly packed."""
    rows = max(size[0], row_pitch // element_size)
    slices = rows if geometry == Geometry.GEOMETRY_1DA else max(rows * size[1], slice_pitch // element_size)
    return rows, slices


def check_region(size, *placements):
    """Normalize a region's range and bounds-check it in every (image, offset) placement.

    A range of 0 along an axis that some image's geometry does not have counts as 1
    (clients write either); the region must lie inside each image's extent.
    """
    dims = min(_DIMENSIONS[image.desc.geometry] for image, _ in placements)
    size = tuple(1 if (axis >= dims and v == 0) else v for axis, v in enumerate(size))
    for image, offset in placements:
        for axis, (start, count, limit) in enumerate(zip(offset, size, extent(image.desc))):
            if start + count > limit:
                raise InvalidArgument(f"region {offset}+{size} leaves the image extent "
                                      f"{extent(image.desc)} along axis {'xyz'[axis]}")
    return size


def _strided(staging, size, element_size, rows, slices):
    return np.lib.stride_tricks.as_strided(staging, (size[2], size[1], size[0] * element_size),
                                           (slices * element_size, rows * element_size, 1))
