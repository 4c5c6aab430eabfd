"""Regions, memory pools, allocation, host memory locking, pointer info (hsa_memory_*,
hsa_region_*, hsa_amd_memory_*, hsa_amd_*pool*, hsa_amd_pointer_info*, coherency).

Argument checks run in ROCr's order, so every bad call answers the status ROCr gives.
"""
from _softgpu_hsa import ffi

from core import runtime
from core.errors import InvalidAgent, InvalidArgument, InvalidMemoryPool, OutOfResources
from softgpu_shim.api.out import address, read, read_array, require_pointer, write, write_bytes
from softgpu_shim.hsa_abi import (HsaAccessPermission as Permission,
                                  HsaAmdAgentMemoryPoolInfo as AgentPoolInfo,
                                  HsaAmdCoherencyType as Coherency,
                                  HsaAmdMemoryPoolAccess as Access,
                                  HsaAmdMemoryPoolInfo as PoolInfo,
                                  HsaAmdMemoryPoolLocation as Location,
                                  HsaAmdRegionInfo as AmdRegionInfo,
                                  HsaAmdSegment as AmdSegment,
                                  HsaRegionInfo as RegionInfo,
                                  HsaRegionSegment as RegionSegment)
from softgpu_shim.registry import export



def _segment(enum, pool):
    return enum.GROUP if pool.is_group else enum.GLOBAL


_REGION_INFO = {
    RegionInfo.SEGMENT: ("hsa_region_segment_t", lambda p: _segment(RegionSegment, p)),
    RegionInfo.GLOBAL_FLAGS: ("uint32_t", lambda p: p.global_flags),
    RegionInfo.SIZE: ("size_t", lambda p: p.size),
    RegionInfo.ALLOC_MAX_SIZE: ("size_t", lambda p: p.alloc_max_size),
    RegionInfo.RUNTIME_ALLOC_ALLOWED: ("bool", lambda p: p.alloc_allowed),
    RegionInfo.RUNTIME_ALLOC_GRANULE: ("size_t", lambda p: p.granule),
    RegionInfo.RUNTIME_ALLOC_ALIGNMENT: ("size_t", lambda p: p.alignment),
    AmdRegionInfo.HOST_ACCESSIBLE: ("bool", lambda p: p.host_accessible),
    AmdRegionInfo.BASE: ("uint64_t", lambda p: p.base),
    AmdRegionInfo.BUS_WIDTH: ("uint32_t", lambda p: p.bus_width),
    AmdRegionInfo.MAX_CLOCK_FREQUENCY: ("uint32_t", lambda p: p.max_clock_mhz),
}
# ROCr leaves HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE unanswered (no private
# segment regions): it is HSA_STATUS_ERROR_INVALID_ARGUMENT like any unknown attribute.

_POOL_INFO = {
    PoolInfo.SEGMENT: ("hsa_amd_segment_t", lambda p: _segment(AmdSegment, p)),
    PoolInfo.GLOBAL_FLAGS: ("uint32_t", lambda p: p.global_flags),
    PoolInfo.SIZE: ("size_t", lambda p: p.size),
    PoolInfo.RUNTIME_ALLOC_ALLOWED: ("bool", lambda p: p.alloc_allowed),
    PoolInfo.RUNTIME_ALLOC_GRANULE: ("size_t", lambda p: p.granule),
    PoolInfo.RUNTIME_ALLOC_ALIGNMENT: ("size_t", lambda p: p.alignment),
    PoolInfo.ACCESSIBLE_BY_ALL: ("bool", lambda p: p.accessible_by_all),
    PoolInfo.ALLOC_MAX_SIZE: ("size_t", lambda p: p.alloc_max_size),
    # hsa_amd_memory_pool_location_t, an enum (4 bytes) the 5.2.3 headers lack.
    PoolInfo.LOCATION: ("uint32_t",
                        lambda p: Location.GPU if p.owner.is_gpu else Location.CPU),
    PoolInfo.RUNTIME_ALLOC_REC_GRANULE: ("size_t", lambda p: p.recommended_granule),
}


def _answer(table, attribute, pool, value):
    entry = table.get(int(attribute))
    if entry is None:
        raise InvalidArgument(f"attribute {int(attribute):#x} is not answered for this object")
    ctype, getter = entry
    write(value, ctype, int(getter(pool)), "value")


def _iterate(items, ctype, callback, data):
    for item in items:
        status = callback(ffi.new(ctype + " *", {"handle": item.handle})[0], data)
        if status != 0:
            return status
    return None


