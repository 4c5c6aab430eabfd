"""ABI numbers of the HSA runtime: the one Python-side source of truth.

Enumerations come from the official headers through the generated hsa_enums module
(prefixes dropped: Status.ERROR_INVALID_SIGNAL is HSA_STATUS_ERROR_INVALID_SIGNAL).
Layouts of structures SoftGPU reads from memory (AQL packets, amd_queue_t, kernel
descriptors) are numpy dtypes declared here.

Enumerations and dtypes are made on first use (a module __getattr__), so that importing
this module costs neither numpy nor the making of every enum class: hsa_init needs
neither.
"""
import enum
import threading

from core import hsa_enums

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


# HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES and _AQL_EXTENSIONS are uint8_t[8] bit masks.
AGENT_BITMASK_BYTES = 8


# HSA_AMD_INTERFACE_VERSION_{MAJOR,MINOR} of the newest hsa_ext_amd.h (softgpu_shim/include):
# the AMD extension interface SoftGPU exports, dmabuf, copy engines and virtual memory included.
AMD_INTERFACE_VERSION = (1, 11)
