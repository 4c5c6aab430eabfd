"""Images extension: capabilities, sizes, descriptors and host-side data paths.

C programs (tests/c/image_*.c) cover the API as a client calls it, every error path
included; the in-process tests here check pixel values against numpy, where the
numbers read better than in C.
"""
import ctypes

import numpy as np
import pytest

from core.images import formats as image_formats
from softgpu_shim.hsa_abi import (ExtStatus, HsaExtImageChannelOrder as Order, HsaExtImageChannelType as Type,
                                  HsaExtImageGeometry as Geometry, Status)
from tests.support import cprog
from tests.support.images import DataInfo, Dim3, ImageDescriptor as Descriptor, Region
from tests.support.paths import LIBRARY


def test_capabilities_sizes_and_errors():
    cprog.check("image_info.c")


def test_create_descriptors_and_data_paths():
    cprog.check("image_data.c")


def test_samplers_amd_create_and_bad_handles():
    cprog.check("image_handles.c")


# -- in-process, through the exports with ctypes --------------------------------------------

class Runtime:
    """The library loaded in-process, with the GPU agent and its device pool."""

    def __init__(self):
        self.lib = ctypes.CDLL(LIBRARY)
        assert self.lib.hsa_init() == 0
        from core import runtime
        self.session = runtime.require()
        self.gpu = ctypes.c_uint64(self.session.agents.gpus[0].handle)
        self.device_pool = self.session.memory.pools_of(self.session.agents.gpus[0])[0]
        self.allocations = []

    def allocate(self, size):
        address = self.session.memory.allocate(self.device_pool, size, restricted=True)
        self.allocations.append(address)
        return address

    def image(self, geometry, order, channel_type, width, height=0, depth=0, layers=0):
        desc = Descriptor(geometry, width, height, depth, layers, channel_type, order)
        info = DataInfo()
        assert self.lib.hsa_ext_image_data_get_info(self.gpu, ctypes.byref(desc), 3, ctypes.byref(info)) == 0
        data = self.allocate(info.size)
        handle = ctypes.c_uint64()
        assert self.lib.hsa_ext_image_create(self.gpu, ctypes.byref(desc), ctypes.c_void_p(data), 3,
                                             ctypes.byref(handle)) == 0
        return handle, self.session.images.image(handle.value)

    def import_(self, image, array, size, offset=(0, 0, 0)):
        region = Region(Dim3(*offset), Dim3(*size))
        pixels = np.ascontiguousarray(array)
        return self.lib.hsa_ext_image_import(self.gpu, ctypes.c_void_p(pixels.ctypes.data), 0, 0, image,
                                             ctypes.byref(region))

    def export(self, image, size, dtype=np.uint8, offset=(0, 0, 0)):
        """The region's bytes as a (z, y, x * element) array, viewed as `dtype`."""
        element = self.session.images.image(image.value).prop.element_size
        out = np.zeros((size[2], size[1], size[0] * element), dtype=np.uint8)
        region = Region(Dim3(*offset), Dim3(*size))
        assert self.lib.hsa_ext_image_export(self.gpu, image, ctypes.c_void_p(out.ctypes.data), 0, 0,
                                             ctypes.byref(region)) == 0
        return out.view(dtype)

    def clear(self, image, words, offset, size):
        data = (ctypes.c_uint32 * 4)(*words)
        region = Region(Dim3(*offset), Dim3(*size))
        return self.lib.hsa_ext_image_clear(self.gpu, image, data, ctypes.byref(region))

    def close(self):
        for address in self.allocations:
            self.session.memory.free(address)
        assert self.lib.hsa_shut_down() == 0


@pytest.fixture
def rt():
    runtime = Runtime()
    yield runtime
    runtime.close()


def _float_words(*values):
    return np.array(values, dtype=np.float32).view(np.uint32).tolist()


def test_import_export_round_trip_3d_with_offsets(rt):
    handle, image = rt.image(Geometry.GEOMETRY_3D, Order.RG, Type.UNSIGNED_INT16, 37, 9, 5)
    pattern = np.arange(4 * 7 * 20 * 2, dtype=np.uint16).reshape(4, 7, 20 * 2)
    assert rt.import_(handle, pattern, (20, 7, 4), offset=(3, 1, 1)) == 0
    back = rt.export(handle, (20, 7, 4), np.uint16, offset=(3, 1, 1))
    np.testing.assert_array_equal(back, pattern)
    # The data sits in the linear layout: 256-byte rows (64 RG16 elements), slices of 9 rows.
    assert (image.row_pitch, image.slice_pitch) == (256, 256 * 9)
    raw = rt.session.arena.view(image.data, image.size).view(np.uint16)
    first = (1 * image.slice_pitch + 1 * image.row_pitch + 3 * 4) // 2
    np.testing.assert_array_equal(raw[first:first + 40], pattern[0, 0])