@export("hsa_agent_iterate_regions")
def hsa_agent_iterate_regions(agent, callback, data):
    session = runtime.require()
    require_pointer(callback, "callback")
    owner = session.agents.get(agent.handle)
    return _iterate(session.memory.regions_of(owner), "hsa_region_t", callback, data)


@export("hsa_amd_agent_iterate_memory_pools")
def hsa_amd_agent_iterate_memory_pools(agent, callback, data):
    session = runtime.require()
    require_pointer(callback, "callback")
    owner = session.agents.get(agent.handle)
    return _iterate(session.memory.pools_of(owner), "hsa_amd_memory_pool_t", callback, data)


@export("hsa_region_get_info")
def hsa_region_get_info(region, attribute, value):
    session = runtime.require()
    require_pointer(value, "value")
    _answer(_REGION_INFO, attribute, session.memory.region(region.handle), value)


@export("hsa_amd_memory_pool_get_info")
def hsa_amd_memory_pool_get_info(memory_pool, attribute, value):
    session = runtime.require()
    require_pointer(value, "value")
    _answer(_POOL_INFO, attribute, session.memory.pool(memory_pool.handle), value)


@export("hsa_amd_agent_memory_pool_get_info")
def hsa_amd_agent_memory_pool_get_info(agent, memory_pool, attribute, value):
    session = runtime.require()
    require_pointer(value, "value")
    who = session.agents.get(agent.handle)
    pool = session.memory.pool(memory_pool.handle)
    link = session.memory.link(who, pool)
    access = pool.access(who, link)
    attribute = int(attribute)
    if attribute == AgentPoolInfo.ACCESS:
        write(value, "hsa_amd_memory_pool_access_t", int(access), "value")
    elif attribute == AgentPoolInfo.NUM_LINK_HOPS:
        write(value, "uint32_t", link.hops if access != Access.NEVER_ALLOWED else 0, "value")
    elif attribute == AgentPoolInfo.LINK_INFO:
        # ROCr writes one record: the link's when the pool is reachable over one, zeros otherwise.
        info = ffi.new("hsa_amd_memory_pool_link_info_t *")
        if access != Access.NEVER_ALLOWED and link.hops > 0:
            info.min_latency, info.max_latency = link.min_latency, link.max_latency
            info.min_bandwidth, info.max_bandwidth = link.min_bandwidth, link.max_bandwidth
            info.atomic_support_32bit, info.atomic_support_64bit = link.atomic_32, link.atomic_64
            info.coherent_support = link.coherent
            info.link_type = int(link.link_type)
            info.numa_distance = link.numa_distance
        write_bytes(value, bytes(ffi.buffer(info)), ffi.sizeof(info[0]), "value")
    else:
        raise InvalidArgument(f"attribute {attribute:#x} is not an hsa_amd_agent_memory_pool_info_t")


def _allocate(session, pool, size, ptr, restricted):
    address = session.memory.allocate(pool, size, restricted)
    write(ptr, "void *", ffi.cast("void *", address), "ptr")


@export("hsa_memory_allocate")
def hsa_memory_allocate(region, size, ptr):
    session = runtime.require()
    if size == 0 or ptr == ffi.NULL:
        raise InvalidArgument("size is 0 or ptr is NULL")
    _allocate(session, session.memory.region(region.handle), size, ptr, restricted=False)


@export("hsa_amd_memory_pool_allocate")
def hsa_amd_memory_pool_allocate(memory_pool, size, flags, ptr):
    session = runtime.require()
    if size == 0 or ptr == ffi.NULL:
        raise InvalidArgument("size is 0 or ptr is NULL")
    # The newest ROCr takes hsa_amd_memory_pool_flag_t (PCIe fine-grained, physically
    # contiguous, executable) and ignores other bits; SoftGPU's memory already is all three
    # (one arena, contiguous in the device address space, where code runs from), so every
    # flag is accepted and changes nothing. (ROCr 5.2.3 refused any flag.)
    del flags
    _allocate(session, session.memory.pool(memory_pool.handle), size, ptr, restricted=True)


@export("hsa_memory_free")
def hsa_memory_free(ptr):
    session = runtime.require()
    if ptr != ffi.NULL:
        session.memory.free(address(ptr))


@export("hsa_amd_memory_pool_free")
def hsa_amd_memory_pool_free(ptr):
    hsa_memory_free(ptr)


