"""AQL packet formats and header decoding.

Holds two invariants:
- a packet is decoded from one snapshot of its 64 bytes, taken after its header was
  seen valid, so a producer rewriting a slot cannot tear what is executed;
- anything the packet processor cannot execute is a PacketError carrying the status
  ROCr's queue error handler reports for it (INVALID_PACKET_FORMAT for malformed
  headers and unknown types, INCOMPATIBLE_ARGUMENTS for bad dimensions,
  INVALID_ARGUMENT for oversized workgroups, INVALID_CODE_OBJECT for an unknown kernel
  object); a group segment larger than the agent holds is refused at launch, once the
  kernel is known, with INVALID_ALLOCATION and a report naming it (core.isa.launch).
"""
from dataclasses import dataclass

import numpy as np

from core.errors import HsaError
from softgpu_shim.hsa_abi import (AQL_PACKET_SIZE, KERNEL_DISPATCH_PACKET, HsaAmdPacketType,
                                  HsaFenceScope, HsaPacketHeader, HsaPacketHeaderWidth,
                                  HsaKernelDispatchPacketSetup, PacketType, Status)

BARRIER_PACKET = np.dtype([
    ("header", "<u2"), ("reserved0", "<u2"), ("reserved1", "<u4"),
    ("dep_signal", "<u8", (5,)), ("reserved2", "<u8"), ("completion_signal", "<u8"),
])
AMD_BARRIER_VALUE_PACKET = np.dtype([
    ("header", "<u2"), ("amd_format", "u1"), ("reserved", "u1"), ("reserved0", "<u4"),
    ("signal", "<u8"), ("value", "<i8"), ("mask", "<i8"), ("cond", "<u4"), ("reserved1", "<u4"),
    ("reserved2", "<u8"), ("reserved3", "<u8"), ("completion_signal", "<u8"),
])
assert BARRIER_PACKET.itemsize == AMD_BARRIER_VALUE_PACKET.itemsize == AQL_PACKET_SIZE


class PacketError(HsaError):
    """A packet the processor refuses; its status goes to the queue's error callback."""


def _field(header, name):
    shift = HsaPacketHeader[name]
    width = HsaPacketHeaderWidth[name]
    return (header >> shift) & ((1 << width) - 1)


@dataclass(frozen=True)
class Header:
    type: int
    barrier: bool
    acquire_scope: int
    release_scope: int

    @classmethod
    def decode(cls, header):
        return cls(type=_field(header, "TYPE"), barrier=bool(_field(header, "BARRIER")),
                   acquire_scope=_field(header, "SCACQUIRE_FENCE_SCOPE"),
                   release_scope=_field(header, "SCRELEASE_FENCE_SCOPE"))

    def check_fences(self):
        valid = {HsaFenceScope.NONE, HsaFenceScope.AGENT, HsaFenceScope.SYSTEM}
        if self.acquire_scope not in valid or self.release_scope not in valid:
            raise PacketError(f"reserved fence scope in header (acquire {self.acquire_scope}, "
                              f"release {self.release_scope})", Status.ERROR_INVALID_PACKET_FORMAT)


@dataclass(frozen=True)
class KernelDispatch:
    dimensions: int
    workgroup: tuple
    grid: tuple
    private_segment_size: int
    group_segment_size: int
    kernel_object: int
    kernarg_address: int
    completion_signal: int

    @classmethod
    def decode(cls, raw, limits):
        p = raw.view(KERNEL_DISPATCH_PACKET)[0]
        dims = int(p["setup"]) >> HsaKernelDispatchPacketSetup.DIMENSIONS & 0x3
        packet = cls(dimensions=dims,
                     workgroup=tuple(int(p[f"workgroup_size_{a}"]) for a in "xyz"),
                     grid=tuple(int(p[f"grid_size_{a}"]) for a in "xyz"),
                     private_segment_size=int(p["private_segment_size"]),
                     group_segment_size=int(p["group_segment_size"]),
                     kernel_object=int(p["kernel_object"]),
                     kernarg_address=int(p["kernarg_address"]),
                     completion_signal=int(p["completion_signal"]))
        packet.validate(limits)
        return packet

    def validate(self, limits):
        if not 1 <= self.dimensions <= 3:
            raise PacketError(f"dispatch with {self.dimensions} dimensions",
                              Status.ERROR_INCOMPATIBLE_ARGUMENTS)
        used = range(self.dimensions)
        # Unused dimensions must be 1, as the HSA spec requires of producers.
        if any(self.grid[d] == 0 or self.workgroup[d] == 0 for d in used) or any(
                self.grid[d] != 1 or self.workgroup[d] != 1 for d in range(self.dimensions, 3)):
            raise PacketError(f"grid {self.grid} / workgroup {self.workgroup} do not fit "
                              f"{self.dimensions} dimension(s)", Status.ERROR_INCOMPATIBLE_ARGUMENTS)
        size = self.workgroup[0] * self.workgroup[1] * self.workgroup[2]
        if size > limits.workgroup_max_size or any(
                w > m for w, m in zip(self.workgroup, limits.workgroup_max_dim)):
            raise PacketError(f"workgroup {self.workgroup} exceeds the agent's limits",
                              Status.ERROR_INVALID_ARGUMENT)
        if self.kernel_object == 0:
            raise PacketError("kernel_object is NULL", Status.ERROR_INVALID_CODE_OBJECT)


@dataclass(frozen=True)
class Barrier:
    """Barrier-AND (all dependencies) or barrier-OR (any dependency); 0 handles are ignored."""
    any: bool
    dependencies: tuple
    completion_signal: int

    @classmethod
    def decode(cls, raw, any_):
        p = raw.view(BARRIER_PACKET)[0]
        return cls(any=any_, dependencies=tuple(int(s) for s in p["dep_signal"] if s),
                   completion_signal=int(p["completion_signal"]))


@dataclass(frozen=True)
class BarrierValue:
    """AMD vendor packet: wait until (signal & mask) <cond> value."""
    signal: int
    value: int
    mask: int
    condition: int
    completion_signal: int

    @classmethod
    def decode(cls, raw):
        p = raw.view(AMD_BARRIER_VALUE_PACKET)[0]
        if int(p["amd_format"]) != HsaAmdPacketType.BARRIER_VALUE:
            raise PacketError(f"unknown AMD vendor packet format {int(p['amd_format'])}",
                              Status.ERROR_INVALID_PACKET_FORMAT)
        if int(p["cond"]) > 3:
            raise PacketError(f"barrier-value condition {int(p['cond'])}",
                              Status.ERROR_INVALID_PACKET_FORMAT)
        return cls(signal=int(p["signal"]), value=int(p["value"]), mask=int(p["mask"]),
                   condition=int(p["cond"]), completion_signal=int(p["completion_signal"]))


def decode(raw, limits):
    """(Header, body) for a 64-byte snapshot (numpy uint8), or PacketError."""
    header = Header.decode(int(raw[:2].view("<u2")[0]))
    header.check_fences()
    if header.type == PacketType.KERNEL_DISPATCH:
        return header, KernelDispatch.decode(raw, limits)
    if header.type in (PacketType.BARRIER_AND, PacketType.BARRIER_OR):
        return header, Barrier.decode(raw, header.type == PacketType.BARRIER_OR)
    if header.type == PacketType.VENDOR_SPECIFIC:
        return header, BarrierValue.decode(raw)
    # GPU command processors take no agent-dispatch packets: ROCr reports them malformed.
    raise PacketError(f"packet type {header.type} is not executable on a GPU queue",
                      Status.ERROR_INVALID_PACKET_FORMAT)