def test_clear_converts_like_an_image_store(rt):
    cases = [
        (Order.RGBA, Type.UNORM_INT8, _float_words(1.0, 0.5, -3.0, 0.25), np.array([255, 128, 0, 64], np.uint8)),
        (Order.BGRA, Type.UNORM_INT8, _float_words(1.0, 0.5, 0.0, 0.25), np.array([0, 128, 255, 64], np.uint8)),
        (Order.ARGB, Type.SNORM_INT8, _float_words(-1.0, 0.5, 2.0, 0.0), np.array([0, -127, 64, 127], np.int8)),
        (Order.R, Type.SIGNED_INT16, np.array([-40000, 0, 0, 0], np.int32).view(np.uint32).tolist(),
         np.array([-32768], np.int16)),
        (Order.RG, Type.UNSIGNED_INT8, [300, 7, 0, 0], np.array([255, 7], np.uint8)),
        (Order.RA, Type.HALF_FLOAT, _float_words(1.5, 9.0, 9.0, -2.0), np.array([1.5, -2.0], np.float16)),
        (Order.A, Type.FLOAT, _float_words(1.0, 2.0, 3.0, 4.5), np.array([4.5], np.float32)),
        (Order.LUMINANCE, Type.UNORM_INT16, _float_words(0.5, 0.0, 0.0, 0.0), np.array([32768], np.uint16)),
    ]
    for order, channel_type, words, expected in cases:
        handle, image = rt.image(Geometry.GEOMETRY_2D, order, channel_type, 8, 4)
        assert rt.clear(handle, words, (2, 1, 0), (3, 2, 1)) == 0
        got = rt.export(handle, (8, 4, 1))[0]
        element = expected.view(np.uint8)
        assert element.size == image.prop.element_size
        for y in range(4):
            for x in range(8):
                cell = got[y, x * element.size:(x + 1) * element.size]
                want = element if (2 <= x < 5 and 1 <= y < 3) else np.zeros_like(element)
                np.testing.assert_array_equal(cell, want, err_msg=f"{order.name} {channel_type.name} at {x},{y}")


def test_clear_packed_formats_put_blue_in_the_low_bits(rt):
    for channel_type, expected in ((Type.UNORM_SHORT_565, (31 << 11) | (32 << 5) | 0),
                                   (Type.UNORM_SHORT_555, (31 << 10) | (16 << 5) | 0),
                                   (Type.UNORM_SHORT_101010, (1023 << 20) | (512 << 10) | 0)):
        handle, image = rt.image(Geometry.GEOMETRY_1D, Order.RGB, channel_type, 4)
        assert rt.clear(handle, _float_words(1.0, 0.5, 0.0, 1.0), (0, 0, 0), (4, 0, 0)) == 0
        dtype = np.uint32 if image.prop.element_size == 4 else np.uint16
        assert rt.export(handle, (4, 1, 1), dtype).ravel().tolist() == [expected] * 4


def test_srgb_clear_and_copies_convert_between_linear_and_standard(rt):
    linear = np.array([0.0, 0.001, 0.2, 0.5, 0.8, 1.0])
    standard = np.rint(np.clip(image_formats.linear_to_srgb(linear), 0, 1) * 255)
    # The textbook sRGB curve at a few points.
    assert standard.tolist() == [0, 3, 124, 188, 231, 255]
    srgb, _ = rt.image(Geometry.GEOMETRY_2D, Order.SRGBA, Type.UNORM_INT8, 6, 1)
    rgba, _ = rt.image(Geometry.GEOMETRY_2D, Order.RGBA, Type.UNORM_INT8, 6, 1)
    for x, value in enumerate(linear):
        assert rt.clear(srgb, _float_words(value, value, value, 0.5), (x, 0, 0), (1, 1, 1)) == 0
    pixels = rt.export(srgb, (6, 1, 1)).reshape(6, 4)
    assert pixels[:, 0].tolist() == standard.tolist() and set(pixels[:, 3]) == {128}
    # sRGBA -> RGBA decodes to linear values, RGBA -> sRGBA encodes again.
    dim = (ctypes.c_uint32 * 3)
    assert rt.lib.hsa_ext_image_copy(rt.gpu, srgb, dim(0, 0, 0), rgba, dim(0, 0, 0), dim(6, 1, 1)) == 0
    decoded = rt.export(rgba, (6, 1, 1)).reshape(6, 4)
    expected = np.rint(image_formats.srgb_to_linear(standard / 255) * 255)
    assert decoded[:, 1].tolist() == expected.tolist() and set(decoded[:, 3]) == {128}
    assert rt.lib.hsa_ext_image_copy(rt.gpu, rgba, dim(0, 0, 0), srgb, dim(0, 0, 0), dim(6, 1, 1)) == 0
    again = rt.export(srgb, (6, 1, 1)).reshape(6, 4)
    reencoded = np.rint(image_formats.linear_to_srgb(expected / 255) * 255)
    assert again[:, 2].tolist() == reencoded.tolist()


