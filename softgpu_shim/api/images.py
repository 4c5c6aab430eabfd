"""The images extension (hsa_ext_image_*, hsa_ext_sampler_*) and AMD's image additions
(hsa_amd_image_create, hsa_amd_image_get_info_max_dim).

Argument checks run in ROCr's order: an agent handle of 0 is INVALID_AGENT first, then
NULL pointers and out-of-range enums are INVALID_ARGUMENT, then the agent is resolved.
Where ROCr dereferences what it was given without a check (a forged image handle, a
NULL image_layout), SoftGPU answers HSA_STATUS_ERROR_INVALID_ARGUMENT, the status ROCr
gives a NULL image handle. Kernels read and write the images through their descriptors
(core.isa.interp.images).
"""
from _softgpu_hsa import ffi

from core import runtime
from core.images import descriptors as image_descriptors, formats as image_formats, objects as images
from core.errors import ImageFormatUnsupported, InvalidAgent, InvalidAllocation, InvalidArgument
from softgpu_shim.api.out import address, read, read_array, require_pointer, write, write_bytes, write_struct
from softgpu_shim.hsa_abi import (HsaAccessPermission as Permission, HsaExtAgentInfo as ExtAgentInfo,
                                  HsaExtImageDataLayout as DataLayout, HsaExtImageGeometry as Geometry)
from softgpu_shim.registry import export

# ROCr's hsa_amd_image_descriptor_t.deviceID: PCI vendor 0x1002 in the high half.
AMD_VENDOR_ID = 0x1002
AMD_LAYOUT_VERSION = 1
AMD_LAYOUT_WORDS = 10      # version, deviceID, then the 8 dwords of a gfx10 T#



def _nonzero(agent):
    if agent.handle == 0:
        raise InvalidAgent("agent handle is 0")


def _agent_session(agent):
    """The session, once `agent` names one of its agents (a 0 handle fails first)."""
    _nonzero(agent)
    session = runtime.require()
    session.agents.get(agent.handle)
    return session


def _descriptor(pointer):
    d = read(pointer, "hsa_ext_image_descriptor_t", "image_descriptor")
    if not images.valid_geometry(int(d.geometry)):
        raise InvalidArgument(f"{int(d.geometry)} is not an hsa_ext_image_geometry_t")
    return images.Descriptor(int(d.geometry), d.width, d.height, d.depth, d.array_size,
                             d.format.channel_type, d.format.channel_order)


def _dim3(pointer, what):
    d = read(pointer, "hsa_dim3_t", what)
    return (d.x, d.y, d.z)


def _region(pointer):
    r = read(pointer, "hsa_ext_image_region_t", "image_region")
    return (r.offset.x, r.offset.y, r.offset.z), (r.range.x, r.range.y, r.range.z)


def _permission_valid(access):
    return Permission.RO <= int(access) <= Permission.RW


# ---- capabilities and sizes -----------------------------------------------------------------

def _capability(agent, geometry, image_format, capability_mask):
    session = runtime.require()
    fmt = read(image_format, "hsa_ext_image_format_t", "image_format")
    who = session.agents.get(agent.handle)
    write(capability_mask, "uint32_t",
          images.capability(who, fmt.channel_order, fmt.channel_type, int(geometry)), "capability_mask")


@export("hsa_ext_image_get_capability")
def hsa_ext_image_get_capability(agent, geometry, image_format, capability_mask):
    _nonzero(agent)
    if image_format == ffi.NULL or capability_mask == ffi.NULL or not images.valid_geometry(int(geometry)):
        raise InvalidArgument("image_format or capability_mask is NULL, or the geometry is invalid")
    _capability(agent, geometry, image_format, capability_mask)


@export("hsa_ext_image_get_capability_with_layout")
def hsa_ext_image_get_capability_with_layout(agent, geometry, image_format, image_data_layout, capability_mask):
    _nonzero(agent)
    # ROCr accepts only the linear layout here, as in every *_with_layout call.
    if (image_format == ffi.NULL or capability_mask == ffi.NULL or not images.valid_geometry(int(geometry))
            or int(image_data_layout) != DataLayout.LINEAR):
        raise InvalidArgument("NULL pointer, invalid geometry, or a layout other than LINEAR")
    _capability(agent, geometry, image_format, capability_mask)


