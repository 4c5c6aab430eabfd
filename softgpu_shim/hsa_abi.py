"""ABI numbers of the HSA runtime: the one Python-side source of truth.

Enumerations come from the official headers through the generated hsa_enums module
(prefixes dropped: Status.ERROR_INVALID_SIGNAL is HSA_STATUS_ERROR_INVALID_SIGNAL).
Layouts of structures SoftGPU reads from memory (AQL packets, amd_queue_t, kernel
descriptors) are numpy dtypes declared here.

Enumerations and dtypes are made on first use (a module __getattr__), so that importing
this module costs neither numpy (about 60 ms) nor 88 enum classes (17 ms): hsa_init needs
neither.
"""
import enum
import threading

from softgpu_shim import hsa_enums

# Short names of the enumerations every part uses.
_ALIASES = {"Status": "HsaStatus", "ExtStatus": "HsaExtStatusError", "AgentInfo": "HsaAgentInfo",
            "AmdAgentInfo": "HsaAmdAgentInfo", "SystemInfo": "HsaSystemInfo",
            "PacketType": "HsaPacketType", "SignalCondition": "HsaSignalCondition"}
_lock = threading.Lock()


def __getattr__(name):
    """An enumeration under its generated or short name, or a structure's dtype."""
    generated = _ALIASES.get(name, name)
    if name not in _DTYPES and generated not in hsa_enums.MEMBERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _lock:  # one object per name, even when two threads ask first at once
        if name not in globals():
            if name in _DTYPES:
                globals().update(_dtypes())
            else:
                globals()[name] = globals().get(generated) or enum.IntEnum(
                    generated, hsa_enums.MEMBERS[generated], module=__name__, qualname=generated)
                globals()[generated] = globals()[name]
        return globals()[name]


def __dir__():
    return sorted(set(globals()) | set(_ALIASES) | set(_DTYPES) | set(hsa_enums.MEMBERS))


# Timestamps (HSA_SYSTEM_INFO_TIMESTAMP, signal wait timeouts, profiling) count
# nanoseconds of CLOCK_MONOTONIC, the clock the C fast path uses.
TIMESTAMP_FREQUENCY_HZ = 1_000_000_000

AQL_PACKET_SIZE = 64

# The 64-byte AMDHSA kernel descriptor (code object v3+), as LLVM's AMDGPUUsage lays it out.
KERNEL_DESCRIPTOR_SIZE = 64
_DTYPES = ("KERNEL_DISPATCH_PACKET", "KERNEL_DESCRIPTOR")


def _dtypes():
    import numpy as np
    dispatch = np.dtype([
        ("header", "<u2"), ("setup", "<u2"),
        ("workgroup_size_x", "<u2"), ("workgroup_size_y", "<u2"), ("workgroup_size_z", "<u2"),
        ("reserved0", "<u2"),
        ("grid_size_x", "<u4"), ("grid_size_y", "<u4"), ("grid_size_z", "<u4"),
        ("private_segment_size", "<u4"), ("group_segment_size", "<u4"),
        ("kernel_object", "<u8"), ("kernarg_address", "<u8"), ("reserved2", "<u8"),
        ("completion_signal", "<u8"),
    ])
    descriptor = np.dtype([
        ("group_segment_fixed_size", "<u4"), ("private_segment_fixed_size", "<u4"),
        ("kernarg_size", "<u4"), ("reserved0", "u1", (4,)),
        ("kernel_code_entry_byte_offset", "<i8"), ("reserved1", "u1", (20,)),
        ("compute_pgm_rsrc3", "<u4"), ("compute_pgm_rsrc1", "<u4"), ("compute_pgm_rsrc2", "<u4"),
        ("kernel_code_properties", "<u2"), ("reserved2", "u1", (6,)),
    ])
    assert dispatch.itemsize == AQL_PACKET_SIZE and descriptor.itemsize == KERNEL_DESCRIPTOR_SIZE
    return {"KERNEL_DISPATCH_PACKET": dispatch, "KERNEL_DESCRIPTOR": descriptor}


