"""ISA targets: every fact in which the GPUs the engine runs differ, as one table.

What a target is (its name, features, ROCr's registry and compatibility rule) is
core/target.py's; this table holds only what the engine needs per processor it runs, looked
up by the processor a kernel runs as (core.target.run_as: a generic object's kernels run as
their agent's processor).

A row (IsaTarget) names the processor, its encoding generation (core/isa/encodings.py: where
bits lie), its generated opcode tables (core/isa/opcodes_<name>.py: what opcodes mean and
print), and the few architectural facts the decoder, the launch layout and the engine need:
wave sizes, register file (AGPRs, special operand codes), VGPR allocation granule, how
FLAT_SCRATCH is set up, s_waitcnt's field layout. Nothing else in core/isa tests a processor
name; code that must differ asks the target.

Holds these invariants:
- a kernel's target is the processor its code object was built for (its ELF header), or
  for a generic object the agent's processor, so the engine decodes and runs code exactly
  as the GPU running it would;
- opcode tables load on first use (each is ~8000 lines of generated data);
- one mnemonic means one operation on every target: a target's rename of a gfx1030
  instruction resolves to the gfx1030 name through `semantic_name` (gfx11's ds_load_b32 for
  ds_read_b32 from the generated ALIASES; the renames llvm declares no alias for, such as
  gfx9's v_add_u32 for v_add_nc_u32, from the target's `renames`), so semantics are
  written once per operation.
"""
import importlib
from dataclasses import dataclass, field, replace
from functools import cached_property

from core.isa.encodings import GENERATIONS


class UnknownTarget(ValueError):
    """A processor the engine has no tables for."""


