"""Occupancy: how many workgroups of a dispatch a GPU of the profile holds at once.

Holds these invariants:
- the count is the profile's compute units times the workgroups one CU holds, limited by
  waves (SIMDs x waves per SIMD), by VGPRs (each SIMD's register file) and by LDS, the limits
  the CP's workgroup dispatcher applies; a workgroup's waves all sit on one CU;
- it is never below one workgroup a CU, so every dispatch the packet processor accepts runs.

Engine tiers use it to keep that many workgroups resident together, so workgroups that wait
on each other progress exactly when they would on the GPU.
"""

# gfx10: a SIMD32's VGPR file is 128 KiB, 1024 VGPRs of 32 lanes; a wave64 VGPR takes two.
VGPRS_PER_SIMD = {32: 1024, 64: 512}


def resident_workgroups(spec, desc, waves_per_group, lds_bytes):
    """Workgroups resident at once. spec: the agent's profile section (compute_units,
    simds_per_cu, waves_per_simd, lds_bytes); desc: the kernel's core.isa.layout.Layout;
    lds_bytes: LDS a workgroup is allocated."""
    waves_per_simd = min(spec["waves_per_simd"], VGPRS_PER_SIMD[desc.lanes] // max(desc.nvgpr, 1))
    per_cu = (spec["simds_per_cu"] * waves_per_simd) // max(waves_per_group, 1)
    if lds_bytes:
        per_cu = min(per_cu, spec["lds_bytes"] // lds_bytes)
    return max(per_cu, 1) * spec["compute_units"]