class AmdAgentInfoLater(enum.IntEnum):
    """HSA_AMD_AGENT_INFO_* of ROCm releases after the 5.2.3 headers (their hsa_ext_amd.h).

    Answered so that clients built against newer headers read values; ROCr 5.2.3 itself
    rejects them with HSA_STATUS_ERROR_INVALID_ARGUMENT.
    """
    MEMORY_AVAIL = 0xA015
    TIMESTAMP_FREQUENCY = 0xA016
    ASIC_FAMILY_ID = 0xA107
    UCODE_VERSION = 0xA108
    SDMA_UCODE_VERSION = 0xA109
    NUM_SDMA_ENG = 0xA10A
    NUM_SDMA_XGMI_ENG = 0xA10B
    IOMMU_SUPPORT = 0xA110
    NUM_XCC = 0xA111
    DRIVER_UID = 0xA112
    NEAREST_CPU = 0xA113
    MEMORY_PROPERTIES = 0xA114
    AQL_EXTENSIONS = 0xA115


# HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES and _AQL_EXTENSIONS are uint8_t[8] bit masks.
AGENT_BITMASK_BYTES = 8


class AmdSystemInfoLater(enum.IntEnum):
    """HSA_AMD_SYSTEM_INFO_* of ROCm releases after the 5.2.3 headers (their hsa.h).

    Answered, like AmdAgentInfoLater, with what SoftGPU offers: dmabuf export and the virtual
    memory API (core.memory.vmem) yes, XNACK and mwaitx no.
    """
    MWAITX_ENABLED = 0x203
    DMABUF_SUPPORTED = 0x204
    VIRTUAL_MEM_API_SUPPORTED = 0x205
    XNACK_ENABLED = 0x206
    EXT_VERSION_MAJOR = 0x207
    EXT_VERSION_MINOR = 0x208


# HSA_AMD_INTERFACE_VERSION_{MAJOR,MINOR} of the newest hsa_ext_amd.h (softgpu_shim/include):
# the AMD extension interface SoftGPU exports, dmabuf, copy engines and virtual memory included.
AMD_INTERFACE_VERSION = (1, 11)


class AmdMemoryPoolInfoLater(enum.IntEnum):
    """HSA_AMD_MEMORY_POOL_INFO_* of ROCm releases after the 5.2.3 headers, answered as
    those releases do (ROCr 5.2.3 rejects them with HSA_STATUS_ERROR_INVALID_ARGUMENT)."""
    LOCATION = 17
    RUNTIME_ALLOC_REC_GRANULE = 18


class AmdMemoryPoolLocation(enum.IntEnum):
    """hsa_amd_memory_pool_location_t (the type of AmdMemoryPoolInfoLater.LOCATION)."""
    CPU = 0
    GPU = 1


class AccessPermission(enum.IntEnum):
    """hsa_access_permission_t of the newest hsa.h: NONE (0) is new there, the others are 5.2.3's."""
    NONE = 0
    RO = 1
    WO = 2
    RW = 3


class AmdMemoryType(enum.IntEnum):
    """hsa_amd_memory_type_t (hsa_amd_vmem_handle_create), newer than the 5.2.3 headers."""
    NONE = 0
    PINNED = 1


# HSA_EXT_POINTER_TYPE_RESERVED_ADDR of the newest hsa_amd_pointer_type_t: address space with
# no memory behind it (what ROCr's pointer info says of a reserved range).
POINTER_TYPE_RESERVED_ADDR = 5

# hsa_amd_vmem_address_reserve_flag_t: a range the driver is not told of (interface 1.10).
VMEM_ADDRESS_NO_REGISTER = 1 << 0


class AmdDmaBufMappingType(enum.IntEnum):
    """hsa_amd_dma_buf_mapping_type_t (hsa_amd_portable_export_dmabuf_v2's flags)."""
    NONE = 0
    PCIE = 1


# hsa_amd_iommu_version_t (the type of AmdAgentInfoLater.IOMMU_SUPPORT).
IOMMU_SUPPORT_NONE = 0