@dataclass(frozen=True)
class IsaTarget:
    name: str                   # llvm's processor name, as code objects name it
    generation: str             # "gfx9", "gfx10", "gfx11", "gfx12" (core/isa/encodings.py)
    wave_sizes: tuple           # wave sizes its kernels may run (first: the default)
    vgpr_granule: dict          # wave size -> VGPRs per unit of granulated_workitem_vgpr_count
    agprs: bool = False         # accumulation registers (gfx90a: after the VGPRs, from ACCUM_OFFSET)
    sgprs: int = 106            # SGPRs s0..s(n-1); operand codes from n up to vcc are specials
    m0_code: int = 124          # operand codes of m0 and null (gfx11 swapped them)
    null_code: int = 125
    vop3_literal: bool = True   # VOP3 may take a 32-bit literal (gfx10+)
    # FLAT_SCRATCH: "hwreg" (gfx10: the prolog writes HW_REG_FLAT_SCR_LO/HI with s_setreg),
    # "sgprs" (gfx9: the SGPR pair flat_scratch, operand codes 102:103),
    # "architected" (gfx11: the hardware sets it up to the wave's scratch, no user SGPR).
    flat_scratch: str = "hwreg"
    packed_workitem_ids: bool = False   # v0 holds x | y << 10 | z << 20 (gfx90a, gfx11)
    # SCRATCH's bit 13 is SVE (a VGPR offset is given) on gfx940+, where gfx90a has lds.
    scratch_sve: bool = False
    # {mod: name llvm prints} for memory instructions' cache-policy bits named otherwise.
    cache_policy_names: dict = field(default_factory=dict)
    gpr_index_mode: bool = False        # s_set_gpr_idx_on makes VALU VGPRs relative (gfx9)
    # s_waitcnt's counters as (name, [(low bit, width), ...] low part first), llvm's order.
    waitcnt: tuple = field(default=())
    # dpp_ctrl values llvm names beyond the quad_perm/row_shl/shr/ror/mirror ones all share:
    # single values, and ranges of 16 from a base (row_share:0-15 at 0x150 on gfx10+).
    dpp_names: tuple = ()
    dpp_rows: tuple = (("row_share", 0x150), ("row_xmask", 0x160))
    dpp_fi: bool = True         # the DPP dword's fetch-inactive bit (gfx10+)
    # s_sendmsg's numeric form sendmsg(id, op, stream): the id's bits (op [6:4] and stream
    # [9:8] exist where the id has 4 bits).
    sendmsg_id_bits: int = 4
    # Image opcodes that return four dwords of one DMASK channel (four texels or fragments)
    # whatever DMASK's other bits: gather4, and on gfx11 msaa_load.
    four_texel_images: tuple = ("gather4",)
    # 16-bit VALU results: gfx10+ keep the destination's high half; gfx9 zeroes it, except
    # in the ops of high16_kept (they write either half, by op_sel). Names as the engine
    # knows them (semantic_name).
    high16_zeroed: bool = False
    high16_kept: frozenset = frozenset()
    # {mnemonic: gfx1030 mnemonic of the same operation on the same operands}, for renames
    # llvm has no mnemonic alias for (its ALIASES hold the others).
    renames: dict = field(default_factory=dict)
    # The 8-bit floats fp8/bf8 operands hold: "fnuz" (gfx942: E4M3FNUZ/E5M2FNUZ, biases 8 and
    # 16, 0x80 the only NaN, no infinities) or "ocp" (gfx950: OCP's E4M3FN/E5M2, biases 7 and
    # 15); "" where the target has none.
    fp8: str = ""
    # gfx12's memory cache policy: a temporal hint `th` and a `scope` (llvm prints
    # th:TH_LOAD_NT scope:SCOPE_DEV) in place of the glc/slc/dlc bits.
    temporal_hints: bool = False
    # gfx12's architected SGPRs: every wave starts with its workgroup ids in ttmp9 (x) and
    # ttmp7 (y in [15:0], z in [31:16]) and its number in the workgroup in ttmp8 [29:25],
    # where clang and Triton read them
    # Whether COMPUTE_PGM_RSRC1 bits 21 and 23 are DX10_CLAMP and IEEE of the initial MODE
    # (gfx12 has WG_RR_EN and DISABLE_PERF there), and MODE bits every wave starts with
    rsrc1_mode_bits: bool = True
    mode_always: int = 0
    architected_ids: bool = False
    # Where WMMA keeps its matrices: "gfx11" (every lane group holds whole rows/columns) or
    # "gfx12" (k and the output's rows split between the lane halves, 16-bit results packed;
    # core/isa/interp/matrix.py)
    wmma_layout: str = "gfx11"

    @property
    def encoding(self):
        return GENERATIONS[self.generation]

    @cached_property
    def opcodes(self):
        """The generated module: TABLES, HWREG_NAMES, BUFFER_FORMATS, SENDMSG_TEXT[, ALIASES]."""
        return importlib.import_module(f"core.isa.opcodes_{self.name}")

    @cached_property
    def aliases(self):
        return getattr(self.opcodes, "ALIASES", {})


_GFX10_WAITCNT = (("vmcnt", ((0, 4), (14, 2))), ("expcnt", ((4, 3),)), ("lgkmcnt", ((8, 6),)))

# gfx9 names of gfx10 operations; once AGPRs are the VGPRs after ACCUM_OFFSET (the engine
# maps them so), moving to, from and between them is a VGPR move.
_GFX9_RENAMES = {
    "v_add_u32": "v_add_nc_u32", "v_sub_u32": "v_sub_nc_u32", "v_subrev_u32": "v_subrev_nc_u32",
    "v_add_i32": "v_add_nc_i32", "v_sub_i32": "v_sub_nc_i32",
    "v_addc_co_u32": "v_add_co_ci_u32", "v_subb_co_u32": "v_sub_co_ci_u32",
    "v_subbrev_co_u32": "v_subrev_co_ci_u32",
    "v_add_u16": "v_add_nc_u16", "v_sub_u16": "v_sub_nc_u16",
    "v_add_i16": "v_add_nc_i16", "v_sub_i16": "v_sub_nc_i16",
    "v_accvgpr_read_b32": "v_mov_b32", "v_accvgpr_write_b32": "v_mov_b32",
    "v_accvgpr_mov_b32": "v_mov_b32",
}
# The gfx9 16-bit ops that keep the destination's other half (llvm's zeroesHigh16BitsOfDest),
# and gfx940's packs of two 8-bit floats, which write the half op_sel[3] names over the old
# value llvm's intrinsic passes in.
_GFX9_HIGH16_KEPT = frozenset((
    "v_mad_f16", "v_madak_f16", "v_madmk_f16", "v_mac_f16", "v_fmaak_f16", "v_fmamk_f16",
    "v_mad_u16", "v_mad_i16", "v_fma_f16", "v_div_fixup_f16", "v_mad_mixlo_f16",
    "v_mad_mixhi_f16", "v_fma_mixlo_f16", "v_fma_mixhi_f16", "v_cvt_pk_fp8_f32", "v_cvt_pk_bf8_f32",
    "v_cvt_scalef32_pk_fp8_f32", "v_cvt_scalef32_pk_bf8_f32"))
