"""Agents, caches, ISAs and wavefronts: hsa_iterate_agents, hsa_agent_get_info, hsa_isa_*, ...

Holds these invariants:
- arguments are checked in ROCr's order (hsa.cpp), so each bad input gets the status ROCr
  gives it: a NULL out-pointer before a bad handle where ROCr checks it first, and so on;
- every attribute a CPU or GPU agent answers in ROCr 5.2 is answered here from the
  profile, and where the newest ROCr answers more for the CPU agent (SVM direct host
  access), as it does; an attribute ROCr rejects for that kind of agent is
  INVALID_ARGUMENT here too;
- an iteration stops at the first callback status other than SUCCESS and returns it
  (HSA_STATUS_INFO_BREAK included), as ROCr does.
Where the spec and ROCr differ, ROCr wins: hsa_cache_get_info writes the name as a
const char * and the size in KiB, hsa_agent_iterate_isas on the CPU agent succeeds without
a callback.
"""
import weakref

from _softgpu_hsa import ffi, lib

from core import runtime
from core.errors import InvalidAgent, InvalidArgument, InvalidIndex
from core.isa.clocks import REFERENCE_CLOCK_HZ, realtime_ticks
from softgpu_shim.api.out import (callback as require_callback, read_string, require_pointer, write, write_bytes,
                                  write_struct)
from softgpu_shim.api.system import (EXTENSION_BITMASK_BYTES, HSA_VERSION, SYSTEM_EXTENSIONS, check_extension_id,
                                     extension_bitmask, version_supported)
from core.hsa_abi import (AGENT_BITMASK_BYTES, AgentInfo, AmdAgentInfo,
                          HsaAgentFeature, HsaCacheInfo, HsaDefaultFloatRoundingMode,
                          HsaDeviceType, HsaExtAgentInfo, HsaFlushMode, HsaFpType, HsaIsaInfo, HsaMachineModel, HsaProfile, HsaQueueType,
                          HsaAmdIommuVersion as IommuVersion, HsaRoundMethod, HsaWavefrontInfo, Status,
                          TIMESTAMP_FREQUENCY_HZ)
from softgpu_shim.registry import export

NAME_BYTES = 64     # HSA_AGENT_INFO_NAME, VENDOR_NAME and HSA_AMD_AGENT_INFO_PRODUCT_NAME
GPU_NAME_BYTES = 63  # ROCr's GPU agent clears 63 bytes for its NAME and VENDOR_NAME, not 64
KIB = 1024
# The APU ISAs whose code objects ROCr also accepts in the full profile.
FULL_PROFILE_PROCESSORS = ("gfx700", "gfx801")
ISA_NAME_LIMIT = 63  # ROCr's ISA names fit its 64-byte name arrays: a longer one is unknown

# The HDP flush registers a client may write to: plain host words here, one pair per GPU.
_HDP_REGISTERS = weakref.WeakKeyDictionary()


def _session():
    return runtime.require()


def _agent(handle_struct):
    return _session().agents.get(handle_struct.handle)


def _struct(ctype, handle):
    return ffi.new(ctype + " *", {"handle": handle})[0]


def _encode(ctype, data):
    """The bytes of `data` as `ctype` ("uint32_t", "uint16_t[3]", "char[64]", "hsa_dim3_t", ...);
    a char array is NUL padded."""
    if ctype.startswith("char["):
        return data[:ffi.sizeof(ctype)].ljust(ffi.sizeof(ctype), b"\0")
    return ffi.buffer(ffi.new(ctype if ctype.endswith("]") else ctype + " *", data))[:]


def _put(value, ctype, data):
    """Write `data` as `ctype` at `value`; returns the bytes written."""
    encoded = _encode(ctype, data)
    write_bytes(value, encoded, len(encoded), "value")
    return encoded


def _iterate(handles, ctype, callback, data):
    """Call `callback(<ctype>{handle}, data)` for each handle; stop at the first non-SUCCESS."""
    for handle in handles:
        status = callback(_struct(ctype, handle), data)
        if status != Status.SUCCESS:
            return status
    return Status.SUCCESS


# ---- agents ----------------------------------------------------------------------------

