"""`softgpu info` without a file: the system as rocminfo prints it, through the public API.

Holds these invariants:
- every figure comes from the HSA API a client calls (hsa_system_get_info, hsa_agent_get_info,
  the AMD pool, ISA, wavefront and cache queries) through the library with ctypes, so what
  this prints is exactly what a ROCm client sees; only the profile's fidelity notes, which no
  HSA attribute carries, come from the session;
- a failing call stops the listing with the call and its status, never a traceback.
"""
import ctypes

from core.hsa_abi import (AgentInfo, AmdAgentInfo, HsaAgentFeature, HsaAmdMemoryPoolGlobalFlag,
                          HsaAmdMemoryPoolInfo, HsaAmdSegment, HsaCacheInfo,
                          HsaDefaultFloatRoundingMode, HsaDeviceType, HsaIsaInfo, HsaProfile,
                          HsaQueueType, HsaWavefrontInfo, Status, SystemInfo)
from core.location import library_path

_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p)
RULE = "*******"


class ApiError(Exception):
    """An HSA call failed; the message names the call and its status."""


class Api:
    """The HSA calls the report makes, each checked."""

    def __init__(self):
        self.lib = ctypes.CDLL(library_path())

    def check(self, status, what):
        if status not in (Status.SUCCESS, Status.INFO_BREAK):
            raise ApiError(f"{what} failed: {Status(status).name if status in Status._value2member_map_ else status}")

    def get(self, function, handle, attribute, ctype):
        value = ctype()
        args = ([] if handle is None else [ctypes.c_uint64(handle)]) + [ctypes.c_int(attribute), ctypes.byref(value)]
        self.check(getattr(self.lib, function)(*args), f"{function}({attribute})")
        return value.value if hasattr(value, "value") else value

    def text(self, function, handle, attribute, size=64):
        buffer = ctypes.create_string_buffer(size)
        self.check(getattr(self.lib, function)(ctypes.c_uint64(handle), ctypes.c_int(attribute), buffer),
                   f"{function}({attribute})")
        return buffer.value.decode(errors="replace")

    def iterate(self, function, *handles):
        found = []
        callback = _CALLBACK(lambda handle, _data: found.append(handle) or 0)
        self.check(getattr(self.lib, function)(*[ctypes.c_uint64(h) for h in handles], callback, None),
                   function)
        return found


def _line(indent, label, value=""):
    """rocminfo's layout: labels indented by level, values in one column."""
    return ((" " * indent + label).ljust(33) + value).rstrip()


def _number(value):
    return f"{value}({value:#x})"


def report():
    """The lines of the listing (hsa_init and hsa_shut_down around it)."""
    api = Api()
    api.check(api.lib.hsa_init(), "hsa_init")
    try:
        return list(_system(api)) + [line for agent in _agents(api) for line in agent]
    finally:
        api.lib.hsa_shut_down()


def _system(api):
    major = api.get("hsa_system_get_info", None, SystemInfo.SYSTEM_INFO_VERSION_MAJOR, ctypes.c_uint16)
    minor = api.get("hsa_system_get_info", None, SystemInfo.SYSTEM_INFO_VERSION_MINOR, ctypes.c_uint16)
    yield _line(0, "Runtime Version:", f"{major}.{minor}")
    yield _line(0, "System Timestamp Freq.:",
                f"{api.get('hsa_system_get_info', None, SystemInfo.SYSTEM_INFO_TIMESTAMP_FREQUENCY, ctypes.c_uint64) / 1e6:g}MHz")
    yield _line(0, "Sig. Max Wait Duration:",
                f"{api.get('hsa_system_get_info', None, SystemInfo.SYSTEM_INFO_SIGNAL_MAX_WAIT, ctypes.c_uint64)} (ns)")
    yield _line(0, "Machine Model:", "LARGE")
    from core import runtime
    session = runtime.current()
    if session is not None:
        profile = session.profile
        yield _line(0, "SoftGPU Profile:", f"{profile.data['name']} ({profile.data.get('description', '')})")
        yield _line(0, "SoftGPU Fidelity:", f"{profile.data['fidelity']} (results exact, timing not modelled)")
        quirks = ", ".join(f"{k}={v}" for k, v in sorted(profile.data.get("quirks", {}).items()))
        yield _line(0, "SoftGPU Quirks:", quirks or "none")
    yield ""