# gfx11 names of gfx10 GLOBAL/FLAT/SCRATCH operations llvm declares no alias for (it aliases
# the buffer ones but the formatted d16_hi pair): the d16 loads and stores, the f32 atomics,
# csub and the addtid forms.
_GFX11_RENAMES = {
    **{f"{seg}_{new}": f"{seg}_{old}" for seg in ("global", "flat", "scratch") for new, old in (
        ("load_d16_b16", "load_short_d16"), ("load_d16_hi_b16", "load_short_d16_hi"),
        ("load_d16_u8", "load_ubyte_d16"), ("load_d16_hi_u8", "load_ubyte_d16_hi"),
        ("load_d16_i8", "load_sbyte_d16"), ("load_d16_hi_i8", "load_sbyte_d16_hi"),
        ("store_d16_hi_b8", "store_byte_d16_hi"), ("store_d16_hi_b16", "store_short_d16_hi"))},
    **{f"{seg}_atomic_{new}": f"{seg}_atomic_{old}" for seg in ("global", "flat") for new, old in (
        ("cmpswap_f32", "fcmpswap"), ("min_f32", "fmin"), ("max_f32", "fmax"))},
    "global_atomic_csub_u32": "global_atomic_csub",
    "global_load_addtid_b32": "global_load_dword_addtid",
    "global_store_addtid_b32": "global_store_dword_addtid",
    "buffer_load_d16_hi_format_x": "buffer_load_format_d16_hi_x",
    "buffer_store_d16_hi_format_x": "buffer_store_format_d16_hi_x",
}

GFX90A = IsaTarget(
    "gfx90a", "gfx9", wave_sizes=(64,), vgpr_granule={64: 8}, agprs=True, sgprs=102,
    vop3_literal=False, flat_scratch="sgprs", dpp_fi=False, packed_workitem_ids=True,
    gpr_index_mode=True, high16_zeroed=True, high16_kept=_GFX9_HIGH16_KEPT,
    waitcnt=(("vmcnt", ((0, 4), (14, 2))), ("expcnt", ((4, 3),)), ("lgkmcnt", ((8, 4),))),
    dpp_names=(("wave_shl:1", 0x130), ("wave_rol:1", 0x134), ("wave_shr:1", 0x138),
               ("wave_ror:1", 0x13C), ("row_bcast:15", 0x142), ("row_bcast:31", 0x143)),
    dpp_rows=(("row_newbcast", 0x150),), renames=_GFX9_RENAMES)
# gfx942 (CDNA3) is gfx90a's register file and encodings; the hardware sets FLAT_SCRATCH up
# to the wave's scratch (architected flat scratch, gfx940+), SCRATCH may take a VGPR offset
# and an SGPR base together (SVE), and its cache-policy bits
# sc0/sc1/nt sit where gfx90a's glc/scc/slc do. Its GPUs are several XCCs (accelerator
# complex dies); a wave reads which one runs it in HW_REG_XCC_ID.
GFX942 = replace(GFX90A, name="gfx942", flat_scratch="architected", scratch_sve=True,
                 cache_policy_names={"glc": "sc0", "slc": "nt", "scc": "sc1"}, fp8="fnuz")
