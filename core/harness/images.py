"""Images and samplers made the way a client makes them, through the images extension's
exports (hsa_ext_image_create / _import / _export, hsa_amd_image_create, hsa_ext_sampler_create),
for programs that read their bytes or hand them to kernels (core.harness.launch takes `Image`
and `Sampler` arguments).

Holds these invariants:
- an Image's pixels are its elements exactly as hsa_ext_image_import reads a tightly packed
  buffer: shape (z, y, x[, components]) in the extension's region axes (a 1D array's layer is
  y, a 2D array's is z), in the dtype of one component (packed formats: of one element);
- every object `Objects` creates (image data, images, samplers) is released by its
  `release()`, also when the kernel using them faulted.
"""
import ctypes
from dataclasses import dataclass

import numpy as np

from core.hsa_abi import HsaExtImageGeometry as Geometry
from core.location import library_path

READ_WRITE = 3          # HSA_ACCESS_PERMISSION_RW
AMD_LAYOUT_VERSION = 1
AMD_VENDOR_ID = 0x1002


class ImageDescriptor(ctypes.Structure):
    _fields_ = [("geometry", ctypes.c_int), ("width", ctypes.c_size_t), ("height", ctypes.c_size_t),
                ("depth", ctypes.c_size_t), ("array_size", ctypes.c_size_t),
                ("channel_type", ctypes.c_uint32), ("channel_order", ctypes.c_uint32)]


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32), ("z", ctypes.c_uint32)]


class Region(ctypes.Structure):
    _fields_ = [("offset", Dim3), ("range", Dim3)]


class DataInfo(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("alignment", ctypes.c_size_t)]


class SamplerDescriptor(ctypes.Structure):
    _fields_ = [("coordinate_mode", ctypes.c_int), ("filter_mode", ctypes.c_int),
                ("address_mode", ctypes.c_int)]


class SamplerDescriptorV2(ctypes.Structure):
    """hsa_ext_sampler_descriptor_v2_t (newest hsa_ext_image.h): an address mode per axis."""
    _fields_ = [("coordinate_mode", ctypes.c_int), ("filter_mode", ctypes.c_int),
                ("address_modes", ctypes.c_int * 3)]


@dataclass
class Image:
    """An image argument: its geometry, format and initial pixels (see the module docstring).
    `descriptor_words(words)`, when given, turns the 8 descriptor dwords hsa_ext_image_create
    wrote into the metadata of an hsa_amd_image_create image (mip levels, for one), with
    `data_bytes` of backing memory and `raw` bytes written at its start instead of pixels."""
    geometry: int
    order: int
    channel_type: int
    pixels: np.ndarray
    descriptor_words: object = None
    data_bytes: int = 0
    raw: np.ndarray = None

    @property
    def initial(self):
        """What `Objects.read` returns for the image before anything wrote it."""
        return self.pixels if self.raw is None else self.raw

    @property
    def size(self):
        """(x, y, z) extent in the extension's region axes."""
        z, y, x = self.pixels.shape[:3]
        return x, y, z

    def descriptor(self):
        x, y, z = self.size
        width, height, depth, layers = x, 0, 0, 0
        if self.geometry in (Geometry.GEOMETRY_2D, Geometry.GEOMETRY_2DDEPTH, Geometry.GEOMETRY_3D,
                             Geometry.GEOMETRY_2DA, Geometry.GEOMETRY_2DADEPTH):
            height = y
        if self.geometry == Geometry.GEOMETRY_3D:
            depth = z
        if self.geometry == Geometry.GEOMETRY_1DA:
            layers = y
        if self.geometry in (Geometry.GEOMETRY_2DA, Geometry.GEOMETRY_2DADEPTH):
            layers = z
        return ImageDescriptor(self.geometry, width, height, depth, layers, self.channel_type, self.order)


@dataclass(frozen=True)
class Sampler:
    """A sampler argument: hsa_ext_sampler_descriptor_t's three modes, or with an (x, y, z)
    tuple of address modes, hsa_ext_sampler_descriptor_v2_t's (hsa_ext_sampler_create_v2)."""
    coordinate_mode: int
    filter_mode: int
    address_mode: object


def _library():
    lib = ctypes.CDLL(library_path())
    for name in ("hsa_ext_image_create", "hsa_ext_image_import", "hsa_ext_image_export",
                 "hsa_ext_image_data_get_info", "hsa_ext_image_destroy", "hsa_ext_sampler_create",
                 "hsa_ext_sampler_destroy", "hsa_amd_image_create", "hsa_ext_sampler_create_v2"):
        getattr(lib, name).restype = ctypes.c_uint32
    return lib