def test_copy_between_geometries_and_overlapping_self_copy(rt):
    flat, _ = rt.image(Geometry.GEOMETRY_2D, Order.R, Type.UNSIGNED_INT32, 16, 8)
    layered, _ = rt.image(Geometry.GEOMETRY_2DA, Order.R, Type.UNSIGNED_INT32, 16, 8, layers=3)
    pattern = np.arange(16 * 8, dtype=np.uint32).reshape(1, 8, 16)
    assert rt.import_(flat, pattern, (16, 8, 1)) == 0
    dim = (ctypes.c_uint32 * 3)
    # A 2D region into layer 2 of the array (range z of 0 counts as 1 for the 2D image).
    assert rt.lib.hsa_ext_image_copy(rt.gpu, flat, dim(0, 0, 0), layered, dim(0, 0, 2), dim(16, 8, 0)) == 0
    back = rt.export(layered, (16, 8, 3), np.uint32)
    np.testing.assert_array_equal(back[2], pattern[0])
    assert not back[:2].any()
    # Shift the image right by 4 in place: the source is read before anything is written.
    assert rt.lib.hsa_ext_image_copy(rt.gpu, flat, dim(0, 0, 0), flat, dim(4, 0, 0), dim(12, 8, 1)) == 0
    shifted = rt.export(flat, (16, 8, 1), np.uint32)
    np.testing.assert_array_equal(shifted[0, :, 4:], pattern[0, :, :12])


def test_import_with_pitches_reads_only_the_region_rows(rt):
    handle, _ = rt.image(Geometry.GEOMETRY_2D, Order.RGBA, Type.UNSIGNED_INT8, 10, 6)
    source = np.arange(6 * 64, dtype=np.uint8).reshape(6, 64)   # 64-byte rows, 40 used
    region = Region(Dim3(0, 0, 0), Dim3(10, 6, 1))
    assert rt.lib.hsa_ext_image_import(rt.gpu, ctypes.c_void_p(source.ctypes.data), 64, 0, handle,
                                       ctypes.byref(region)) == 0
    np.testing.assert_array_equal(rt.export(handle, (10, 6, 1))[0], source[:, :40])
    # Export into a pitched buffer leaves the bytes between rows alone.
    target = np.full((6, 64), 0xEE, dtype=np.uint8)
    assert rt.lib.hsa_ext_image_export(rt.gpu, handle, ctypes.c_void_p(target.ctypes.data), 64, 0,
                                       ctypes.byref(region)) == 0
    np.testing.assert_array_equal(target[:, :40], source[:, :40])
    assert (target[:, 40:] == 0xEE).all()


def test_array_layers_and_buffer_images_address_by_layer_and_element(rt):
    layers, _ = rt.image(Geometry.GEOMETRY_1DA, Order.R, Type.UNSIGNED_INT8, 300, layers=4)
    rows = np.arange(2 * 300, dtype=np.uint8).reshape(1, 2, 300)
    # The layer of a 1DA image is its y coordinate; the buffer's slice pitch is its row pitch.
    assert rt.import_(layers, rows, (300, 2, 0), offset=(0, 1, 0)) == 0
    back = rt.export(layers, (300, 4, 1))[0]
    np.testing.assert_array_equal(back[1:3], rows[0])
    assert not back[0].any() and not back[3].any()
    too_far = Region(Dim3(0, 4, 0), Dim3(300, 1, 1))
    assert rt.lib.hsa_ext_image_export(rt.gpu, layers, ctypes.c_void_p(back.ctypes.data), 0, 0,
                                       ctypes.byref(too_far)) == 0x1001
    buffer, image = rt.image(Geometry.GEOMETRY_1DB, Order.RGBA, Type.FLOAT, 1000)
    values = np.arange(4 * 10, dtype=np.float32)
    assert rt.import_(buffer, values, (10, 0, 0), offset=(990, 0, 0)) == 0
    raw = rt.session.arena.view(image.data + 990 * 16, 160).view(np.float32)
    np.testing.assert_array_equal(raw, values)
    whole = np.zeros(1000 * 4, dtype=np.float32)
    assert rt.lib.hsa_ext_image_export(rt.gpu, buffer, ctypes.c_void_p(whole.ctypes.data), 0, 0,
                                       ctypes.byref(Region(Dim3(0, 0, 0), Dim3(1000, 1, 1)))) == 0
    np.testing.assert_array_equal(whole[-40:], values)
    assert not whole[:-40].any()


