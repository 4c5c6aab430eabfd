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


# hsa_amd_iommu_version_t (the type of AmdAgentInfoLater.IOMMU_SUPPORT).
IOMMU_SUPPORT_NONE = 0