# gfx950 (CDNA4) is gfx942 with more instructions (its own tables): the scaled and
# transposed-load forms, and LDS up to 160 KiB, which is the profile's to say; its 8-bit
# floats are OCP's.
GFX950 = replace(GFX942, name="gfx950", fp8="ocp")
GFX1030 = IsaTarget(
    "gfx1030", "gfx10", wave_sizes=(32, 64), vgpr_granule={32: 8, 64: 4},
    waitcnt=_GFX10_WAITCNT)
GFX1100 = IsaTarget(
    "gfx1100", "gfx11", wave_sizes=(32, 64), vgpr_granule={32: 8, 64: 4}, m0_code=125,
    null_code=124, flat_scratch="architected", sendmsg_id_bits=8, renames=_GFX11_RENAMES,
    packed_workitem_ids=True, four_texel_images=("gather4", "msaa_load"),
    waitcnt=(("vmcnt", ((10, 6),)), ("expcnt", ((0, 3),)), ("lgkmcnt", ((4, 6),))))

# gfx12 (RDNA4) is gfx11's register file and ALU words with new memory words (three dwords,
# th/scope cache policy) and waits split by counter (s_wait_loadcnt ...; no s_waitcnt).
# s_barrier became s_barrier_signal + s_barrier_wait: a wave stops at the wait, so the wait
# is gfx10's s_barrier here and the signal changes nothing a wave can see before it waits.
# Its 8-bit floats (the WMMA fp8/bf8 forms, the conversions) are OCP's. Its kernel descriptor
# has no DX10_CLAMP and IEEE bits: clamp turns NaN into 0 (llvm lowers clamp(x, 0, 1) to a
# clamped op on gfx12 as where DX10_CLAMP is set), and its min/max (v_max_num_f32: IEEE
# 754-2019's maximumNumber) yield the other operand of a NaN, signalling or not, as gfx10's
# do with IEEE clear: MODE starts with DX10_CLAMP and without IEEE.
# Its paired min/max took gfx12's _num names, its image atomics name their type, and csub became
# sub_clamp_u32 (llvm declares no alias for any of them).
_GFX12_RENAMES = {
    **_GFX11_RENAMES, "s_barrier_wait": "s_barrier",
    **{f"v_{pair}_num_{t}": f"v_{pair}_{t}" for pair in ("maxmin", "minmax") for t in ("f16", "f32")},
    **{f"image_atomic_{new}": f"image_atomic_{old}" for new, old in (
        ("add_uint", "add"), ("sub_uint", "sub"), ("min_int", "smin"), ("min_uint", "umin"),
        ("max_int", "smax"), ("max_uint", "umax"), ("inc_uint", "inc"), ("dec_uint", "dec"),
        ("min_flt", "fmin"), ("max_flt", "fmax"))},
    # gfx10's csub (subtract, clamped at 0) under gfx12's name
    **{f"{seg}_atomic_sub_clamp_u32": f"{seg}_atomic_csub" for seg in ("global", "flat", "buffer")},
}
GFX1200 = replace(GFX1100, name="gfx1200", generation="gfx12", renames=_GFX12_RENAMES,
                  waitcnt=(), fp8="ocp", temporal_hints=True,
                  architected_ids=True, rsrc1_mode_bits=False,
                  mode_always=1 << 8, wmma_layout="gfx12")
GFX1201 = replace(GFX1200, name="gfx1201")

TARGETS = {t.name: t for t in (GFX90A, GFX942, GFX950, GFX1030, GFX1100, GFX1200, GFX1201)}
DEFAULT = GFX1030


def get(target):
    """The IsaTarget for a processor name (or an IsaTarget itself); UnknownTarget if none."""
    if isinstance(target, IsaTarget):
        return target
    found = TARGETS.get(target)
    if found is None:
        raise UnknownTarget(f"no ISA tables for {target!r} (SoftGPU runs {', '.join(TARGETS)})")
    return found


def semantic_name(mnemonic, target):
    """The gfx1030 mnemonic of the operation `mnemonic` names on `target` (itself if unrenamed)."""
    t = get(target)
    return t.aliases.get(mnemonic) or t.renames.get(mnemonic, mnemonic)