def test_freed_backing_store_is_invalid_argument_not_a_crash(rt):
    handle, image = rt.image(Geometry.GEOMETRY_1D, Order.R, Type.UNSIGNED_INT8, 64)
    rt.session.memory.free(image.data)
    rt.allocations.remove(image.data)
    assert rt.clear(handle, [1, 0, 0, 0], (0, 0, 0), (64, 1, 1)) == 0x1001      # INVALID_ARGUMENT


def test_descriptor_slots_are_reused_last():
    rt = Runtime()
    try:
        first, _ = rt.image(Geometry.GEOMETRY_1D, Order.R, Type.UNSIGNED_INT8, 8)
        second, _ = rt.image(Geometry.GEOMETRY_1D, Order.R, Type.UNSIGNED_INT8, 8)
        assert rt.lib.hsa_ext_image_destroy(rt.gpu, first) == 0
        third, _ = rt.image(Geometry.GEOMETRY_1D, Order.R, Type.UNSIGNED_INT8, 8)
        assert third.value not in (first.value, second.value)
        assert rt.lib.hsa_ext_image_destroy(rt.gpu, first) == 0x1001
    finally:
        rt.close()


def test_format_table_matches_rocr_for_every_order_and_type():
    supported = {(o, t) for o in Order for t in Type
                 if image_formats.image_property(o, t, Geometry.GEOMETRY_2D).capability}
    # 12 types each for A, R, RG, RA, RGBA; 4 for BGRA and ARGB; 6 for INTENSITY and
    # LUMINANCE; 3 packed RGB; sRGBA; 2 depth formats.
    assert len(supported) == 5 * 12 + 2 * 4 + 2 * 6 + 3 + 1 + 2
    for order, channel_type in supported:
        prop = image_formats.image_property(order, channel_type, Geometry.GEOMETRY_2D)
        assert len(image_formats.encode_pixel(order, channel_type, [0, 0, 0, 0])) == prop.element_size


def test_unwritable_image_pointer_leaves_no_image(rt):
    chip = rt.session.agents.gpus[0].spec["chip_id"]
    layout = (ctypes.c_uint32 * 10)(1, 0x1002 << 16 | chip, 0, 0, 0, 0, 0, 0, 0, 0)
    desc = Descriptor(Geometry.GEOMETRY_2D, 8, 8, 0, 0, Type.FLOAT, Order.R)
    data = rt.allocate(8192)
    before = len(rt.session.images)
    assert rt.lib.hsa_amd_image_create(rt.gpu, ctypes.byref(desc), layout, ctypes.c_void_p(data), 3,
                                       ctypes.c_void_p(8)) == 0x1001
    assert len(rt.session.images) == before


# Argument kinds: p pointer, h 64-bit handle (agent, image, sampler, signal), i 32-bit int, z size_t.
_SIGNATURES = {
    "hsa_ext_image_get_capability": "hipp", "hsa_ext_image_get_capability_with_layout": "hipip",
    "hsa_ext_image_data_get_info": "hpip", "hsa_ext_image_data_get_info_with_layout": "hpiizzp",
    "hsa_ext_image_create": "hppip", "hsa_ext_image_create_with_layout": "hppiizzp",
    "hsa_ext_image_destroy": "hh", "hsa_ext_image_copy": "hhphpp", "hsa_ext_image_import": "hpzzhp",
    "hsa_ext_image_export": "hhpzzp", "hsa_ext_image_clear": "hhpp", "hsa_ext_sampler_create": "hpp",
    "hsa_ext_sampler_destroy": "hh", "hsa_amd_image_create": "hpppip", "hsa_amd_image_get_info_max_dim": "hip",
    "hsa_amd_ipc_memory_create": "pzp", "hsa_amd_ipc_memory_attach": "pzipp", "hsa_amd_ipc_memory_detach": "p",
    "hsa_amd_svm_attributes_set": "pzpz", "hsa_amd_svm_attributes_get": "pzpz",
    "hsa_amd_svm_prefetch_async": "pzhiph", "hsa_amd_interop_map_buffer": "ipiipppp",
    "hsa_amd_interop_unmap_buffer": "p",
}
_CAN_SUCCEED = ("hsa_amd_interop_unmap_buffer", "hsa_amd_svm_attributes_get", "hsa_amd_svm_prefetch_async")
_CTYPES = {"p": ctypes.c_void_p, "h": ctypes.c_uint64, "i": ctypes.c_uint32, "z": ctypes.c_size_t}