@export("hsa_iterate_agents")
def hsa_iterate_agents(callback, data):
    require_callback(callback)
    return _iterate([agent.handle for agent in _session().agents.all], "hsa_agent_t", callback, data)


def _name(text):
    return text.encode()


def _hdp_flush(agent):
    registers = _HDP_REGISTERS.setdefault(agent, ffi.new("uint32_t[2]"))
    return {"HDP_MEM_FLUSH_CNTL": registers, "HDP_REG_FLUSH_CNTL": registers + 1}


def _memory_avail(agent):
    """Free bytes of the agent's own pools (ROCr: what KFD says is free on the device)."""
    budgets = {id(p.budget): p.budget for p in _session().memory.pools_of(agent) if p.budget is not None}
    return sum(budget.size - budget.used for budget in budgets.values())


def _image_dims(key):
    return lambda a: a.spec["images"][key]


_AGENT_MASK = f"uint8_t[{AGENT_BITMASK_BYTES}]"      # MEMORY_PROPERTIES, AQL_EXTENSIONS

# attribute -> (ctype, answer(agent)), for what CPU and GPU agents answer alike.
_COMMON = {
    AgentInfo.NAME: (f"char[{NAME_BYTES}]", lambda a: _name(a.name)),
    AgentInfo.VENDOR_NAME: (f"char[{NAME_BYTES}]", lambda a: _name(a.spec["vendor"])),
    AgentInfo.MACHINE_MODEL: ("hsa_machine_model_t", lambda a: HsaMachineModel.LARGE),
    AgentInfo.DEFAULT_FLOAT_ROUNDING_MODE: ("hsa_default_float_rounding_mode_t",
                                            lambda a: HsaDefaultFloatRoundingMode.NEAR),
    AgentInfo.BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: ("hsa_default_float_rounding_mode_t",
                                                          lambda a: HsaDefaultFloatRoundingMode.NEAR),
    AgentInfo.QUEUE_TYPE: ("hsa_queue_type32_t", lambda a: HsaQueueType.MULTI),
    AgentInfo.NODE: ("uint32_t", lambda a: a.node),
    AgentInfo.CACHE_SIZE: ("uint32_t[4]", lambda a: a.cache_sizes()),
    AgentInfo.VERSION_MAJOR: ("uint16_t", lambda a: HSA_VERSION[0]),
    AgentInfo.VERSION_MINOR: ("uint16_t", lambda a: HSA_VERSION[1]),
    AmdAgentInfo.CACHELINE_SIZE: ("uint32_t", lambda a: a.spec["cacheline_bytes"]),
    AmdAgentInfo.COMPUTE_UNIT_COUNT: ("uint32_t", lambda a: a.spec["compute_units"]),
    AmdAgentInfo.MAX_CLOCK_FREQUENCY: ("uint32_t", lambda a: a.spec["max_clock_mhz"]),
    AmdAgentInfo.DRIVER_NODE_ID: ("uint32_t", lambda a: a.node),
    # No agent is an APU (the one memory property) and no AQL extension exists yet.
    AmdAgentInfo.MEMORY_PROPERTIES: (_AGENT_MASK, lambda a: bytes(AGENT_BITMASK_BYTES)),
    AmdAgentInfo.AQL_EXTENSIONS: (_AGENT_MASK, lambda a: bytes(AGENT_BITMASK_BYTES)),
}