def _data_info(agent, image_descriptor, image_data_info, linear, row_pitch=0, slice_pitch=0):
    session = runtime.require()
    desc = _descriptor(image_descriptor)
    # ROCr clears the answer before validating: a failed query leaves size and alignment 0.
    write_struct(image_data_info, "hsa_ext_image_data_info_t", "image_data_info")
    who = session.agents.get(agent.handle)
    if linear:
        row_pitch, slice_pitch = _default_pitches(desc, row_pitch, slice_pitch)
    found = images.data_info(who, desc, linear, row_pitch, slice_pitch)
    write_struct(image_data_info, "hsa_ext_image_data_info_t", "image_data_info",
                 size=found.size, alignment=found.alignment)


def _default_pitches(desc, row_pitch, slice_pitch):
    element_size = image_formats.image_property(desc.channel_order, desc.channel_type, desc.geometry).element_size
    return images.default_pitches(desc, element_size, row_pitch, slice_pitch)


@export("hsa_ext_image_data_get_info")
def hsa_ext_image_data_get_info(agent, image_descriptor, access_permission, image_data_info):
    _nonzero(agent)
    if image_descriptor == ffi.NULL or image_data_info == ffi.NULL or not _permission_valid(access_permission):
        raise InvalidArgument("NULL pointer or access_permission is not an hsa_access_permission_t")
    _data_info(agent, image_descriptor, image_data_info, linear=False)


@export("hsa_ext_image_data_get_info_with_layout")
def hsa_ext_image_data_get_info_with_layout(agent, image_descriptor, access_permission, image_data_layout,
                                            image_data_row_pitch, image_data_slice_pitch, image_data_info):
    _nonzero(agent)
    if (image_descriptor == ffi.NULL or image_data_info == ffi.NULL or not _permission_valid(access_permission)
            or int(image_data_layout) != DataLayout.LINEAR):
        raise InvalidArgument("NULL pointer, invalid access_permission, or a layout other than LINEAR")
    _data_info(agent, image_descriptor, image_data_info, True, image_data_row_pitch, image_data_slice_pitch)


# ---- creation and destruction ---------------------------------------------------------------

def _create(agent, image_descriptor, image_data, access_permission, image, linear, row_pitch=0, slice_pitch=0):
    session = runtime.require()
    write_struct(image, "hsa_ext_image_t", "image")
    desc = _descriptor(image_descriptor)
    who = session.agents.get(agent.handle)
    if linear:
        row_pitch, slice_pitch = _default_pitches(desc, row_pitch, slice_pitch)
    found = images.data_info(who, desc, linear, row_pitch, slice_pitch)
    data = address(image_data)
    if data % found.alignment:
        raise InvalidArgument(f"image data {data:#x} is not {found.alignment}-byte aligned")
    handle = session.images.create(who, desc, data, int(access_permission), found)
    write_struct(image, "hsa_ext_image_t", "image", handle=handle)


@export("hsa_ext_image_create")
def hsa_ext_image_create(agent, image_descriptor, image_data, access_permission, image):
    _nonzero(agent)
    if image_descriptor == ffi.NULL or image_data == ffi.NULL or image == ffi.NULL:
        raise InvalidArgument("image_descriptor, image_data or image is NULL")
    _create(agent, image_descriptor, image_data, access_permission, image, linear=False)


@export("hsa_ext_image_create_with_layout")
def hsa_ext_image_create_with_layout(agent, image_descriptor, image_data, access_permission, image_data_layout,
                                     image_data_row_pitch, image_data_slice_pitch, image):
    _nonzero(agent)
    if (image_descriptor == ffi.NULL or image_data == ffi.NULL or image == ffi.NULL
            or int(image_data_layout) != DataLayout.LINEAR):
        raise InvalidArgument("NULL pointer or a layout other than LINEAR")
    _create(agent, image_descriptor, image_data, access_permission, image, True,
            image_data_row_pitch, image_data_slice_pitch)