def _agents(api):
    for number, agent in enumerate(api.iterate("hsa_iterate_agents"), 1):
        yield list(_agent(api, number, agent))


def _agent(api, number, agent):
    def info(attribute, ctype=ctypes.c_uint32):
        return api.get("hsa_agent_get_info", agent, attribute, ctype)

    gpu = info(AgentInfo.DEVICE) == HsaDeviceType.GPU
    yield RULE
    yield f"Agent {number}"
    yield RULE
    yield _line(2, "Name:", api.text("hsa_agent_get_info", agent, AgentInfo.NAME))
    uuid = api.text("hsa_agent_get_info", agent, AmdAgentInfo.UUID)
    yield _line(2, "Uuid:", uuid)
    yield _line(2, "Marketing Name:", api.text("hsa_agent_get_info", agent, AmdAgentInfo.PRODUCT_NAME))
    yield _line(2, "Vendor Name:", api.text("hsa_agent_get_info", agent, AgentInfo.VENDOR_NAME))
    feature = info(AgentInfo.FEATURE)
    yield _line(2, "Feature:", "KERNEL_DISPATCH" if feature & HsaAgentFeature.KERNEL_DISPATCH else "None specified")
    yield _line(2, "Profile:", HsaProfile(info(AgentInfo.PROFILE)).name + "_PROFILE")
    yield _line(2, "Float Round Mode:", HsaDefaultFloatRoundingMode(info(AgentInfo.DEFAULT_FLOAT_ROUNDING_MODE)).name)
    yield _line(2, "Max Queue Number:", _number(info(AgentInfo.QUEUES_MAX)))
    yield _line(2, "Queue Min Size:", _number(info(AgentInfo.QUEUE_MIN_SIZE)))
    yield _line(2, "Queue Max Size:", _number(info(AgentInfo.QUEUE_MAX_SIZE)))
    yield _line(2, "Queue Type:", HsaQueueType(info(AgentInfo.QUEUE_TYPE)).name)
    yield _line(2, "Node:", str(info(AgentInfo.NODE)))
    yield _line(2, "Device Type:", HsaDeviceType(info(AgentInfo.DEVICE)).name)
    yield _line(2, "Cache Info:")
    for cache in api.iterate("hsa_agent_iterate_caches", agent):
        level = api.get("hsa_cache_get_info", cache, HsaCacheInfo.LEVEL, ctypes.c_uint8)
        size = api.get("hsa_cache_get_info", cache, HsaCacheInfo.SIZE, ctypes.c_uint32)
        yield _line(4, f"L{level}:", f"{_number(size)} KB")
    yield _line(2, "Chip ID:", _number(info(AmdAgentInfo.CHIP_ID)))
    yield _line(2, "Cacheline Size:", str(info(AmdAgentInfo.CACHELINE_SIZE)))
    yield _line(2, "Max Clock Freq. (MHz):", str(info(AmdAgentInfo.MAX_CLOCK_FREQUENCY)))
    yield _line(2, "BDFID:", str(info(AmdAgentInfo.BDFID)))
    yield _line(2, "Compute Unit:", str(info(AmdAgentInfo.COMPUTE_UNIT_COUNT)))
    if gpu:
        yield _line(2, "SIMDs per CU:", str(info(AmdAgentInfo.NUM_SIMDS_PER_CU)))
        yield _line(2, "Shader Engines:", str(info(AmdAgentInfo.NUM_SHADER_ENGINES)))
        yield _line(2, "Shader Arrs. per Eng.:", str(info(AmdAgentInfo.NUM_SHADER_ARRAYS_PER_SE)))
        yield _line(2, "Max Waves Per CU:", _number(info(AmdAgentInfo.MAX_WAVES_PER_CU)))
        yield _line(2, "Wavefront Size:", _number(info(AgentInfo.WAVEFRONT_SIZE)))
        yield _line(2, "Workgroup Max Size:", _number(info(AgentInfo.WORKGROUP_MAX_SIZE)))
        dims = info(AgentInfo.WORKGROUP_MAX_DIM, ctypes.c_uint16 * 3)
        yield _line(2, "Workgroup Max Size per Dimension:")
        for axis, value in zip("xyz", dims):
            yield _line(4, axis, _number(value))
        yield _line(2, "Grid Max Size:", _number(info(AgentInfo.GRID_MAX_SIZE)))
        yield _line(2, "Cooperative Queues:", str(bool(info(AmdAgentInfo.COOPERATIVE_QUEUES, ctypes.c_bool))).upper())
    yield _line(2, "Pool Info:")
    for index, pool in enumerate(api.iterate("hsa_amd_agent_iterate_memory_pools", agent), 1):
        yield from _pool(api, index, pool)
    yield _line(2, "ISA Info:")
    isas = api.iterate("hsa_agent_iterate_isas", agent)
    for index, isa in enumerate(isas, 1):
        yield from _isa(api, index, isa)
    if not isas:
        yield _line(4, "N/A")