class Objects:
    """Images and samplers of one program or launch, created through the exports on `agent`
    (the kernel's GPU; default the first GPU), in its memory."""

    def __init__(self, session, agent=None):
        self.session = session
        self.lib = _library()
        self.agent = agent or session.agents.gpus[0]
        self.gpu = ctypes.c_uint64(self.agent.handle)
        self.pool = session.memory.pools_of(self.agent)[0]
        self.allocations, self.images, self.samplers = [], [], []
        self.data = {}              # image handle -> its data address

    def allocate(self, size):
        address = self.session.memory.allocate(self.pool, size, restricted=True)
        self.allocations.append(address)
        return address

    def image(self, image):
        """The handle (int) of a new image holding `image`'s pixels."""
        desc = image.descriptor()
        info = DataInfo()
        status = self.lib.hsa_ext_image_data_get_info(self.gpu, ctypes.byref(desc), READ_WRITE, ctypes.byref(info))
        assert status == 0, f"hsa_ext_image_data_get_info: {status:#x}"
        data = self.allocate(max(info.size, image.data_bytes))
        handle = ctypes.c_uint64()
        status = self.lib.hsa_ext_image_create(self.gpu, ctypes.byref(desc), ctypes.c_void_p(data),
                                               READ_WRITE, ctypes.byref(handle))
        assert status == 0, f"hsa_ext_image_create: {status:#x}"
        self.images.append(handle.value)
        if image.descriptor_words is not None:
            handle = self._imported(image, desc, data, handle.value)
        self.data[handle.value] = data
        if image.raw is not None:
            self.session.arena.view(data, image.raw.nbytes)[:] = image.raw.view(np.uint8).reshape(-1)
        else:
            pixels = np.ascontiguousarray(image.pixels)
            region = Region(Dim3(0, 0, 0), Dim3(*image.size))
            status = self.lib.hsa_ext_image_import(self.gpu, ctypes.c_void_p(pixels.ctypes.data), 0, 0,
                                                   handle, ctypes.byref(region))
            assert status == 0, f"hsa_ext_image_import: {status:#x}"
        return handle.value

    def _imported(self, image, desc, data, template):
        """hsa_amd_image_create over the same data, with metadata made from `template`'s T#."""
        words = self.session.arena.view(template, 32).view(np.uint32).tolist()
        chip = self.agent.spec["chip_id"]
        layout = (ctypes.c_uint32 * 10)(AMD_LAYOUT_VERSION, AMD_VENDOR_ID << 16 | chip,
                                        *image.descriptor_words(words))
        handle = ctypes.c_uint64()
        status = self.lib.hsa_amd_image_create(self.gpu, ctypes.byref(desc), layout, ctypes.c_void_p(data),
                                               READ_WRITE, ctypes.byref(handle))
        assert status == 0, f"hsa_amd_image_create: {status:#x}"
        self.images.append(handle.value)
        return handle

    def read(self, handle, image):
        """The image's pixels now (same shape and dtype as `image.pixels`), or for an image
        made from `raw` bytes, those bytes now (same dtype as `image.raw`)."""
        if image.raw is not None:
            return self.session.arena.view(self.data[handle], image.raw.nbytes).copy().view(image.raw.dtype)
        out = np.zeros_like(image.pixels)
        region = Region(Dim3(0, 0, 0), Dim3(*image.size))
        status = self.lib.hsa_ext_image_export(self.gpu, ctypes.c_uint64(handle), ctypes.c_void_p(out.ctypes.data),
                                               0, 0, ctypes.byref(region))
        assert status == 0, f"hsa_ext_image_export: {status:#x}"
        return out

    def sampler(self, sampler):
        handle = ctypes.c_uint64()
        if isinstance(sampler.address_mode, tuple):
            desc = SamplerDescriptorV2(sampler.coordinate_mode, sampler.filter_mode,
                                       (ctypes.c_int * 3)(*sampler.address_mode))
            status = self.lib.hsa_ext_sampler_create_v2(self.gpu, ctypes.byref(desc), ctypes.byref(handle))
        else:
            desc = SamplerDescriptor(sampler.coordinate_mode, sampler.filter_mode, sampler.address_mode)
            status = self.lib.hsa_ext_sampler_create(self.gpu, ctypes.byref(desc), ctypes.byref(handle))
        assert status == 0, f"sampler creation: {status:#x}"
        self.samplers.append(handle.value)
        return handle.value

    def release(self):
        for handle in reversed(self.images):
            self.lib.hsa_ext_image_destroy(self.gpu, ctypes.c_uint64(handle))
        for handle in self.samplers:
            self.lib.hsa_ext_sampler_destroy(self.gpu, ctypes.c_uint64(handle))
        for address in self.allocations:
            self.session.memory.free(address)
        self.images, self.samplers, self.allocations, self.data = [], [], [], {}