@export("hsa_amd_image_create")
def hsa_amd_image_create(agent, image_descriptor, image_layout, image_data, access_permission, image):
    _nonzero(agent)
    if image_descriptor == ffi.NULL or image_data == ffi.NULL or image == ffi.NULL:
        raise InvalidArgument("image_descriptor, image_data or image is NULL")
    session = runtime.require()
    data = address(image_data)
    if data % images.BASE_ALIGNMENT:
        raise InvalidAllocation(f"image data {data:#x} is not {images.BASE_ALIGNMENT}-byte aligned")
    words = [int(w) for w in read_array(require_pointer(image_layout, "image_layout"), "uint32_t",
                                        AMD_LAYOUT_WORDS, "image_layout")]
    if words[0] != AMD_LAYOUT_VERSION:
        raise ImageFormatUnsupported(f"image layout version {words[0]} (only 1)")
    desc = _descriptor(image_descriptor)
    who = session.agents.get(agent.handle)
    chip = who.spec["chip_id"] if who.is_gpu else 0
    if words[1] != (AMD_VENDOR_ID << 16 | chip) or not who.is_gpu:
        raise ImageFormatUnsupported(f"image layout is for device {words[1]:#x}, not this agent's")
    prop = image_formats.image_property(desc.channel_order, desc.channel_type, desc.geometry)
    if prop.capability == 0:
        raise ImageFormatUnsupported("the image format is not supported on this geometry")
    found = images.imported_layout(desc, prop.element_size, words[2:])
    handle = session.images.create(who, desc, data, int(access_permission), found, words[2:])
    try:
        write_struct(image, "hsa_ext_image_t", "image", handle=handle)
    except InvalidArgument:
        # ROCr leaves the out-pointer alone until success; an unwritable one must not leak the image.
        session.images.destroy(handle)
        raise


@export("hsa_ext_image_destroy")
def hsa_ext_image_destroy(agent, image):
    _agent_session(agent).images.destroy(image.handle)


# ---- data movement ----------------------------------------------------------------------------

def _image(session, agent, image):
    session.agents.get(agent.handle)
    return session.images.image(image.handle)


@export("hsa_ext_image_copy")
def hsa_ext_image_copy(agent, src_image, src_offset, dst_image, dst_offset, range_):
    _nonzero(agent)
    if src_image.handle == 0 or dst_image.handle == 0 or ffi.NULL in (src_offset, dst_offset, range_):
        raise InvalidArgument("an image handle is 0 or an offset/range pointer is NULL")
    session = runtime.require()
    source, destination = _image(session, agent, src_image), _image(session, agent, dst_image)
    if source.agent is not destination.agent:
        raise InvalidArgument("the images belong to different agents")
    if not images.copy_compatible(source, destination):
        raise InvalidArgument("image formats differ (only sRGBA <-> RGBA 8-bit unorm converts)")
    src_at, dst_at = _dim3(src_offset, "src_offset"), _dim3(dst_offset, "dst_offset")
    size = images.check_region(_dim3(range_, "range"), (source, src_at), (destination, dst_at))
    session.images.copy(source, destination, src_at, dst_at, size)


def _transfer(agent, memory, image, image_region, memory_name):
    """The checked session, image, offset and size of an import or export, its arguments
    checked in ROCr's order."""
    _nonzero(agent)
    if memory == ffi.NULL or image.handle == 0 or image_region == ffi.NULL:
        raise InvalidArgument(f"{memory_name} or image_region is NULL, or the image handle is 0")
    session = runtime.require()
    target = _image(session, agent, image)
    offset, size = _region(image_region)
    return session, target, offset, images.check_region(size, (target, offset))


@export("hsa_ext_image_import")
def hsa_ext_image_import(agent, src_memory, src_row_pitch, src_slice_pitch, dst_image, image_region):
    session, target, offset, size = _transfer(agent, src_memory, dst_image, image_region, "src_memory")
    session.images.import_(target, address(src_memory), src_row_pitch, src_slice_pitch, offset, size)


@export("hsa_ext_image_export")
def hsa_ext_image_export(agent, src_image, dst_memory, dst_row_pitch, dst_slice_pitch, image_region):
    session, source, offset, size = _transfer(agent, dst_memory, src_image, image_region, "dst_memory")
    session.images.export(source, address(dst_memory), dst_row_pitch, dst_slice_pitch, offset, size)


@export("hsa_ext_image_clear")
def hsa_ext_image_clear(agent, image, data, image_region):
    _nonzero(agent)
    if image.handle == 0 or image_region == ffi.NULL or data == ffi.NULL:
        raise InvalidArgument("data or image_region is NULL, or the image handle is 0")
    session = runtime.require()
    target = _image(session, agent, image)
    words = [int(w) for w in read_array(data, "uint32_t", 4, "data")]
    offset, size = _region(image_region)
    size = images.check_region(size, (target, offset))
    session.images.clear(target, words, offset, size)