_CPU = {**_COMMON, **{
    AgentInfo.FEATURE: ("hsa_agent_feature_t", lambda a: 0),
    AgentInfo.PROFILE: ("hsa_profile_t", lambda a: HsaProfile.FULL),
    AgentInfo.FAST_F16_OPERATION: ("bool", lambda a: False),
    AgentInfo.WAVEFRONT_SIZE: ("uint32_t", lambda a: 0),
    AgentInfo.WORKGROUP_MAX_DIM: ("uint16_t[3]", lambda a: [0, 0, 0]),
    AgentInfo.WORKGROUP_MAX_SIZE: ("uint32_t", lambda a: 0),
    AgentInfo.GRID_MAX_DIM: ("hsa_dim3_t", lambda a: {}),
    AgentInfo.GRID_MAX_SIZE: ("uint32_t", lambda a: 0),
    AgentInfo.FBARRIER_MAX_SIZE: ("uint32_t", lambda a: 0),
    AgentInfo.QUEUES_MAX: ("uint32_t", lambda a: 0),
    AgentInfo.QUEUE_MIN_SIZE: ("uint32_t", lambda a: 0),
    AgentInfo.QUEUE_MAX_SIZE: ("uint32_t", lambda a: 0),
    AgentInfo.DEVICE: ("hsa_device_type_t", lambda a: HsaDeviceType.CPU),
    AgentInfo.ISA: ("hsa_isa_t", lambda a: {"handle": 0}),
    AgentInfo.EXTENSIONS: (f"uint8_t[{EXTENSION_BITMASK_BYTES}]", lambda a: bytes(EXTENSION_BITMASK_BYTES)),
    AmdAgentInfo.TIMESTAMP_FREQUENCY: ("uint64_t", lambda a: TIMESTAMP_FREQUENCY_HZ),
    HsaExtAgentInfo.IMAGE_1D_MAX_ELEMENTS: ("uint32_t", lambda a: 0),
    HsaExtAgentInfo.IMAGE_1DA_MAX_ELEMENTS: ("uint32_t", lambda a: 0),
    HsaExtAgentInfo.IMAGE_1DB_MAX_ELEMENTS: ("uint32_t", lambda a: 0),
    HsaExtAgentInfo.IMAGE_2D_MAX_ELEMENTS: ("uint32_t[2]", lambda a: [0, 0]),
    HsaExtAgentInfo.IMAGE_2DA_MAX_ELEMENTS: ("uint32_t[2]", lambda a: [0, 0]),
    HsaExtAgentInfo.IMAGE_2DDEPTH_MAX_ELEMENTS: ("uint32_t[2]", lambda a: [0, 0]),
    HsaExtAgentInfo.IMAGE_2DADEPTH_MAX_ELEMENTS: ("uint32_t[2]", lambda a: [0, 0]),
    HsaExtAgentInfo.IMAGE_3D_MAX_ELEMENTS: ("uint32_t[3]", lambda a: [0, 0, 0]),
    HsaExtAgentInfo.IMAGE_ARRAY_MAX_LAYERS: ("uint32_t", lambda a: 0),
    HsaExtAgentInfo.MAX_IMAGE_RD_HANDLES: ("uint32_t", lambda a: 0),
    HsaExtAgentInfo.MAX_IMAGE_RORW_HANDLES: ("uint32_t", lambda a: 0),
    HsaExtAgentInfo.MAX_SAMPLER_HANDLERS: ("uint32_t", lambda a: 0),
    AmdAgentInfo.CHIP_ID: ("uint32_t", lambda a: 0),
    AmdAgentInfo.MAX_ADDRESS_WATCH_POINTS: ("uint32_t", lambda a: 1),   # 1 << 0 watch-point bits
    AmdAgentInfo.BDFID: ("uint32_t", lambda a: 0),
    AmdAgentInfo.PRODUCT_NAME: (f"char[{NAME_BYTES}]", lambda a: _name(a.name)),
    AmdAgentInfo.MAX_WAVES_PER_CU: ("uint32_t", lambda a: 0),
    AmdAgentInfo.NUM_SIMDS_PER_CU: ("uint32_t", lambda a: 0),
    AmdAgentInfo.NUM_SHADER_ENGINES: ("uint32_t", lambda a: 0),
    AmdAgentInfo.NUM_SHADER_ARRAYS_PER_SE: ("uint32_t", lambda a: 0),
    AmdAgentInfo.HDP_FLUSH: ("hsa_amd_hdp_flush_t", lambda a: {}),
    AmdAgentInfo.DOMAIN: ("uint32_t", lambda a: 0),
    AmdAgentInfo.UUID: ("char[7]", lambda a: b"CPU-XX"),
    AmdAgentInfo.ASIC_REVISION: ("uint32_t", lambda a: 0),
    # ROCr 5.2.3's CPU agent refused this; later ones answer true (the host reaches its own
    # memory), and rocminfo 7 asks every agent for it before it lists any.
    AmdAgentInfo.SVM_DIRECT_HOST_ACCESS: ("bool", lambda a: True),
    AmdAgentInfo.ASIC_FAMILY_ID: ("uint32_t", lambda a: 0),
    AmdAgentInfo.UCODE_VERSION: ("uint32_t", lambda a: 0),
    AmdAgentInfo.SDMA_UCODE_VERSION: ("uint32_t", lambda a: 0),
    AmdAgentInfo.NUM_SDMA_ENG: ("uint32_t", lambda a: 0),
    AmdAgentInfo.NUM_SDMA_XGMI_ENG: ("uint32_t", lambda a: 0),
    AmdAgentInfo.IOMMU_SUPPORT: ("uint32_t", lambda a: IommuVersion.NONE),
    AmdAgentInfo.NUM_XCC: ("uint32_t", lambda a: 0),
    AmdAgentInfo.DRIVER_UID: ("uint32_t", lambda a: 0),
    AmdAgentInfo.NEAREST_CPU: ("hsa_agent_t", lambda a: {"handle": 0}),
    # The newest ROCr's CPU agent answers its GPU-only attributes with zeros (rocminfo 7 asks).
    AmdAgentInfo.SCRATCH_LIMIT_MAX: ("uint64_t", lambda a: 0),
    AmdAgentInfo.SCRATCH_LIMIT_CURRENT: ("uint64_t", lambda a: 0),
    AmdAgentInfo.CLOCK_COUNTERS: ("hsa_amd_clock_counters_t", lambda a: {}),
}}