def test_garbage_arguments_get_statuses_never_a_crash(rt, capfd):
    """NULL, unmapped and misaligned pointers, forged handles and wild numbers: every
    call returns a status (never touching memory that is not there)."""
    rng = np.random.default_rng(7)
    gpu = rt.gpu.value
    handles = [0, 1, gpu, gpu + 1, 0xFFFFFFFFFFFFFFFF, rt.session.agents.cpu.handle]
    # Unmapped on x86-64 Linux: the first pages and the upper half of the 47-bit space.
    pointers = [None, 8, 4096 + 3, 1 << 46, (1 << 46) + 0x1234]
    numbers = [0, 1, 2, 3, 7, 0x3000, 0xFFFFFFFF, 1 << 40]
    statuses = set()
    for name, kinds in _SIGNATURES.items():
        fn = getattr(rt.lib, name)
        fn.argtypes = [_CTYPES[k] for k in kinds]
        fn.restype = ctypes.c_uint32
        for _ in range(60):
            args = []
            for kind in kinds:
                pool = pointers if kind == "p" else handles if kind == "h" else numbers
                value = pool[rng.integers(len(pool))]
                args.append(value & 0xFFFFFFFF if kind == "i" and value is not None else value)
            status = fn(*args)
            # Success needs valid arguments, which only these few can be given by chance.
            assert status != 0 or name in _CAN_SUCCEED, (name, args)
            statuses.add(status)
    expected = {Status.SUCCESS, Status.ERROR, Status.ERROR_INVALID_ARGUMENT, Status.ERROR_INVALID_AGENT,
                Status.ERROR_INVALID_ALLOCATION, Status.ERROR_INVALID_SIGNAL, Status.ERROR_INCOMPATIBLE_ARGUMENTS,
                ExtStatus.IMAGE_FORMAT_UNSUPPORTED, ExtStatus.IMAGE_SIZE_UNSUPPORTED, ExtStatus.IMAGE_PITCH_UNSUPPORTED}
    assert statuses <= expected
    assert "internal error" not in capfd.readouterr().err      # every status was a decision
    assert len(rt.session.images) == 0


# The image and sampler exports check, in ROCr's order (image/hsa_ext_image.cpp), the agent
# handle first (0: INVALID_AGENT) and then their pointers, handles and enums (NULL, 0 or
# out of range: INVALID_ARGUMENT), before anything else.
_ROCR_CHECKED = [name for name in _SIGNATURES if name.startswith(("hsa_ext_image_", "hsa_ext_sampler_",
                                                                   "hsa_amd_image_"))]


@pytest.mark.parametrize("name", _ROCR_CHECKED)
def test_agent_zero_is_invalid_agent_before_any_other_argument(rt, name):
    fn = getattr(rt.lib, name)
    fn.argtypes = [_CTYPES[k] for k in _SIGNATURES[name]]
    fn.restype = ctypes.c_uint32
    zeros = [None if k == "p" else 0 for k in _SIGNATURES[name]]
    assert fn(*zeros) == Status.ERROR_INVALID_AGENT


@pytest.mark.parametrize("name", [n for n in _ROCR_CHECKED if not n.endswith("_destroy")])
def test_a_null_argument_with_a_real_agent_is_invalid_argument(rt, name):
    """Every pointer NULL and every other handle or number 0 (the data layouts: OPAQUE, where
    a _with_layout call needs LINEAR; the access permission: below RO)."""
    fn = getattr(rt.lib, name)
    fn.argtypes = [_CTYPES[k] for k in _SIGNATURES[name]]
    fn.restype = ctypes.c_uint32
    args = [None if k == "p" else 0 for k in _SIGNATURES[name]]
    args[0] = rt.gpu.value
    assert fn(*args) == Status.ERROR_INVALID_ARGUMENT