# ---- samplers -------------------------------------------------------------------------------

def _create_sampler(agent, sampler_descriptor, sampler, descriptor_type, address_modes):
    """Both sampler exports, in ROCr's order: agent 0, NULL pointers, the handle zeroed, a
    GPU agent, then the descriptor's values."""
    _nonzero(agent)
    if sampler_descriptor == ffi.NULL or sampler == ffi.NULL:
        raise InvalidArgument("sampler_descriptor or sampler is NULL")
    session = runtime.require()
    write_struct(sampler, "hsa_ext_sampler_t", "sampler")
    d = read(sampler_descriptor, descriptor_type, "sampler_descriptor")
    who = session.agents.get(agent.handle)
    if not who.is_gpu:
        raise InvalidAgent("samplers exist on GPU agents only")
    modes = (d.coordinate_mode, d.filter_mode, address_modes(d))
    if not image_descriptors.sampler_descriptor_valid(*modes):
        # The spec's INVALID_ARGUMENT for a descriptor holding an invalid value (ROCr's
        # sampler encoder rejects the same values but its caller drops that status).
        raise InvalidArgument(f"sampler descriptor {modes} holds a value outside its enumeration")
    write_struct(sampler, "hsa_ext_sampler_t", "sampler", handle=session.images.create_sampler(who, *modes))


@export("hsa_ext_sampler_create")
def hsa_ext_sampler_create(agent, sampler_descriptor, sampler):
    # ROCr widens a v1 descriptor to v2: its one address mode for every axis.
    _create_sampler(agent, sampler_descriptor, sampler, "hsa_ext_sampler_descriptor_t",
                    lambda d: (d.address_mode,) * 3)


@export("hsa_ext_sampler_create_v2")
def hsa_ext_sampler_create_v2(agent, sampler_descriptor, sampler):
    _create_sampler(agent, sampler_descriptor, sampler, "hsa_ext_sampler_descriptor_v2_t",
                    lambda d: tuple(d.address_modes))


@export("hsa_ext_sampler_destroy")
def hsa_ext_sampler_destroy(agent, sampler):
    _agent_session(agent).images.destroy_sampler(sampler.handle)


# ---- limits ---------------------------------------------------------------------------------

# attribute -> (geometry, which of width/height/depth/layers it answers)
_MAX_DIM = {
    ExtAgentInfo.IMAGE_1D_MAX_ELEMENTS: (Geometry.GEOMETRY_1D, (0,)),
    ExtAgentInfo.IMAGE_1DA_MAX_ELEMENTS: (Geometry.GEOMETRY_1DA, (0,)),
    ExtAgentInfo.IMAGE_1DB_MAX_ELEMENTS: (Geometry.GEOMETRY_1DB, (0,)),
    ExtAgentInfo.IMAGE_2D_MAX_ELEMENTS: (Geometry.GEOMETRY_2D, (0, 1)),
    ExtAgentInfo.IMAGE_2DA_MAX_ELEMENTS: (Geometry.GEOMETRY_2DA, (0, 1)),
    ExtAgentInfo.IMAGE_2DDEPTH_MAX_ELEMENTS: (Geometry.GEOMETRY_2DDEPTH, (0, 1)),
    ExtAgentInfo.IMAGE_2DADEPTH_MAX_ELEMENTS: (Geometry.GEOMETRY_2DADEPTH, (0, 1)),
    ExtAgentInfo.IMAGE_3D_MAX_ELEMENTS: (Geometry.GEOMETRY_3D, (0, 1, 2)),
    ExtAgentInfo.IMAGE_ARRAY_MAX_LAYERS: (Geometry.GEOMETRY_2DA, (3,)),
}


@export("hsa_amd_image_get_info_max_dim")
def hsa_amd_image_get_info_max_dim(agent, attribute, value):
    _nonzero(agent)
    require_pointer(value, "value")
    if int(attribute) not in _MAX_DIM:
        raise InvalidArgument(f"attribute {int(attribute):#x} is not an image dimension attribute")
    who = runtime.require().agents.get(agent.handle)
    geometry, picks = _MAX_DIM[int(attribute)]
    limits = images.max_dimensions(who, geometry)
    # ROCr writes 32-bit values, one per dimension, whatever the attribute's documented type.
    answer = b"".join(limits[i].to_bytes(4, "little") for i in picks)
    write_bytes(value, answer, len(answer), "value")
