"""Cross-lane and register-file operations: v_readlane/v_writelane/v_readfirstlane,
v_permlane16/x16 (gfx12's _var forms too), v_permlane64, gfx950's v_permlane16/32_swap, the DPP16/DPP8/SDWA operand forms of VALU instructions, v_swap, and the
M0-relative register moves (v_movrel*, v_swaprel, s_movrel*).

Holds these invariants:
- a lane never reads another lane's value except through these functions, each one numpy
  gather over a [n, lanes] array (no per-lane Python);
- DPP: a lane whose source lane is out of its row (out of the wave for gfx9's wave shifts),
  or inactive without fetch-inactive, is not written unless bound_ctrl asks for 0; rows and
  banks masked off by row_mask/bank_mask are not written;
- v_writelane ignores EXEC (it is how the compiler spills SGPRs into VGPR lanes).
"""
import numpy as np

from core.isa.interp.registry import handles
from core.isa.semantics.lanes import (ROW, SDWA_BITS, SDWA_DWORD, SDWA_SHIFT, SDWA_UNUSED_PAD,
                                      SDWA_UNUSED_PRESERVE, SDWA_UNUSED_SEXT, dpp_enabled, dpp_masks,
                                      dpp_plan)


@handles("v_readlane_b32")
def _readlane(step, inst):
    ops = step.ops
    values = ops.vector(inst.src[0])
    lane = ops.scalar(inst.src[1]).astype(np.int64) % step.w.lanes
    ops.write_scalar(inst.dst[0], values[np.arange(step.n), lane])


@handles("v_readfirstlane_b32")
def _readfirstlane(step, inst):
    ops = step.ops
    values = np.broadcast_to(ops.vector(inst.src[0]), (step.n, step.w.lanes))
    first = np.argmax(ops.exec, axis=1)          # lane 0 when EXEC is empty, as hardware
    ops.write_scalar(inst.dst[0], values[np.arange(step.n), first])


@handles("v_writelane_b32")
def _writelane(step, inst):
    ops = step.ops
    value = ops.scalar(inst.src[0])
    lane = ops.scalar(inst.src[1]).astype(np.int64) % step.w.lanes
    target = np.zeros((step.n, step.w.lanes), np.bool_)
    target[np.arange(step.n), lane] = True
    ops.write_vector(inst.dst[0], value[:, None], "b32", active=target)


def _permlane(step, inst, cross):
    """v_permlane(x)16: each lane's select is a nibble of the 64-bit S1:S2 pair."""
    ops = step.ops
    select = (ops.scalar(inst.src[1]).astype(np.uint64)
              | (ops.scalar(inst.src[2]).astype(np.uint64) << np.uint64(32)))
    lane = np.arange(step.w.lanes)
    nibble = (select[:, None] >> (4 * (lane % ROW)).astype(np.uint64)) & np.uint64(0xF)
    _gather_rows(step, inst, nibble, cross)


def _permlane_var(step, inst, cross):
    """gfx12's v_permlane(x)16_var: each lane's select is the low nibble of its own S1."""
    nibble = np.broadcast_to(step.ops.vector(inst.src[1]), (step.n, step.w.lanes)) & np.uint32(0xF)
    _gather_rows(step, inst, nibble, cross)


def _gather_rows(step, inst, nibble, cross):
    """Lane i of vdst takes src0 from lane `nibble` of its own row of 16 (cross: of the other
    row); op_sel's fetch-inactive and bound-control bits say what an inactive source gives."""
    ops = step.ops
    values = ops.vector(inst.src[0])
    lanes = step.w.lanes
    lane = np.arange(lanes)
    row = lane // ROW
    source_row = row ^ 1 if cross else row
    source = (source_row * ROW)[None, :] + nibble.astype(np.int64)
    source %= lanes
    gathered = np.take_along_axis(np.broadcast_to(values, (step.n, lanes)), source, axis=1)
    op_sel = int(inst.mods.get("op_sel", 0))
    fetch_inactive, bound_ctrl = op_sel & 1, op_sel >> 1 & 1
    readable = np.take_along_axis(ops.exec, source, axis=1) | bool(fetch_inactive)
    active = ops.exec & (readable | bool(bound_ctrl))
    ops.write_vector(inst.dst[0], np.where(readable, gathered, 0), "b32", active=active)


@handles("v_permlane64_b32")
def _permlane64(step, inst):
    """gfx11+: in wave64 each active lane takes src0 of the lane 32 away (inactive or not);
    in wave32 the ISA makes it a v_nop, which writes nothing."""
    if step.w.lanes != 64:
        return
    ops = step.ops
    values = np.broadcast_to(ops.vector(inst.src[0]), (step.n, 64))
    ops.write_vector(inst.dst[0], values[:, np.arange(64) ^ 32], "b32", active=ops.exec)


# The row permutes: where each lane's select comes from, and whether it reads the other row.
for _name, _gather, _cross in (("v_permlane16_b32", _permlane, False),
                               ("v_permlanex16_b32", _permlane, True),
                               ("v_permlane16_var_b32", _permlane_var, False),
                               ("v_permlanex16_var_b32", _permlane_var, True)):
    handles(_name)(lambda step, inst, gather=_gather, cross=_cross: gather(step, inst, cross))


