"""Image instructions fault as other memory instructions do: a descriptor that is no image,
or a texel in memory the kernel may not reach, stops the kernel with the usual report; a
descriptor the engine does not model names the field it refuses."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from softgpu_shim.hsa_abi import (HsaExtImageChannelOrder as Order, HsaExtImageChannelType as Type,
                                  HsaExtImageGeometry as Geometry, Status)
from tests.support.images import Image, Objects
from tests.support.kernels import compile_opencl
from tests.support.launch import launch

PIXELS = np.arange(4 * 6 * 8, dtype=np.float32).reshape(1, 6, 8, 4)


def _load(session, image_handle):
    """Run images.cl's load_2d (read_imagef and read_imagei without a sampler) on a handle."""
    co = compile_opencl("images.cl", opt="-O2")
    coords = np.stack([np.arange(64) % 8, np.arange(64) // 8 % 6], axis=1).astype(np.int32)
    return launch(session, co, "load_2d", [image_handle, coords, np.zeros((64, 4), np.float32),
                                           np.zeros((64, 4), np.int32)], 64, 64)


def test_a_descriptor_that_is_no_image_faults_naming_its_type(session):
    objects = Objects(session)
    try:
        zeros = objects.allocate(64)                       # an "image object" of zeros
        session.arena.view(zeros, 64)[:] = 0
        with pytest.raises(KernelFault) as caught:
            _load(session, zeros)
        buffer_image = objects.image(Image(Geometry.GEOMETRY_1DB, Order.RGBA, Type.FLOAT, PIXELS[:, :1]))
        with pytest.raises(KernelFault) as as_2d:           # its V# read as a T#
            _load(session, buffer_image)
    finally:
        objects.release()
    for fault in (caught.value, as_2d.value):
        assert fault.status == Status.ERROR_MEMORY_APERTURE_VIOLATION
        report = fault.report
        assert report["kernel"] == "load_2d" and report["instruction"].startswith("image_load")
        assert report["reason"] == "invalid image descriptor: TYPE 0 is not an image resource"
        assert report["wave"] == 0 and report["workgroup"] == (0, 0, 0)


def test_texels_outside_reachable_memory_fault_with_lane_and_address(session, monkeypatch):
    from core.harness import launch as testlaunch
    objects = Objects(session)
    original = testlaunch.run_dispatch

    def free_then_run(session_, kernel, **kw):       # the image outlives its memory
        session_.memory.free(data)
        objects.allocations.remove(data)
        return original(session_, kernel, **kw)
    monkeypatch.setattr(testlaunch, "run_dispatch", free_then_run)
    try:
        handle = objects.image(Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.FLOAT, PIXELS))
        data = objects.data[handle]
        with pytest.raises(KernelFault) as caught:
            _load(session, handle)
    finally:
        objects.release()
    report = caught.value.report
    assert caught.value.status == Status.ERROR_MEMORY_APERTURE_VIOLATION
    assert report["instruction"].startswith("image_load") and report["lane"] == 0
    assert report["address"] == data and "outside every live allocation" in report["reason"]


def test_a_tiled_descriptor_is_refused_as_not_modelled(session):
    def tiled(words):
        words = list(words)
        words[3] |= 9 << 20                                 # SW_MODE 9: a 64 KiB tiled layout
        return words
    objects = Objects(session)
    try:
        image = Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.FLOAT, PIXELS, descriptor_words=tiled)
        with pytest.raises(KernelFault) as caught:
            _load(session, objects.image(image))
    finally:
        objects.release()
    assert caught.value.status == Status.ERROR_ILLEGAL_INSTRUCTION
    assert "SW_MODE 9 is tiled: only linear images are modelled" in caught.value.report["reason"]