@export("hsa_memory_copy")
def hsa_memory_copy(dst, src, size):
    session = runtime.require()
    if dst == ffi.NULL or src == ffi.NULL:
        raise InvalidArgument("dst or src is NULL")
    if size:
        session.memory.copy(address(dst), address(src), size)


@export("hsa_memory_assign_agent")
def hsa_memory_assign_agent(ptr, agent, access):
    session = runtime.require()
    if ptr == ffi.NULL or not Permission.RO <= int(access) <= Permission.RW:
        raise InvalidArgument("ptr is NULL or access is not an hsa_access_permission_t")
    # ROCr checks the agent only: any pointer is accepted and nothing changes.
    session.agents.get(agent.handle)


@export("hsa_memory_register")
def hsa_memory_register(ptr, size):
    session = runtime.require()
    if size == 0 and ptr != ffi.NULL:
        raise InvalidArgument("size is 0")
    # ROCr 5.2.3 registers nothing and answers SUCCESS for any other call. SoftGPU makes
    # mapped host memory reachable by kernels (README: deliberate differences), and
    # answers SUCCESS for the rest too.
    if ptr != ffi.NULL:
        session.memory.register(address(ptr), size)


@export("hsa_memory_deregister")
def hsa_memory_deregister(ptr, size):
    runtime.require().memory.deregister(address(ptr), size)


def _lock_agents(session, agents, num_agent):
    if (agents != ffi.NULL and num_agent == 0) or (agents == ffi.NULL and num_agent != 0) or num_agent < 0:
        raise InvalidArgument("agents and num_agent disagree")
    if num_agent == 0:
        return []
    return [session.agents.get(a.handle) for a in read_array(agents, "hsa_agent_t", num_agent, "agents")]


def _lock(session, host_ptr, size, agents, num_agent, pool, agent_ptr):
    write(agent_ptr, "void *", ffi.NULL, "agent_ptr")
    who = _lock_agents(session, agents, num_agent)
    locked = session.memory.lock(address(host_ptr), size, who, pool)
    write(agent_ptr, "void *", ffi.cast("void *", locked), "agent_ptr")


@export("hsa_amd_memory_lock")
def hsa_amd_memory_lock(host_ptr, size, agents, num_agent, agent_ptr):
    session = runtime.require()
    if size == 0 or host_ptr == ffi.NULL or agent_ptr == ffi.NULL:
        raise InvalidArgument("size is 0 or host_ptr/agent_ptr is NULL")
    _lock(session, host_ptr, size, agents, num_agent, None, agent_ptr)


@export("hsa_amd_memory_lock_to_pool")
def hsa_amd_memory_lock_to_pool(host_ptr, size, agents, num_agent, pool, flags, agent_ptr):
    session = runtime.require()
    if size == 0 or host_ptr == ffi.NULL or agent_ptr == ffi.NULL or flags != 0:
        raise InvalidArgument("size is 0, host_ptr/agent_ptr is NULL or flags is not 0")
    target = session.memory.pool(pool.handle)
    if target.owner is not session.agents.cpu:
        raise InvalidMemoryPool("hsa_amd_memory_lock_to_pool needs a pool of the CPU agent")
    _lock(session, host_ptr, size, agents, num_agent, target, agent_ptr)


@export("hsa_amd_memory_unlock")
def hsa_amd_memory_unlock(host_ptr):
    runtime.require().memory.unlock(address(host_ptr))


@export("hsa_amd_agents_allow_access")
def hsa_amd_agents_allow_access(num_agents, agents, flags, ptr):
    session = runtime.require()
    if num_agents == 0 or agents == ffi.NULL or flags != ffi.NULL or ptr == ffi.NULL:
        raise InvalidArgument("num_agents is 0, agents or ptr is NULL, or flags is not NULL")
    handles = [a.handle for a in read_array(agents, "hsa_agent_t", num_agents, "agents")]
    session.memory.allow_access(handles, address(ptr))