def _permlane_swap(step, inst, width):
    """gfx950: the odd blocks of `width` lanes of vdst trade places with the even blocks of
    src0, both registers written (v_permlane16_swap: vdst's rows 1 and 3 with src0's rows 0
    and 2; v_permlane32_swap: vdst's upper half with src0's lower half), in active lanes."""
    ops = step.ops
    dst, src = inst.dst[0].index, inst.src[0].index
    # Copies: a read may be a view of the register file, which the first write changes.
    old_dst, old_src = ops.vgpr_read(dst).copy(), ops.vgpr_read(src).copy()
    lane = np.arange(step.w.lanes)
    odd = lane // width % 2 == 1
    partner = lane ^ width
    ops.vgpr_write(dst, np.where(odd, old_src[:, partner], old_dst), ops.exec)
    ops.vgpr_write(src, np.where(odd, old_src, old_dst[:, partner]), ops.exec)


@handles("v_permlane16_swap_b32")
def _permlane16_swap(step, inst):
    _permlane_swap(step, inst, 16)


@handles("v_permlane32_swap_b32")
def _permlane32_swap(step, inst):
    _permlane_swap(step, inst, 32)


# ---- DPP ----------------------------------------------------------------------------------
def _plan(step, inst):
    try:
        return dpp_plan(inst, step.w.lanes, step.dispatch.plan.desc.target.generation == "gfx9")
    except ValueError as exc:
        raise step.illegal(str(exc)) from None


def _readable(step, inst, source, in_range):
    if inst.mods.get("fi"):
        return np.broadcast_to(in_range, (step.n, step.w.lanes))
    return in_range & step.ops.exec[:, source]


def dpp_source(step, inst, values):
    source, in_range = _plan(step, inst)
    values = np.broadcast_to(values, (step.n, step.w.lanes))[:, source]
    readable = _readable(step, inst, source, in_range)
    return np.where(readable, values, np.zeros((), values.dtype))


def dpp_write_mask(step, inst):
    source, in_range = _plan(step, inst)
    lanes = step.w.lanes
    mask = np.broadcast_to(_readable(step, inst, source, in_range), (step.n, lanes))
    if inst.mods.get("bound_ctrl"):
        mask = np.ones_like(mask)
    if inst.form == "dpp":
        mask = mask & dpp_enabled(*dpp_masks(inst), lanes)
    return mask


# ---- SDWA ---------------------------------------------------------------------------------
def sdwa_source(step, inst, values, i, type_):
    if type_ == "mask" or values.dtype == np.bool_:
        return values
    sel = int(inst.mods.get(f"src{i}_sel", SDWA_DWORD))
    if sel == SDWA_DWORD:
        return values
    bits = SDWA_BITS[sel]
    field = (values.astype(np.uint32) >> np.uint32(SDWA_SHIFT[sel])) & np.uint32((1 << bits) - 1)
    if inst.mods.get(f"src{i}_sext"):
        sign = np.uint32(1 << (bits - 1))
        field = (field ^ sign) - sign
    return field.astype(np.uint32)


def sdwa_dest(step, inst, target, value):
    sel = int(inst.mods.get("dst_sel", SDWA_DWORD))
    if sel == SDWA_DWORD:
        return value
    unused = int(inst.mods.get("dst_unused", SDWA_UNUSED_PAD))
    shift, bits = SDWA_SHIFT[sel], SDWA_BITS[sel]
    field_mask = np.uint32(((1 << bits) - 1) << shift)
    placed = (np.asarray(value, np.uint32) << np.uint32(shift)) & field_mask
    if unused == SDWA_UNUSED_PRESERVE:
        old = step.ops.vgpr_read(target.index)
        return (old & ~field_mask) | placed
    if unused == SDWA_UNUSED_SEXT:
        top = np.uint32(1 << (shift + bits - 1))
        above = np.uint32(0xFFFFFFFF) << np.uint32(shift + bits) if shift + bits < 32 else np.uint32(0)
        return placed | np.where(placed & top, above, np.uint32(0))
    return placed


# ---- relative VGPR addressing (M0 indexes the register file, per wave) ---------------------
def _relative_read(step, operand, shift):
    """[n, lanes]: VGPR operand.index + shift[n] of each wave (constants and SGPRs as is)."""
    if operand.kind != "vgpr":
        return np.broadcast_to(step.ops.vector(operand), (step.n, step.w.lanes))
    reg = operand.index + shift
    if (reg >= step.w.vgpr.shape[1]).any():
        raise step.illegal("M0-relative VGPR index beyond the kernel's VGPRs")
    waves = step.wave_indices()
    return step.w.vgpr[waves, reg]


