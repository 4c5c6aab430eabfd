"""Kernel descriptors: the 64 bytes a kernel object points at, decoded.

Holds these invariants:
- a descriptor is decoded from the bytes as they are (in device memory after loading,
  or in the ELF before), through the KERNEL_DESCRIPTOR dtype, never by slicing;
- every bit field the hardware reads is exposed by name, and the raw words stay
  available, so nothing the compiler set is lost in decoding.
"""
from dataclasses import dataclass, field

import numpy as np

from core.hsa_abi import KERNEL_DESCRIPTOR, KERNEL_DESCRIPTOR_SIZE

# (name, first bit, width) of each field, per LLVM's AMDGPUUsage "Kernel Descriptor" tables.
KERNEL_CODE_PROPERTIES = (
    ("enable_sgpr_private_segment_buffer", 0, 1),
    ("enable_sgpr_dispatch_ptr", 1, 1),
    ("enable_sgpr_queue_ptr", 2, 1),
    ("enable_sgpr_kernarg_segment_ptr", 3, 1),
    ("enable_sgpr_dispatch_id", 4, 1),
    ("enable_sgpr_flat_scratch_init", 5, 1),
    ("enable_sgpr_private_segment_size", 6, 1),
    ("enable_wavefront_size32", 10, 1),
    ("uses_dynamic_stack", 11, 1),
)
COMPUTE_PGM_RSRC1 = (
    ("granulated_workitem_vgpr_count", 0, 6),
    ("granulated_wavefront_sgpr_count", 6, 4),
    ("priority", 10, 2),
    ("float_round_mode_32", 12, 2),
    ("float_round_mode_16_64", 14, 2),
    ("float_denorm_mode_32", 16, 2),
    ("float_denorm_mode_16_64", 18, 2),
    ("priv", 20, 1),
    ("enable_dx10_clamp", 21, 1),
    ("debug_mode", 22, 1),
    ("enable_ieee_mode", 23, 1),
    ("bulky", 24, 1),
    ("cdbg_user", 25, 1),
    ("fp16_ovfl", 26, 1),
    ("workgroup_processor_mode", 29, 1),
    ("mem_ordered", 30, 1),
    ("fwd_progress", 31, 1),
)
COMPUTE_PGM_RSRC2 = (
    ("enable_private_segment", 0, 1),
    ("user_sgpr_count", 1, 5),
    ("enable_trap_handler", 6, 1),
    ("enable_sgpr_workgroup_id_x", 7, 1),
    ("enable_sgpr_workgroup_id_y", 8, 1),
    ("enable_sgpr_workgroup_id_z", 9, 1),
    ("enable_sgpr_workgroup_info", 10, 1),
    ("enable_vgpr_workitem_id", 11, 2),
    ("enable_exception_address_watch", 13, 1),
    ("enable_exception_memory", 14, 1),
    ("granulated_lds_size", 15, 9),
    ("enable_exception_ieee_754_fp_invalid_operation", 24, 1),
    ("enable_exception_fp_denormal_source", 25, 1),
    ("enable_exception_ieee_754_fp_division_by_zero", 26, 1),
    ("enable_exception_ieee_754_fp_overflow", 27, 1),
    ("enable_exception_ieee_754_fp_underflow", 28, 1),
    ("enable_exception_ieee_754_fp_inexact", 29, 1),
    ("enable_exception_int_divide_by_zero", 30, 1),
)
COMPUTE_PGM_RSRC3_GFX10 = (
    ("shared_vgpr_count", 0, 4),
)


def _bits(word, table):
    return {name: (int(word) >> shift) & ((1 << width) - 1) for name, shift, width in table}


@dataclass(frozen=True)
class KernelDescriptor:
    """A decoded kernel descriptor. Bit fields are ints (0/1 for flags)."""
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    kernel_code_entry_byte_offset: int
    compute_pgm_rsrc1: int
    compute_pgm_rsrc2: int
    compute_pgm_rsrc3: int
    kernel_code_properties: int
    properties: dict = field(repr=False)
    rsrc1: dict = field(repr=False)
    rsrc2: dict = field(repr=False)
    rsrc3: dict = field(repr=False)

    def __getattr__(self, name):
        # Flat access to decoded bits: kd.enable_sgpr_dispatch_ptr, kd.enable_sgpr_workgroup_id_x.
        for table in ("properties", "rsrc2", "rsrc1", "rsrc3"):
            values = self.__dict__.get(table, {})
            if name in values:
                return values[name]
        raise AttributeError(name)

    # Names the dispatch code uses, spelled as in the kernel descriptor tables.
    @property
    def wavefront_size32(self):
        return self.properties["enable_wavefront_size32"]

    @property
    def wavefront_size(self):
        return 32 if self.properties["enable_wavefront_size32"] else 64

    @property
    def enable_sgpr_private_segment_wave_byte_offset(self):
        return self.rsrc2["enable_private_segment"]

    def fields(self):
        """Every decoded value by name, for people (softgpu info) and tests."""
        words = {k: getattr(self, k) for k in (
            "group_segment_fixed_size", "private_segment_fixed_size", "kernarg_size",
            "kernel_code_entry_byte_offset", "compute_pgm_rsrc1", "compute_pgm_rsrc2",
            "compute_pgm_rsrc3", "kernel_code_properties")}
        return {**words, **self.properties, **self.rsrc1, **self.rsrc2, **self.rsrc3}


def decode(data):
    """Decode 64 descriptor bytes (bytes, memoryview or a numpy uint8 array)."""
    raw = np.frombuffer(bytes(data[:KERNEL_DESCRIPTOR_SIZE]), dtype=KERNEL_DESCRIPTOR)[0]
    return KernelDescriptor(
        group_segment_fixed_size=int(raw["group_segment_fixed_size"]),
        private_segment_fixed_size=int(raw["private_segment_fixed_size"]),
        kernarg_size=int(raw["kernarg_size"]),
        kernel_code_entry_byte_offset=int(raw["kernel_code_entry_byte_offset"]),
        compute_pgm_rsrc1=int(raw["compute_pgm_rsrc1"]),
        compute_pgm_rsrc2=int(raw["compute_pgm_rsrc2"]),
        compute_pgm_rsrc3=int(raw["compute_pgm_rsrc3"]),
        kernel_code_properties=int(raw["kernel_code_properties"]),
        properties=_bits(raw["kernel_code_properties"], KERNEL_CODE_PROPERTIES),
        rsrc1=_bits(raw["compute_pgm_rsrc1"], COMPUTE_PGM_RSRC1),
        rsrc2=_bits(raw["compute_pgm_rsrc2"], COMPUTE_PGM_RSRC2),
        rsrc3=_bits(raw["compute_pgm_rsrc3"], COMPUTE_PGM_RSRC3_GFX10),
    )