_GPU = {**_COMMON, **{
    AgentInfo.NAME: (f"char[{GPU_NAME_BYTES}]", lambda a: _name(a.name)),
    AgentInfo.VENDOR_NAME: (f"char[{GPU_NAME_BYTES}]", lambda a: _name(a.spec["vendor"])),
    AgentInfo.FEATURE: ("hsa_agent_feature_t", lambda a: HsaAgentFeature.KERNEL_DISPATCH),
    # A discrete GPU: ROCr reports the base profile unless the GPU is an APU.
    AgentInfo.PROFILE: ("hsa_profile_t", lambda a: HsaProfile.BASE),
    AgentInfo.FAST_F16_OPERATION: ("bool", lambda a: True),
    AgentInfo.WAVEFRONT_SIZE: ("uint32_t", lambda a: a.spec["wavefront_size"]),
    AgentInfo.WORKGROUP_MAX_DIM: ("uint16_t[3]", lambda a: a.spec["workgroup_max_dim"]),
    AgentInfo.WORKGROUP_MAX_SIZE: ("uint32_t", lambda a: a.spec["workgroup_max_size"]),
    AgentInfo.GRID_MAX_DIM: ("hsa_dim3_t", lambda a: dict(zip("xyz", a.spec["grid_max_dim"]))),
    AgentInfo.GRID_MAX_SIZE: ("uint32_t", lambda a: a.spec["grid_max_size"]),
    AgentInfo.FBARRIER_MAX_SIZE: ("uint32_t", lambda a: a.spec["fbarrier_max_size"]),
    AgentInfo.QUEUES_MAX: ("uint32_t", lambda a: a.spec["queues_max"]),
    AgentInfo.QUEUE_MIN_SIZE: ("uint32_t", lambda a: a.spec["queue_min_size"]),
    AgentInfo.QUEUE_MAX_SIZE: ("uint32_t", lambda a: a.spec["queue_max_size"]),
    AgentInfo.DEVICE: ("hsa_device_type_t", lambda a: HsaDeviceType.GPU),
    AgentInfo.ISA: ("hsa_isa_t", lambda a: {"handle": a.isa.handle}),
    AgentInfo.EXTENSIONS: (f"uint8_t[{EXTENSION_BITMASK_BYTES}]", lambda a: extension_bitmask(SYSTEM_EXTENSIONS)),
    # ROCr writes image limits as uint32_t (one per dimension) although the header says
    # size_t: its GPU agent forwards them to hsa_amd_image_get_info_max_dim, and HIP reads
    # them so (size_t pairs would give HIP a 2D height of 0 and refuse every 2D array).
    HsaExtAgentInfo.IMAGE_1D_MAX_ELEMENTS: ("uint32_t", _image_dims("max_1d")),
    HsaExtAgentInfo.IMAGE_1DA_MAX_ELEMENTS: ("uint32_t", _image_dims("max_1d")),
    HsaExtAgentInfo.IMAGE_1DB_MAX_ELEMENTS: ("uint32_t", _image_dims("max_1d_buffer")),
    HsaExtAgentInfo.IMAGE_2D_MAX_ELEMENTS: ("uint32_t[2]", _image_dims("max_2d")),
    HsaExtAgentInfo.IMAGE_2DA_MAX_ELEMENTS: ("uint32_t[2]", _image_dims("max_2d")),
    HsaExtAgentInfo.IMAGE_2DDEPTH_MAX_ELEMENTS: ("uint32_t[2]", _image_dims("max_2d")),
    HsaExtAgentInfo.IMAGE_2DADEPTH_MAX_ELEMENTS: ("uint32_t[2]", _image_dims("max_2d")),
    HsaExtAgentInfo.IMAGE_3D_MAX_ELEMENTS: ("uint32_t[3]", _image_dims("max_3d")),
    HsaExtAgentInfo.IMAGE_ARRAY_MAX_LAYERS: ("uint32_t", _image_dims("max_array_layers")),
    # So are the handle counts: a caller that passes a zeroed size_t reads the right value.
    HsaExtAgentInfo.MAX_IMAGE_RD_HANDLES: ("uint32_t", _image_dims("max_read_handles")),
    HsaExtAgentInfo.MAX_IMAGE_RORW_HANDLES: ("uint32_t", _image_dims("max_read_write_handles")),
    # ROCr 5.2.3's GPU agent falls through from this attribute into CHIP_ID (a missing
    # break), so clients of ROCr read the chip id here.
    HsaExtAgentInfo.MAX_SAMPLER_HANDLERS: ("uint32_t", lambda a: a.spec["chip_id"]),
    AmdAgentInfo.CHIP_ID: ("uint32_t", lambda a: a.spec["chip_id"]),
    AmdAgentInfo.MAX_ADDRESS_WATCH_POINTS: ("uint32_t", lambda a: a.spec["address_watch_points"]),
    AmdAgentInfo.BDFID: ("uint32_t", lambda a: a.bdfid),
    AmdAgentInfo.MEMORY_WIDTH: ("uint32_t", lambda a: a.spec["memory_width_bits"]),
    AmdAgentInfo.MEMORY_MAX_FREQUENCY: ("uint32_t", lambda a: a.spec["memory_max_clock_mhz"]),
    AmdAgentInfo.PRODUCT_NAME: (f"char[{NAME_BYTES}]", lambda a: _name(a.spec["marketing_name"])),
    AmdAgentInfo.MAX_WAVES_PER_CU: ("uint32_t", lambda a: a.spec["simds_per_cu"] * a.spec["waves_per_simd"]),
    AmdAgentInfo.NUM_SIMDS_PER_CU: ("uint32_t", lambda a: a.spec["simds_per_cu"]),
    AmdAgentInfo.NUM_SHADER_ENGINES: ("uint32_t", lambda a: a.spec["shader_engines"]),
    AmdAgentInfo.NUM_SHADER_ARRAYS_PER_SE: ("uint32_t", lambda a: a.spec["shader_arrays_per_engine"]),
    AmdAgentInfo.HDP_FLUSH: ("hsa_amd_hdp_flush_t", _hdp_flush),
    AmdAgentInfo.DOMAIN: ("uint32_t", lambda a: a.spec["domain"]),
    AmdAgentInfo.COOPERATIVE_QUEUES: ("bool", lambda a: a.spec["cooperative_queues"]),
    AmdAgentInfo.UUID: ("char[21]", lambda a: b"GPU-" + a.uuid.encode()),
    AmdAgentInfo.ASIC_REVISION: ("uint32_t", lambda a: a.spec["asic_revision"]),
    AmdAgentInfo.SVM_DIRECT_HOST_ACCESS: ("bool", lambda a: a.spec["svm_direct_host_access"]),
    AmdAgentInfo.COOPERATIVE_COMPUTE_UNIT_COUNT: ("uint32_t", lambda a: a.spec["compute_units"]),
    AmdAgentInfo.MEMORY_AVAIL: ("uint64_t", _memory_avail),
    # The rate of s_memrealtime, as later ROCr answers with the board's gpu_counter_freq.
    AmdAgentInfo.TIMESTAMP_FREQUENCY: ("uint64_t", lambda a: REFERENCE_CLOCK_HZ),
    AmdAgentInfo.ASIC_FAMILY_ID: ("uint32_t", lambda a: a.spec["family_id"]),
    AmdAgentInfo.UCODE_VERSION: ("uint32_t", lambda a: a.spec["ucode_version"]),
    AmdAgentInfo.SDMA_UCODE_VERSION: ("uint32_t", lambda a: a.spec["sdma_ucode_version"]),
    AmdAgentInfo.NUM_SDMA_ENG: ("uint32_t", lambda a: a.spec["sdma_engines"]),
    AmdAgentInfo.NUM_SDMA_XGMI_ENG: ("uint32_t", lambda a: a.spec["sdma_xgmi_engines"]),
    AmdAgentInfo.IOMMU_SUPPORT: ("uint32_t", lambda a: IommuVersion.NONE),
    AmdAgentInfo.NUM_XCC: ("uint32_t", lambda a: a.spec.get("xccs", 1)),
    AmdAgentInfo.DRIVER_UID: ("uint32_t", lambda a: a.node),
    AmdAgentInfo.NEAREST_CPU: ("hsa_agent_t", lambda a: {"handle": _session().agents.cpu.handle}),
    # ROCr: the scratch aperture, 4 GiB per XCC; the async-reclaim threshold stays 0 on every
    # ISA but gfx94x/gfx95x (where CP firmware reclaims scratch), so on every profile here.
    AmdAgentInfo.SCRATCH_LIMIT_MAX: ("uint64_t",
                                     lambda a: SCRATCH_APERTURE_PER_XCC * a.spec.get("xccs", 1)),
    AmdAgentInfo.SCRATCH_LIMIT_CURRENT: ("uint64_t", lambda a: 0),
    AmdAgentInfo.CLOCK_COUNTERS: ("hsa_amd_clock_counters_t", lambda a: _clock_counters()),
}}


