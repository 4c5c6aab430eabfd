"""ABI numbers of the HSA runtime: the one Python-side source of truth.

Enumerations come from the official headers through the generated hsa_enums module
(prefixes dropped: Status.ERROR_INVALID_SIGNAL is HSA_STATUS_ERROR_INVALID_SIGNAL).
Layouts of structures SoftGPU reads from memory (AQL packets, amd_queue_t, kernel
descriptors) are numpy dtypes declared here.
"""
import enum

import numpy as np

from softgpu_shim.hsa_enums import *  # noqa: F401,F403  (re-exported under their generated names)
from softgpu_shim.hsa_enums import (HsaStatus, HsaExtStatusError, HsaAgentInfo, HsaAmdAgentInfo,
                                    HsaSystemInfo, HsaPacketType, HsaSignalCondition)

Status = HsaStatus
ExtStatus = HsaExtStatusError
AgentInfo = HsaAgentInfo
AmdAgentInfo = HsaAmdAgentInfo
SystemInfo = HsaSystemInfo
PacketType = HsaPacketType
SignalCondition = HsaSignalCondition

# Timestamps (HSA_SYSTEM_INFO_TIMESTAMP, signal wait timeouts, profiling) count
# nanoseconds of CLOCK_MONOTONIC, the clock the C fast path uses.
TIMESTAMP_FREQUENCY_HZ = 1_000_000_000

AQL_PACKET_SIZE = 64

KERNEL_DISPATCH_PACKET = np.dtype([
    ("header", "<u2"), ("setup", "<u2"),
    ("workgroup_size_x", "<u2"), ("workgroup_size_y", "<u2"), ("workgroup_size_z", "<u2"),
    ("reserved0", "<u2"),
    ("grid_size_x", "<u4"), ("grid_size_y", "<u4"), ("grid_size_z", "<u4"),
    ("private_segment_size", "<u4"), ("group_segment_size", "<u4"),
    ("kernel_object", "<u8"), ("kernarg_address", "<u8"), ("reserved2", "<u8"),
    ("completion_signal", "<u8"),
])
assert KERNEL_DISPATCH_PACKET.itemsize == AQL_PACKET_SIZE

# The 64-byte AMDHSA kernel descriptor (code object v3+), as LLVM's AMDGPUUsage lays it out.
KERNEL_DESCRIPTOR_SIZE = 64
KERNEL_DESCRIPTOR = np.dtype([
    ("group_segment_fixed_size", "<u4"), ("private_segment_fixed_size", "<u4"),
    ("kernarg_size", "<u4"), ("reserved0", "u1", (4,)),
    ("kernel_code_entry_byte_offset", "<i8"), ("reserved1", "u1", (20,)),
    ("compute_pgm_rsrc3", "<u4"), ("compute_pgm_rsrc1", "<u4"), ("compute_pgm_rsrc2", "<u4"),
    ("kernel_code_properties", "<u2"), ("reserved2", "u1", (6,)),
])
assert KERNEL_DESCRIPTOR.itemsize == KERNEL_DESCRIPTOR_SIZE


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

    Answered, like AmdAgentInfoLater, with what SoftGPU offers: none of the features they
    report (dmabuf export, the virtual memory API, XNACK, mwaitx) exists in the 5.2.3 ABI.
    """
    MWAITX_ENABLED = 0x203
    DMABUF_SUPPORTED = 0x204
    VIRTUAL_MEM_API_SUPPORTED = 0x205
    XNACK_ENABLED = 0x206
    EXT_VERSION_MAJOR = 0x207
    EXT_VERSION_MINOR = 0x208


# HSA_AMD_INTERFACE_VERSION_{MAJOR,MINOR} of the 5.2.3 hsa_ext_amd.h: the AMD extension
# interface SoftGPU exports (later minors add dmabuf, copy engines, virtual memory).
AMD_INTERFACE_VERSION = (1, 0)


class AmdMemoryPoolInfoLater(enum.IntEnum):
    """HSA_AMD_MEMORY_POOL_INFO_* of ROCm releases after the 5.2.3 headers, answered as
    those releases do (ROCr 5.2.3 rejects them with HSA_STATUS_ERROR_INVALID_ARGUMENT)."""
    LOCATION = 17
    RUNTIME_ALLOC_REC_GRANULE = 18


class AmdMemoryPoolLocation(enum.IntEnum):
    """hsa_amd_memory_pool_location_t (the type of AmdMemoryPoolInfoLater.LOCATION)."""
    CPU = 0
    GPU = 1


# hsa_amd_iommu_version_t (the type of AmdAgentInfoLater.IOMMU_SUPPORT).
IOMMU_SUPPORT_NONE = 0