def _pool(api, index, pool):
    def info(attribute, ctype=ctypes.c_uint32):
        return api.get("hsa_amd_memory_pool_get_info", pool, attribute, ctype)

    segment = HsaAmdSegment(info(HsaAmdMemoryPoolInfo.SEGMENT))
    flags = info(HsaAmdMemoryPoolInfo.GLOBAL_FLAGS) if segment == HsaAmdSegment.GLOBAL else 0
    names = [f.name.replace("_", " ") for f in HsaAmdMemoryPoolGlobalFlag if flags & f]
    yield _line(4, f"Pool {index}")
    yield _line(6, "Segment:", segment.name + (f"; FLAGS: {', '.join(names)}" if names else ""))
    size = info(HsaAmdMemoryPoolInfo.SIZE, ctypes.c_size_t)
    yield _line(6, "Size:", f"{_number(size // 1024)} KB")
    yield _line(6, "Allocatable:", str(bool(info(HsaAmdMemoryPoolInfo.RUNTIME_ALLOC_ALLOWED, ctypes.c_bool))).upper())
    yield _line(6, "Alloc Granule:", f"{info(HsaAmdMemoryPoolInfo.RUNTIME_ALLOC_GRANULE, ctypes.c_size_t) // 1024}KB")
    yield _line(6, "Alloc Alignment:", f"{info(HsaAmdMemoryPoolInfo.RUNTIME_ALLOC_ALIGNMENT, ctypes.c_size_t) // 1024}KB")
    yield _line(6, "Accessible by all:", str(bool(info(HsaAmdMemoryPoolInfo.ACCESSIBLE_BY_ALL, ctypes.c_bool))).upper())


def _isa(api, index, isa):
    length = api.get("hsa_isa_get_info_alt", isa, HsaIsaInfo.NAME_LENGTH, ctypes.c_uint32)
    yield _line(4, f"ISA {index}")
    yield _line(6, "Name:", api.text("hsa_isa_get_info_alt", isa, HsaIsaInfo.NAME, max(length, 1) + 1))
    for wavefront in api.iterate("hsa_isa_iterate_wavefronts", isa):
        yield _line(6, "Wavefront Size:", str(api.get("hsa_wavefront_get_info", wavefront,
                                                      HsaWavefrontInfo.SIZE, ctypes.c_uint32)))
    size = api.get("hsa_isa_get_info_alt", isa, HsaIsaInfo.WORKGROUP_MAX_SIZE, ctypes.c_uint32)
    yield _line(6, "Workgroup Max Size:", _number(size))