def _clock_counters():
    """KFD's clock counters read together: the GPU's s_memrealtime ticks and the host's
    nanosecond clock, which is also SoftGPU's system timestamp (its frequency given)."""
    now = lib.sg_now_ns()
    return {"gpu_clock_counter": realtime_ticks(), "cpu_clock_counter": now,
            "system_clock_counter": now, "system_clock_frequency": TIMESTAMP_FREQUENCY_HZ}


SCRATCH_APERTURE_PER_XCC = 1 << 32


@export("hsa_amd_agent_set_async_scratch_limit")
def hsa_amd_agent_set_async_scratch_limit(agent, threshold):
    """ROCr 6.2+: a GPU agent's use-once scratch threshold, settable only where CP firmware
    reclaims scratch asynchronously (gfx94x/gfx95x with recent firmware); on every other GPU,
    so on every SoftGPU profile, ROCr answers INVALID_ARGUMENT."""
    if not _session().agents.get(agent.handle).is_gpu:
        raise InvalidAgent("the scratch limit belongs to a GPU agent")
    target = _session().agents.get(agent.handle)
    raise InvalidArgument(f"{target.isa_name}: no asynchronous scratch reclaim (threshold {threshold} not set)")


# Answers that change while the session lives (all others are remembered in C: answers.c).
_VOLATILE = frozenset((AmdAgentInfo.MEMORY_AVAIL, AmdAgentInfo.CLOCK_COUNTERS))


