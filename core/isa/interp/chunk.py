"""A chunk: the resident workgroups of a dispatch, their waves' initial state (the launch ABI),
LDS and scratch.

Holds these invariants:
- SGPR and VGPR initial values are exactly what ROCr/CP set up for the enabled descriptor
  bits on the kernel's target (AMDGPUUsage "Initial Kernel Execution State"): work-item ids
  in v0, v1, v2, or packed into v0 (gfx90a, gfx11); FLAT_SCRATCH is the wave's scratch base
  from the start on gfx11 (architected), and the prolog sets it from flat_scratch_init and
  the wave offset elsewhere (gfx10 through s_setreg, gfx9 in the SGPR pair flat_scratch);
  gfx12's waves find their workgroup ids in ttmp9 (x) and ttmp7 (y | z << 16) as well, and
  their wave's number in the workgroup in ttmp8 [29:25] (architected SGPRs: clang reads
  them there);
- scratch comes in arena blocks, one per admission of waves: wave i of an admission owns bytes
  [i * lanes * private_bytes, (i + 1) * lanes * private_bytes) of its block, interleaved a
  dword per lane (the private segment V# has swizzling and ADD_TID on, index stride = wave
  size), the same layout flat scratch addresses use; a wave's block never moves;
- LDS is zeroed per workgroup, `lds[workgroup_in_chunk, bytes]`;
- admitting workgroups keeps every live wave's state (registers, LDS of its workgroup,
  scratch) and drops only what finished, so a running wave never notices an admission.
"""
import numpy as np

from core.isa.instruction import TTMP
from core.isa.layout import private_segment_buffer, user_sgpr_width
from core.isa.interp.state import Waves, EXEC_LO


