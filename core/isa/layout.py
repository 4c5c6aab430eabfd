"""The launch layout a kernel descriptor asks for (AMDGPUUsage, code object v4/v5).

Holds these invariants:
- every launch decision (wave size, VGPR budget, user/system SGPR layout, initial MODE,
  static LDS and scratch sizes, where gfx90a's AGPRs start) comes from the kernel descriptor
  the loader decoded from device memory, never from metadata, exactly as the command
  processor does, and it is worked out once per kernel (kept in its engine_cache), not once
  per dispatch;
- the descriptor is read by the rules of the kernel's target (core/isa/targets.py): the
  processor its code object was built for. A target the engine has no tables for raises
  UnknownTarget here, before anything runs;
- a workgroup's LDS is what the dispatch packet's group_segment_size asks for, rounded up
  to the allocation granule, and nothing else: the packet's size is the whole request
  (static plus dynamic, as HIP and ROCr's own blits fill it), and the CP writes it to
  COMPUTE_PGM_RSRC2.LDS_SIZE without looking at the descriptor's static size.
"""
from dataclasses import dataclass

from core.isa import targets

# LDS: 64 KiB a workgroup on every target here, allocated in granules of 128 dwords
# (LDS_SIZE's unit).
MAX_LDS_BYTES = 64 << 10
LDS_GRANULE = 512

# User SGPR groups in the order ROCr loads them: (descriptor bit name, SGPRs).
USER_SGPRS = (("private_segment_buffer", 4), ("dispatch_ptr", 2), ("queue_ptr", 2),
              ("kernarg_segment_ptr", 2), ("dispatch_id", 2), ("flat_scratch_init", 2),
              ("private_segment_size", 1))
# The private segment buffer V#'s NUM_RECORDS: no bound (scratch is checked by address).
SCRATCH_NUM_RECORDS = 0xFFFFFFFF


def private_segment_buffer(scratch_base, lanes):
    """The four words of the private segment V# a wave starts with: base, stride 0 with
    swizzling on, no record bound, index stride of the wave size (8 << n lanes) and ADD_TID."""
    index_stride = 3 if lanes == 64 else 2
    return [scratch_base & 0xFFFFFFFF, (scratch_base >> 32) & 0xFFFF | 1 << 31,
            SCRATCH_NUM_RECORDS, index_stride << 21 | 1 << 23]


@dataclass(frozen=True)
class Layout:
    entry: int
    wave64: bool
    nvgpr: int
    user_sgprs: tuple          # names of enabled user SGPR groups, in load order
    user_sgpr_count: int
    workgroup_id: tuple        # (x, y, z) enabled
    workgroup_info: bool
    private_segment_wave_offset: bool
    workitem_id_dims: int      # VGPRs v0.. that hold work-item ids (1..3)
    group_segment_size: int
    private_segment_size: int
    uses_dynamic_stack: bool
    initial_mode: int
    target: targets.IsaTarget
    accum_offset: int           # gfx90a: the first VGPR that is AGPR a0 (0 elsewhere)

    @property
    def lanes(self):
        return 64 if self.wave64 else 32


def layout(kernel):
    """The Layout of a core.loader LoadedKernel."""
    found = kernel.engine_cache.get("layout")
    if found is None:
        found = kernel.engine_cache["layout"] = _layout(kernel)
    return found


def _layout(kernel):
    kd = kernel.descriptor
    target = targets.get(kernel.code_object.processor)
    wave64 = kd.wavefront_size == 64
    granules = kd.granulated_workitem_vgpr_count + 1
    # gfx90a: COMPUTE_PGM_RSRC3 [5:0] is ACCUM_OFFSET, in units of 4 VGPRs, minus one.
    accum_offset = ((kd.compute_pgm_rsrc3 & 0x3F) + 1) * 4 if target.agprs else 0
    # MODE: FP_ROUND [3:0], FP_DENORM [7:4], DX10_CLAMP [8], IEEE [9].
    mode = (kd.float_round_mode_32 | kd.float_round_mode_16_64 << 2 | kd.float_denorm_mode_32 << 4
            | kd.float_denorm_mode_16_64 << 6 | target.mode_always)
    if target.rsrc1_mode_bits:
        mode |= kd.enable_dx10_clamp << 8 | kd.enable_ieee_mode << 9
    return Layout(
        entry=kernel.entry,
        wave64=wave64,
        # VGPRs (with gfx90a's AGPRs after them) in the target's allocation granules
        nvgpr=granules * target.vgpr_granule[64 if wave64 else 32],
        user_sgprs=tuple(name for name, _ in USER_SGPRS if getattr(kd, f"enable_sgpr_{name}")),
        user_sgpr_count=kd.user_sgpr_count,
        workgroup_id=(bool(kd.enable_sgpr_workgroup_id_x), bool(kd.enable_sgpr_workgroup_id_y),
                      bool(kd.enable_sgpr_workgroup_id_z)),
        workgroup_info=bool(kd.enable_sgpr_workgroup_info),
        private_segment_wave_offset=bool(kd.enable_private_segment),
        workitem_id_dims=kd.enable_vgpr_workitem_id + 1,
        group_segment_size=kd.group_segment_fixed_size,
        private_segment_size=kd.private_segment_fixed_size,
        uses_dynamic_stack=bool(kd.uses_dynamic_stack),
        initial_mode=mode,
        target=target,
        accum_offset=accum_offset,
    )


def user_sgpr_width(name):
    return dict(USER_SGPRS)[name]


def lds_allocation(group_segment_size):
    """Bytes of LDS a workgroup gets for a packet's group_segment_size. A request smaller
    than the kernel's static use is not enlarged: on hardware, accesses past the allocation
    read 0 and drop their writes, and so they do here."""
    return -(-group_segment_size // LDS_GRANULE) * LDS_GRANULE