@export("sg_agent_get_info")
def hsa_agent_get_info(agent, attribute, value):
    """hsa_agent_get_info for what its C side (answers.c) does not remember."""
    require_pointer(value, "value")
    found = _agent(agent)
    answers = _GPU if found.is_gpu else _CPU
    if attribute not in answers:
        raise InvalidArgument(f"{attribute:#x} is not an attribute a {found.kind.upper()} agent answers")
    ctype, answer = answers[attribute]
    encoded = _put(value, ctype, answer(found))
    if attribute not in _VOLATILE:
        lib.sg_answer_remember(lib.SG_QUERY_AGENT_INFO, found.handle, attribute, encoded, len(encoded))


def _check_profile(profile):
    if profile not in (HsaProfile.BASE, HsaProfile.FULL):
        raise InvalidArgument(f"{profile} is not an hsa_profile_t")


@export("hsa_agent_get_exception_policies")
def hsa_agent_get_exception_policies(agent, profile, mask):
    require_pointer(mask, "mask")
    _check_profile(profile)
    _agent(agent)
    write(mask, "uint16_t", 0, "mask")   # ROCr supports no exception policy


@export("hsa_agent_extension_supported")
def hsa_agent_extension_supported(extension, agent, version_major, version_minor, result):
    check_extension_id(extension)
    require_pointer(result, "result")
    write(result, "bool", False, "result")
    # ROCr: a GPU agent supports every extension id at version 1.0, a CPU agent none.
    if _agent(agent).is_gpu:
        write(result, "bool", version_supported(version_major, version_minor), "result")