class Chunk:
    def __init__(self, dispatch, group_ids):
        self.d = dispatch
        self.lanes = dispatch.plan.desc.lanes
        self.waves_per_group = dispatch.plan.waves_per_group
        stride = -(-max(dispatch.plan.lds_bytes, 8) // 8) * 8
        self.workgroup_ids = np.empty((0, 3), np.int64)
        self.lds = np.zeros((0, stride), np.uint8)
        self.waves = None
        self.admit(group_ids)

    def admit(self, group_ids):
        """Make the workgroups `group_ids` resident, dropping the waves that ended."""
        d, wpg, old = self.d, self.waves_per_group, self.waves
        keep = np.flatnonzero(old.live) if old is not None else np.empty(0, np.int64)
        kept_groups = np.unique(old.workgroup[keep]) if keep.size else keep
        added = group_ids.size * wpg
        # The first admission recycles the previous chunk's arrays; a later one copies from
        # the current arrays, so it must not reuse them.
        waves = Waves(keep.size + added, self.lanes, d.plan.desc.nvgpr,
                      reuse=d.last_waves if old is None else None)
        if keep.size:
            waves.copy_from(old, keep)
            waves.workgroup[:keep.size] = np.searchsorted(kept_groups, old.workgroup[keep])
            waves.epoch[keep.size:] = waves.epoch[:keep.size].min()
        gx, gy = d.plan.groups[0], d.plan.groups[1]
        ids = np.stack([group_ids % gx, (group_ids // gx) % gy, group_ids // (gx * gy)], axis=1)
        self.workgroup_ids = np.concatenate([self.workgroup_ids[kept_groups], ids])
        lds = np.zeros((kept_groups.size + group_ids.size, self.lds.shape[1]), np.uint8)
        lds[:kept_groups.size] = self.lds[kept_groups]
        self.lds = lds
        self.waves = waves
        if d.last_waves is None or waves.capacity > d.last_waves.capacity:
            d.last_waves = waves
        self._setup(keep.size, kept_groups.size)
        d.stats.waves += added

    def _setup(self, first, first_group):
        """Initial state of waves first.. (of workgroups first_group..), as CP launches them."""
        d, w, desc = self.d, self.waves, self.d.plan.desc
        lanes, wpg = self.lanes, self.waves_per_group
        new = slice(first, None)
        nwaves = w.count - first
        wave = np.arange(nwaves)
        w.workgroup[new] = first_group + wave // wpg
        w.wave_in_group[new] = wave % wpg
        base = 0
        if d.plan.private_bytes:
            busy = set(np.unique(w.scratch_block[:first]).tolist())
            block, base = d.scratch.acquire(d.plan.wave_scratch_bytes * nwaves, busy)
            w.scratch_block[new] = block
        wave_offset = (wave * d.plan.wave_scratch_bytes).astype(np.uint64)
        w.flat_scratch[new] = np.uint64(base) + wave_offset
        w.pc[new] = desc.entry
        w.mode[new] = desc.initial_mode

        # Work-items of each wave: local sizes of partial workgroups shrink (HSA grid semantics).
        # Full workgroups share one template per wave-in-group; only partial ones are computed.
        wg = self.workgroup_ids[w.workgroup[new]]                         # [waves, 3]
        size = np.array(d.plan.workgroup, np.int64)
        local = np.minimum(size, np.array(d.plan.grid, np.int64) - wg * size)  # [waves, 3]
        partial = np.flatnonzero((local != size).any(axis=1))
        dims = min(desc.workitem_id_dims, 3, w.vgpr.shape[1])
        packed = desc.target.packed_workitem_ids
        template_ids, template_active = _items(np.arange(wpg), size[None, :], lanes)
        ngroups = nwaves // wpg
        vgpr = w.vgpr[new]
        for reg, value in _id_registers(template_ids, dims, packed):
            vgpr[:, reg, :].reshape(ngroups, wpg, lanes)[:] = value
        active = np.empty((nwaves, lanes), np.bool_)
        active.reshape(ngroups, wpg, lanes)[:] = template_active
        if partial.size:
            ids, active[partial] = _items(w.wave_in_group[new][partial], local[partial], lanes)
            for reg, value in _id_registers(ids, dims, packed):
                vgpr[partial, reg, :] = value
        bits = w.pack_mask(active)
        sgpr = w.sgpr[new]
        sgpr[:, EXEC_LO] = (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        sgpr[:, EXEC_LO + 1] = (bits >> np.uint64(32)).astype(np.uint32) if lanes == 64 else 0

        slot = 0
        for name in desc.user_sgprs:
            values = self._user_sgpr(name, base)
            width = user_sgpr_width(name)
            for k in range(width):
                if slot + k < 106:
                    sgpr[:, slot + k] = values[k]
            slot += width
        slot = max(slot, desc.user_sgpr_count)
        for dim in range(3):
            if desc.workgroup_id[dim]:
                sgpr[:, slot] = wg[:, dim].astype(np.uint32)
                slot += 1
        if desc.workgroup_info:
            sgpr[:, slot] = wpg
            slot += 1
        if desc.private_segment_wave_offset and desc.target.flat_scratch != "architected":
            sgpr[:, slot] = wave_offset.astype(np.uint32)
        if desc.target.architected_ids:
            sgpr[:, TTMP + 8] = w.wave_in_group[new].astype(np.uint32) << np.uint32(25)
            sgpr[:, TTMP + 9] = wg[:, 0].astype(np.uint32)
            sgpr[:, TTMP + 7] = (wg[:, 1].astype(np.uint32) & np.uint32(0xFFFF)) | (wg[:, 2].astype(np.uint32) << np.uint32(16))

    def _user_sgpr(self, name, scratch_base):
        d = self.d
        if name == "private_segment_buffer":
            return private_segment_buffer(scratch_base, self.lanes)
        if name == "dispatch_ptr":
            return _split(d.plan.packet_address)
        if name == "queue_ptr":
            return _split(d.plan.queue_address)
        if name == "kernarg_segment_ptr":
            return _split(d.plan.kernarg_address)
        if name == "dispatch_id":
            return _split(d.plan.dispatch_id)
        if name == "flat_scratch_init":
            # gfx10: the scratch base of the queue; the kernel prolog adds its wave offset.
            return _split(scratch_base)
        if name == "private_segment_size":
            return [d.plan.private_bytes]
        raise ValueError(name)


def _items(wave_in_group, local, lanes):
    """Work-item ids (x, y, z) as uint32 [waves, lanes] each, and which lanes hold one, for
    waves at `wave_in_group` of workgroups of `local` ([waves, 3]) work-items."""
    flat = wave_in_group[:, None] * lanes + np.arange(lanes)
    active = flat < local.prod(axis=1)[:, None]
    lx, ly = local[:, 0:1], local[:, 1:2]
    ids = (flat % lx, (flat // lx) % ly, flat // (lx * ly))
    return [np.where(active, i, 0).astype(np.uint32) for i in ids], active


def _id_registers(ids, dims, packed):
    """(VGPR, value) for the first `dims` work-item ids: v0, v1, v2, or all in v0 as
    x | y << 10 | z << 20 where the target packs them."""
    if not packed:
        return [(dim, ids[dim]) for dim in range(dims)]
    return [(0, sum(ids[dim] << np.uint32(10 * dim) for dim in range(dims)))]


def _split(value):
    return [value & 0xFFFFFFFF, (value >> 32) & 0xFFFFFFFF]
