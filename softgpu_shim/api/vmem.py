"""The virtual memory API (hsa_amd_vmem_*) and dma-buf export (hsa_amd_portable_*_dmabuf):
the argument checks of ROCr's hsa_ext_amd.cpp in its order, then core.memory.vmem.

Where ROCr would dereference a NULL out-pointer (va of reserve, memory_handle of create and
retain), SoftGPU answers HSA_STATUS_ERROR_INVALID_ARGUMENT after ROCr's own checks, and
checks it before anything is made, so a failed call leaves nothing behind.
"""
from _softgpu_hsa import ffi, lib

from core import runtime
from core.errors import InvalidArgument, InvalidMemoryPool
from softgpu_shim.api.out import address, read_array, require_pointer, write
from softgpu_shim.hsa_abi import HsaAmdMemoryType as AmdMemoryType
from softgpu_shim.registry import export

# A longer access list cannot be valid (an agent appears once, and there are few agents);
# refusing it keeps a garbage count from making the runtime copy gigabytes.
MAX_DESCRIPTORS = 4096



def _require_writable(pointer, ctype, what):
    if pointer == ffi.NULL or not lib.sg_writable(pointer, ffi.sizeof(ctype)):
        raise InvalidArgument(f"{what} does not point to a writable {ctype}")


def _nonzero(value, what):
    if value == 0:
        raise InvalidArgument(f"{what} is 0")


def _range(va, size):
    """(session, address): ROCr's first checks of every call on a range, va then size."""
    session = runtime.require()
    require_pointer(va, "va")
    _nonzero(size, "size")
    return session, address(va)


# ---- dma-buf ---------------------------------------------------------------------------------

def _export_dmabuf(ptr, size, dmabuf, offset):
    session = runtime.require()
    require_pointer(ptr, "ptr")
    require_pointer(dmabuf, "dmabuf")
    require_pointer(offset, "offset")
    _nonzero(size, "size")
    _require_writable(dmabuf, "int", "dmabuf")
    _require_writable(offset, "uint64_t", "offset")
    fd, at = session.vmem.export_dmabuf(address(ptr), size)
    write(dmabuf, "int", fd, "dmabuf")
    write(offset, "uint64_t", at, "offset")


@export("hsa_amd_portable_export_dmabuf")
def hsa_amd_portable_export_dmabuf(ptr, size, dmabuf, offset):
    _export_dmabuf(ptr, size, dmabuf, offset)


@export("hsa_amd_portable_export_dmabuf_v2")
def hsa_amd_portable_export_dmabuf_v2(ptr, size, dmabuf, offset, flags):
    # HSA_AMD_DMABUF_MAPPING_TYPE_PCIE asks for memory the host reaches over PCIe (ROCr refuses
    # it only without large BAR): SoftGPU's device memory is host memory, so every flag is met.
    _export_dmabuf(ptr, size, dmabuf, offset)


@export("hsa_amd_portable_close_dmabuf", needs_runtime=False)
def hsa_amd_portable_close_dmabuf(dmabuf):
    from core.memory.vmem import VirtualMemory
    VirtualMemory.close_dmabuf(dmabuf)


# ---- address ranges ------------------------------------------------------------------------------

def _reserve(va, size, address, alignment, flags):
    session = runtime.require()
    _nonzero(size, "size")
    _require_writable(va, "void *", "va")
    reserved = session.vmem.reserve(size, address, alignment, flags)
    write(va, "void *", ffi.cast("void *", reserved), "va")


@export("hsa_amd_vmem_address_reserve")
def hsa_amd_vmem_address_reserve(va, size, address, flags):
    _reserve(va, size, address, 0, flags)


@export("hsa_amd_vmem_address_reserve_align")
def hsa_amd_vmem_address_reserve_align(va, size, address, alignment, flags):
    _reserve(va, size, address, alignment, flags)


@export("hsa_amd_vmem_address_free")
def hsa_amd_vmem_address_free(va, size):
    session, address = _range(va, size)
    session.vmem.free(address, size)


# ---- physical memory ------------------------------------------------------------------------------

@export("hsa_amd_vmem_handle_create")
def hsa_amd_vmem_handle_create(pool, size, type, flags, memory_handle):
    session = runtime.require()
    _nonzero(size, "size")
    if type not in (AmdMemoryType.NONE, AmdMemoryType.PINNED):
        raise InvalidArgument(f"{type} is not an hsa_amd_memory_type_t")
    try:
        memory_pool = session.memory.pool(pool.handle)
    except InvalidMemoryPool:
        raise InvalidArgument(f"{pool.handle:#x} is not a live memory pool") from None
    _require_writable(memory_handle, "hsa_amd_vmem_alloc_handle_t", "memory_handle")
    value = session.vmem.create(memory_pool, size, type)
    write(memory_handle, "hsa_amd_vmem_alloc_handle_t", {"handle": value}, "memory_handle")