@export("hsa_agent_major_extension_supported")
def hsa_agent_major_extension_supported(extension, agent, version_major, version_minor, result):
    check_extension_id(extension)
    require_pointer(result, "result")
    write(result, "bool", False, "result")
    # ROCr reads version_minor only when it answers true (a GPU agent, major 1 or less).
    if _agent(agent).is_gpu and version_major <= HSA_VERSION[0]:
        write(version_minor, "uint16_t", 0, "version_minor")
        write(result, "bool", True, "result")


# ---- caches ----------------------------------------------------------------------------

@export("hsa_agent_iterate_caches")
def hsa_agent_iterate_caches(agent, callback, data):
    found = _agent(agent)
    require_callback(callback)
    return _iterate([cache.handle for cache in found.caches], "hsa_cache_t", callback, data)


# hsa_cache_get_info's NAME answers are pointers that must outlive the call: one per name.
_CACHE_NAMES = {}


def _cache_name(name):
    if name not in _CACHE_NAMES:
        _CACHE_NAMES[name] = ffi.new("char[]", name.encode())
    return _CACHE_NAMES[name]


@export("hsa_cache_get_info")
def hsa_cache_get_info(cache, attribute, value):
    found = _session().agents.cache(cache.handle)
    require_pointer(value, "value")
    # ROCr's answers: the name as a const char * (its own string), its length without the
    # NUL, and the size in KiB (the KFD topology's unit; HSA_AGENT_INFO_CACHE_SIZE is bytes).
    answers = {
        HsaCacheInfo.NAME_LENGTH: ("uint32_t", len(found.name.encode())),
        HsaCacheInfo.NAME: ("const char *", _cache_name(found.name)),
        HsaCacheInfo.LEVEL: ("uint8_t", found.level),
        HsaCacheInfo.SIZE: ("uint32_t", found.size // KIB),
    }
    if attribute not in answers:
        raise InvalidArgument(f"{attribute:#x} is not an hsa_cache_info_t attribute")
    _put(value, *answers[attribute])


# ---- ISAs and wavefronts ---------------------------------------------------------------

def _isa(isa):
    return _session().agents.isas.get(isa.handle)


@export("hsa_isa_from_name")
def hsa_isa_from_name(name, isa):
    require_pointer(name, "name")
    require_pointer(isa, "isa")
    text = read_string(name, ISA_NAME_LIMIT, "name").decode("utf-8", "replace")
    found = _session().agents.isas.from_name(text)
    write_struct(isa, "hsa_isa_t", "isa", handle=found.handle)


@export("hsa_agent_iterate_isas")
def hsa_agent_iterate_isas(agent, callback, data):
    require_callback(callback)
    found = _agent(agent)
    # The CPU agent has no ISA: ROCr answers SUCCESS without calling back.
    return _iterate([found.isa.handle] if found.isa else [], "hsa_isa_t", callback, data)


def _isa_answer(isa, attribute):
    """(ctype, value) of an hsa_isa_info_t attribute, deprecated ones included."""
    name = isa.name.encode()
    major = isa.target.major
    answers = {
        HsaIsaInfo.NAME_LENGTH: ("uint32_t", len(name) + 1),
        HsaIsaInfo.NAME: (f"char[{len(name) + 1}]", name),
        HsaIsaInfo.CALL_CONVENTION_COUNT: ("uint32_t", 1),
        # Deprecated: every ROCr writes 64 here, whatever the ISA's wavefronts (those are
        # hsa_isa_iterate_wavefronts' answer).
        HsaIsaInfo.CALL_CONVENTION_INFO_WAVEFRONT_SIZE: ("uint32_t", 64),
        HsaIsaInfo.CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT: ("uint32_t", isa.waves_per_cu),
        HsaIsaInfo.MACHINE_MODELS: ("bool[2]", [False, True]),          # [SMALL, LARGE]
        HsaIsaInfo.PROFILES: ("bool[2]", [True, isa.processor in FULL_PROFILE_PROCESSORS]),  # [BASE, FULL]
        HsaIsaInfo.DEFAULT_FLOAT_ROUNDING_MODES: ("bool[3]", [False, False, True]),   # NEAR only
        HsaIsaInfo.BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: ("bool[3]", [False, False, True]),
        HsaIsaInfo.FAST_F16_OPERATION: ("bool", major >= 8),
        HsaIsaInfo.WORKGROUP_MAX_DIM: ("uint16_t[3]", list(isa.WORKGROUP_MAX_DIM)),
        HsaIsaInfo.WORKGROUP_MAX_SIZE: ("uint32_t", isa.WORKGROUP_MAX_SIZE),
        HsaIsaInfo.GRID_MAX_DIM: ("hsa_dim3_t", dict(zip("xyz", isa.GRID_MAX_DIM))),
        HsaIsaInfo.GRID_MAX_SIZE: ("uint64_t", isa.GRID_MAX_SIZE),
        HsaIsaInfo.FBARRIER_MAX_SIZE: ("uint32_t", isa.FBARRIER_MAX_SIZE),
    }
    if attribute not in answers:
        raise InvalidArgument(f"{attribute:#x} is not an hsa_isa_info_t attribute")
    return answers[attribute]


@export("hsa_isa_get_info")
def hsa_isa_get_info(isa, attribute, index, value):
    require_pointer(value, "value")
    if index != 0:
        raise InvalidIndex(f"call convention index {index}: an ISA has only call convention 0")
    _put(value, *_isa_answer(_isa(isa), attribute))


@export("hsa_isa_get_info_alt")
def hsa_isa_get_info_alt(isa, attribute, value):
    require_pointer(value, "value")
    _put(value, *_isa_answer(_isa(isa), attribute))


@export("hsa_isa_get_exception_policies")
def hsa_isa_get_exception_policies(isa, profile, mask):
    _check_profile(profile)
    require_pointer(mask, "mask")
    _isa(isa)
    write(mask, "uint16_t", 0, "mask")


@export("hsa_isa_get_round_method")
def hsa_isa_get_round_method(isa, fp_type, flush_mode, round_method):
    if fp_type not in tuple(HsaFpType):
        raise InvalidArgument(f"{fp_type} is not an hsa_fp_type_t")
    if flush_mode not in tuple(HsaFlushMode):
        raise InvalidArgument(f"{flush_mode} is not an hsa_flush_mode_t")
    require_pointer(round_method, "round_method")
    _isa(isa)
    write(round_method, "hsa_round_method_t", HsaRoundMethod.SINGLE, "round_method")


@export("hsa_isa_compatible")
def hsa_isa_compatible(code_object_isa, agent_isa, result):
    require_pointer(result, "result")
    code = _isa(code_object_isa)
    write(result, "bool", code.compatible_with(_isa(agent_isa)), "result")


@export("hsa_isa_iterate_wavefronts")
def hsa_isa_iterate_wavefronts(isa, callback, data):
    require_callback(callback)
    found = _isa(isa)
    return _iterate([wavefront.handle for wavefront in found.wavefronts], "hsa_wavefront_t", callback, data)


@export("hsa_wavefront_get_info")
def hsa_wavefront_get_info(wavefront, attribute, value):
    require_pointer(value, "value")
    found = _session().agents.isas.wavefront(wavefront.handle)
    if attribute != HsaWavefrontInfo.SIZE:
        raise InvalidArgument(f"{attribute:#x} is not an hsa_wavefront_info_t attribute")
    write(value, "uint32_t", found.size, "value")
