"""Scalar memory operation records: every s_load_dword* and s_buffer_load_dword* with the
dwords it loads.

Guarantees: SMEM_LOADS names each load once as ScalarLoad(dwords, through a V#); a load's
address is dword aligned (hardware ignores the low two bits), and a buffer load's offset is
32 bits wide and bounded by the V#'s num_records.
"""
from typing import NamedTuple


class ScalarLoad(NamedTuple):
    dwords: int
    buffer: bool                # s_buffer_load: the base is a V#, reads past num_records give 0


_WIDTHS = {"dword": 1, "dwordx2": 2, "dwordx4": 4, "dwordx8": 8, "dwordx16": 16}

SMEM_LOADS = {}
for _suffix, _count in _WIDTHS.items():
    SMEM_LOADS[f"s_load_{_suffix}"] = ScalarLoad(_count, False)
    SMEM_LOADS[f"s_buffer_load_{_suffix}"] = ScalarLoad(_count, True)

# The address bits a scalar load ignores, and the width of a buffer load's offset.
DWORD_ALIGN = ~3 & 0xFFFFFFFFFFFFFFFF
BUFFER_OFFSET_MASK = 0xFFFFFFFF