@export("hsa_amd_pointer_info")
def hsa_amd_pointer_info(ptr, info, alloc, num_agents_accessible, accessible):
    session = runtime.require()
    require_pointer(ptr, "ptr")
    given = read(info, "uint32_t", "info")
    if given == 0:
        raise InvalidArgument("info->size is 0")
    found = session.memory.pointer_info(address(ptr))
    box = ffi.new("hsa_amd_pointer_info_t *")
    size = min(given, ffi.sizeof(box[0]))
    box.size = size
    box.type = int(found.type)
    box.agentBaseAddress = ffi.cast("void *", found.agent_base)
    box.hostBaseAddress = ffi.cast("void *", found.host_base)
    box.sizeInBytes = found.size
    box.userData = ffi.cast("void *", found.user_data)
    box.agentOwner.handle = found.owner.handle
    box.global_flags = found.global_flags
    # Members past the caller's `size` are left alone: the struct may only grow.
    write_bytes(info, bytes(ffi.buffer(box))[:size], size, "info")
    if alloc != ffi.NULL and num_agents_accessible != ffi.NULL and accessible != ffi.NULL:
        count = len(found.accessible)
        array = alloc(ffi.sizeof("hsa_agent_t") * count)
        if array == ffi.NULL:
            raise OutOfResources("the alloc callback returned NULL")
        handles = ffi.new("hsa_agent_t[]", [{"handle": a.handle} for a in found.accessible] or 1)
        write_bytes(array, bytes(ffi.buffer(handles))[:ffi.sizeof("hsa_agent_t") * count],
                    ffi.sizeof("hsa_agent_t") * count, "accessible array")
        write(num_agents_accessible, "uint32_t", count, "num_agents_accessible")
        write(accessible, "hsa_agent_t *", ffi.cast("hsa_agent_t *", array), "accessible")


@export("hsa_amd_pointer_info_set_userdata")
def hsa_amd_pointer_info_set_userdata(ptr, userdata):
    session = runtime.require()
    require_pointer(ptr, "ptr")
    session.memory.set_user_data(address(ptr), address(userdata))


@export("hsa_amd_memory_fill")
def hsa_amd_memory_fill(ptr, value, count):
    session = runtime.require()
    if ptr == ffi.NULL or address(ptr) % 4:
        raise InvalidArgument("ptr is NULL or not 4-byte aligned")
    if count:
        session.memory.fill(address(ptr), value, count)


@export("hsa_amd_memory_pool_can_migrate")
def hsa_amd_memory_pool_can_migrate(src_memory_pool, dst_memory_pool, result):
    session = runtime.require()
    require_pointer(result, "result")
    session.memory.pool(src_memory_pool.handle)
    session.memory.pool(dst_memory_pool.handle)
    # ROCr implements no migration: it answers false and HSA_STATUS_ERROR_OUT_OF_RESOURCES.
    write(result, "bool", False, "result")
    raise OutOfResources("migration between memory pools is not supported (as in ROCr)")


@export("hsa_amd_memory_migrate")
def hsa_amd_memory_migrate(ptr, memory_pool, flags):
    session = runtime.require()
    if ptr == ffi.NULL or flags != 0:
        raise InvalidArgument("ptr is NULL or flags is not 0")
    session.memory.pool(memory_pool.handle)
    raise OutOfResources("migration between memory pools is not supported (as in ROCr)")


@export("hsa_amd_coherency_get_type")
def hsa_amd_coherency_get_type(agent, type):
    session = runtime.require()
    found = session.agents.get(agent.handle)
    require_pointer(type, "type")
    if not found.is_gpu:
        raise InvalidAgent("coherency applies to GPU agents only")
    write(type, "hsa_amd_coherency_type_t", int(session.memory.coherency[found]), "type")


@export("hsa_amd_coherency_set_type")
def hsa_amd_coherency_set_type(agent, type):
    session = runtime.require()
    found = session.agents.get(agent.handle)
    if not Coherency.COHERENT <= int(type) <= Coherency.NONCOHERENT:
        raise InvalidArgument(f"{int(type)} is not an hsa_amd_coherency_type_t")
    if not found.is_gpu:
        raise InvalidAgent("coherency applies to GPU agents only")
    session.memory.coherency[found] = Coherency(int(type))


@export("hsa_amd_register_deallocation_callback")
def hsa_amd_register_deallocation_callback(ptr, callback, user_data):
    session = runtime.require()
    require_pointer(ptr, "ptr")
    require_pointer(callback, "callback")

    def notify(address, data):
        callback(ffi.cast("void *", address), ffi.cast("void *", data))

    session.memory.register_callback(address(ptr), address(callback), notify, address(user_data))


@export("hsa_amd_deregister_deallocation_callback")
def hsa_amd_deregister_deallocation_callback(ptr, callback):
    session = runtime.require()
    require_pointer(ptr, "ptr")
    require_pointer(callback, "callback")
    session.memory.deregister_callback(address(ptr), address(callback))