@export("hsa_amd_vmem_handle_release")
def hsa_amd_vmem_handle_release(memory_handle):
    runtime.require().vmem.release(memory_handle.handle)


@export("hsa_amd_vmem_retain_alloc_handle")
def hsa_amd_vmem_retain_alloc_handle(memory_handle, addr):
    session = runtime.require()
    require_pointer(addr, "addr")
    _require_writable(memory_handle, "hsa_amd_vmem_alloc_handle_t", "memory_handle")
    value = session.vmem.retain(address(addr))
    write(memory_handle, "hsa_amd_vmem_alloc_handle_t", {"handle": value}, "memory_handle")


@export("hsa_amd_vmem_get_alloc_properties_from_handle")
def hsa_amd_vmem_get_alloc_properties_from_handle(memory_handle, pool, type):
    session = runtime.require()
    require_pointer(pool, "pool")
    require_pointer(type, "type")
    owner, memory_type = session.vmem.properties(memory_handle.handle)
    write(type, "hsa_amd_memory_type_t", int(memory_type), "type")
    write(pool, "hsa_amd_memory_pool_t", {"handle": owner.handle}, "pool")


# ---- mappings and access ----------------------------------------------------------------------------

@export("hsa_amd_vmem_map")
def hsa_amd_vmem_map(va, size, in_offset, memory_handle, flags):
    # in_offset and flags: "currently unsupported" in ROCr, which ignores both.
    session, address = _range(va, size)
    session.vmem.map(address, size, memory_handle.handle)


@export("hsa_amd_vmem_unmap")
def hsa_amd_vmem_unmap(va, size):
    session, address = _range(va, size)
    session.vmem.unmap(address, size)


@export("hsa_amd_vmem_set_access")
def hsa_amd_vmem_set_access(va, size, desc, desc_cnt):
    session, address = _range(va, size)
    require_pointer(desc, "desc")
    _nonzero(desc_cnt, "desc_cnt")
    if desc_cnt > MAX_DESCRIPTORS:
        raise InvalidArgument(f"{desc_cnt} access descriptors: more than can be valid")
    entries = read_array(desc, "hsa_amd_memory_access_desc_t", desc_cnt, "desc")
    # ROCr resolves every agent before it looks at the address.
    grants = [(session.agents.get(e.agent_handle.handle), int(e.permissions)) for e in entries]
    session.vmem.set_access(address, size, grants)


@export("hsa_amd_vmem_get_access")
def hsa_amd_vmem_get_access(va, perms, agent_handle):
    session = runtime.require()
    require_pointer(va, "va")
    require_pointer(perms, "perms")
    _require_writable(perms, "hsa_access_permission_t", "perms")
    permission = session.vmem.get_access(address(va), agent_handle.handle)
    write(perms, "hsa_access_permission_t", int(permission), "perms")


# ---- shareable handles --------------------------------------------------------------------------------

@export("hsa_amd_vmem_export_shareable_handle")
def hsa_amd_vmem_export_shareable_handle(dmabuf_fd, handle, flags):
    session = runtime.require()
    require_pointer(dmabuf_fd, "dmabuf_fd")
    # ROCr stores -1 before it looks the handle up: a failed export leaves -1 there.
    write(dmabuf_fd, "int", -1, "dmabuf_fd")
    fd = session.vmem.export(handle.handle)
    try:
        write(dmabuf_fd, "int", fd, "dmabuf_fd")
    except InvalidArgument:
        session.vmem.close_dmabuf(fd)
        raise


@export("hsa_amd_vmem_import_shareable_handle")
def hsa_amd_vmem_import_shareable_handle(dmabuf_fd, handle):
    # ROCr checks neither that it is open (it needs it for the agents, so NOT_INITIALIZED
    # here, from the glue) nor more than these two arguments first.
    session = runtime.require()
    require_pointer(handle, "handle")
    if dmabuf_fd < 0:
        raise InvalidArgument(f"{dmabuf_fd} is no file descriptor")
    _require_writable(handle, "hsa_amd_vmem_alloc_handle_t", "handle")
    value = session.vmem.import_(dmabuf_fd)
    write(handle, "hsa_amd_vmem_alloc_handle_t", {"handle": value}, "handle")
