"""Scalar memory operation records: every s_load_dword* and s_buffer_load_dword* with the
dwords it loads, and gfx12's s_load_b96 and sub-dword loads.

Guarantees: SMEM_LOADS names each load once as ScalarLoad(dwords, through a V#, bytes of
each element, sign-extended); a dword load's address is dword aligned (hardware ignores the
low two bits), a sub-dword load's aligned to its size and extended into one SGPR (gfx12's
s_load_u8/i8/u16/i16), and a buffer load's offset is 32 bits wide and bounded by the V#'s
num_records.
"""
from typing import NamedTuple


class ScalarLoad(NamedTuple):
    dwords: int
    buffer: bool                # s_buffer_load: the base is a V#, reads past num_records give 0
    size: int = 4               # bytes of the element each SGPR gets
    signed: bool = False        # a sub-dword element sign-extended, else zero-extended

    @property
    def align(self):
        """The address bits the load ignores (clear in the mask)."""
        return ~(self.size - 1) & 0xFFFFFFFFFFFFFFFF


_WIDTHS = {"dword": 1, "dwordx2": 2, "dwordx4": 4, "dwordx8": 8, "dwordx16": 16}

SMEM_LOADS = {}
for _suffix, _count in _WIDTHS.items():
    SMEM_LOADS[f"s_load_{_suffix}"] = ScalarLoad(_count, False)
    SMEM_LOADS[f"s_buffer_load_{_suffix}"] = ScalarLoad(_count, True)
# gfx12's: three dwords (gfx10/11 had none; its other widths are the dword loads renamed), and
# a byte or a half extended into one SGPR.
for _prefix, _buffer in (("s_load", False), ("s_buffer_load", True)):
    SMEM_LOADS[f"{_prefix}_b96"] = ScalarLoad(3, _buffer)
    for _bits in (8, 16):
        SMEM_LOADS[f"{_prefix}_u{_bits}"] = ScalarLoad(1, _buffer, _bits // 8, False)
        SMEM_LOADS[f"{_prefix}_i{_bits}"] = ScalarLoad(1, _buffer, _bits // 8, True)

# The width of a buffer load's offset.
BUFFER_OFFSET_MASK = 0xFFFFFFFF