def _relative_write(step, operand, shift, value):
    reg = operand.index + shift
    if (reg >= step.w.vgpr.shape[1]).any():
        raise step.illegal("M0-relative VGPR index beyond the kernel's VGPRs")
    waves = step.wave_indices()
    current = step.w.vgpr[waves, reg]
    np.copyto(current, value, where=step.ops.exec)
    step.w.vgpr[waves, reg] = current


def _m0(step):
    return step.ops.m0().astype(np.int64)


@handles("v_swap_b32")
def _swap(step, inst):
    a, b = inst.dst[0], inst.src[0]
    first, second = step.ops.vgpr_read(a.index).copy(), step.ops.vgpr_read(b.index).copy()
    step.ops.vgpr_write(a.index, second, step.ops.exec)
    step.ops.vgpr_write(b.index, first, step.ops.exec)


@handles("v_swap_b16")
def _swap16(step, inst):
    # gfx11+ true16: the halves op_sel names (bit 3 the destination's, bit 0 the source's)
    # trade places; both are read first, so v_swap_b16 v1.l, v1.h swaps one register's halves.
    a, b = inst.dst[0], inst.src[0]
    op_sel = int(inst.mods.get("op_sel", 0))
    (a_shift, a_half), (b_shift, b_half) = (
        (np.uint32(16 * hi), (step.ops.vgpr_read(op.index) >> np.uint32(16 * hi)) & np.uint32(0xFFFF))
        for op, hi in ((a, op_sel >> 3 & 1), (b, op_sel & 1)))
    for op, shift, half in ((a, a_shift, b_half), (b, b_shift, a_half)):
        old = step.ops.vgpr_read(op.index)
        step.ops.vgpr_write(op.index, old & ~(np.uint32(0xFFFF) << shift) | half << shift, step.ops.exec)


@handles("v_swaprel_b32")
def _swaprel(step, inst):
    # gfx10: the source index adds M0[9:0], the destination index M0[25:16].
    m0 = _m0(step)
    src_shift, dst_shift = m0 & 0x3FF, (m0 >> 16) & 0x3FF
    first = _relative_read(step, inst.dst[0], dst_shift).copy()
    second = _relative_read(step, inst.src[0], src_shift).copy()
    _relative_write(step, inst.dst[0], dst_shift, second)
    _relative_write(step, inst.src[0], src_shift, first)


# ---- relative SGPR addressing -------------------------------------------------------------
def _sgpr_relative(step, operand, shift, count):
    """Per wave: SGPR slots operand.index + shift[n] .. + count - 1, as [n, count] indices."""
    slots = operand.index + shift[:, None] + np.arange(count)
    if (slots >= 106).any():
        raise step.illegal("M0-relative SGPR index beyond s105")
    return step.wave_indices()[:, None], slots


@handles("s_movrels_b32", "s_movrels_b64")
def _s_movrels(step, inst):
    count = 2 if inst.mnemonic.endswith("64") else 1
    value = step.w.sgpr[_sgpr_relative(step, inst.src[0], _m0(step), count)]
    step.w.sgpr[step.wave_indices()[:, None], inst.dst[0].index + np.arange(count)] = value


@handles("s_movreld_b32", "s_movreld_b64")
def _s_movreld(step, inst):
    count = 2 if inst.mnemonic.endswith("64") else 1
    value = step.ops.scalar_regs(inst.src[0], count) if inst.src[0].kind == "sgpr" else \
        _split_words(step.ops.scalar(inst.src[0], "b64" if count == 2 else "b32"), count)
    step.w.sgpr[_sgpr_relative(step, inst.dst[0], _m0(step), count)] = value


@handles("s_movrelsd_2_b32")
def _s_movrelsd_2(step, inst):
    m0 = _m0(step)
    value = step.w.sgpr[_sgpr_relative(step, inst.src[0], m0 & 0x3FF, 1)]
    step.w.sgpr[_sgpr_relative(step, inst.dst[0], (m0 >> 16) & 0x3FF, 1)] = value


def _split_words(value, count):
    value = np.asarray(value, np.uint64)
    words = [(value >> np.uint64(32 * k)) & np.uint64(0xFFFFFFFF) for k in range(count)]
    return np.stack(words, axis=1).astype(np.uint32)


@handles("v_movrels_b32")
def _movrels(step, inst):
    step.ops.write_vector(inst.dst[0], _relative_read(step, inst.src[0], _m0(step)))


@handles("v_movreld_b32")
def _movreld(step, inst):
    value = np.broadcast_to(step.ops.vector(inst.src[0]), (step.n, step.w.lanes))
    _relative_write(step, inst.dst[0], _m0(step), value)


@handles("v_movrelsd_b32")
def _movrelsd(step, inst):
    _relative_write(step, inst.dst[0], _m0(step), _relative_read(step, inst.src[0], _m0(step)))


@handles("v_movrelsd_2_b32")
def _movrelsd_2(step, inst):
    # gfx10: the source index uses M0[9:0], the destination index M0[25:16].
    m0 = _m0(step)
    value = _relative_read(step, inst.src[0], m0 & 0x3FF)
    _relative_write(step, inst.dst[0], (m0 >> 16) & 0x3FF, value)
