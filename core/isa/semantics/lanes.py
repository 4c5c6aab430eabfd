"""Lane plans: which lane each lane reads under the DPP16 and DPP8 operand forms, which
rows and banks a DPP write may reach, and the byte/word fields SDWA selects.

Guarantees:
- a plan is (source lane, source in range) per lane of the wave, as read-only numpy arrays
  worked out once per (control, wave size, generation) and shared by every caller; a lane
  whose source is out of its row (out of the wave for gfx9's wave shifts) has in range False;
- a dpp_ctrl the generation does not define raises ValueError naming it (each tier turns
  that into its own fault or refusal);
- SDWA_SHIFT/SDWA_BITS give, per SDWA select value, the field's first bit and width
  (SDWA_DWORD selects the whole dword).
"""
from functools import lru_cache

import numpy as np

ROW = 16

# gfx9 wave_shl/wave_rol/wave_shr/wave_ror by one: dpp_ctrl -> (source lane offset, rotates).
_GFX9_WAVE_DPP = {0x130: (1, False), 0x134: (1, True), 0x138: (-1, False), 0x13C: (-1, True)}


def _frozen(source, in_range):
    # Cached plans are shared by every caller: none may change another's.
    source, in_range = np.array(source), np.array(in_range, np.bool_)
    source.setflags(write=False)
    in_range.setflags(write=False)
    return source, in_range


@lru_cache(maxsize=None)
def dpp16_plan(ctrl, lanes, gfx9):
    """(source lane, source in range) per lane for a DPP16 dpp_ctrl value of gfx10+, or of
    gfx9 (its whole-wave shifts and rotates by one, row broadcasts, and gfx90a's row_newbcast
    where gfx10 has row_share)."""
    return _frozen(*_dpp16(ctrl, lanes, gfx9))


def _dpp16(ctrl, lanes, gfx9):
    lane = np.arange(lanes)
    base = lane - lane % ROW
    pos = lane % ROW
    ok = np.ones(lanes, np.bool_)
    if gfx9 and ctrl in _GFX9_WAVE_DPP:
        shift, rotate = _GFX9_WAVE_DPP[ctrl]
        src = lane + shift
        return src % lanes, ok if rotate else (src >= 0) & (src < lanes)
    if gfx9 and ctrl == 0x142:                           # row_bcast:15: from the row before
        return np.maximum(base - 1, 0), lane >= ROW
    if gfx9 and ctrl == 0x143:                           # row_bcast:31: to rows 2 and 3
        return np.full(lanes, 2 * ROW - 1), lane >= 2 * ROW
    if gfx9 and ctrl & 0xFF0 == 0x160:
        raise ValueError(f"dpp_ctrl {ctrl:#x} is not a gfx9 DPP control")
    if ctrl <= 0xFF:                                     # quad_perm
        sel = (ctrl >> (2 * (lane % 4))) & 3
        return lane - lane % 4 + sel, ok
    kind, amount = ctrl & 0xFF0, ctrl & 0xF
    if kind == 0x100:                                    # row_shl
        src = pos + amount
        return base + src % ROW, src < ROW
    if kind == 0x110:                                    # row_shr
        src = pos - amount
        return base + src % ROW, src >= 0
    if kind == 0x120:                                    # row_ror
        return base + (pos - amount) % ROW, ok
    if ctrl == 0x140:                                    # row_mirror
        return base + (ROW - 1 - pos), ok
    if ctrl == 0x141:                                    # row_half_mirror
        return lane - lane % 8 + (7 - lane % 8), ok
    if kind == 0x150:                                    # row_share (gfx90a: row_newbcast)
        return base + amount, ok
    if kind == 0x160:                                    # row_xmask
        return base + (pos ^ amount), ok
    raise ValueError(f"dpp_ctrl {ctrl:#x} is not a DPP16 control")


@lru_cache(maxsize=None)
def dpp8_plan(selects, lanes):
    """(source lane, source in range) per lane for DPP8's eight 3-bit lane selects."""
    lane = np.arange(lanes)
    sel = np.array(selects)[lane % 8]
    return _frozen(lane - lane % 8 + sel, np.ones(lanes, np.bool_))


def dpp_plan(inst, lanes, gfx9):
    """The lane plan of a DPP16 or DPP8 instruction (ValueError for an undefined dpp_ctrl)."""
    if inst.form == "dpp8":
        return dpp8_plan(tuple(inst.mods["dpp8"]), lanes)
    return dpp16_plan(int(inst.mods["dpp_ctrl"]), lanes, gfx9)


@lru_cache(maxsize=None)
def dpp_enabled(row_mask, bank_mask, lanes):
    """Per lane, whether DPP16's row_mask and bank_mask let the instruction write it."""
    lane = np.arange(lanes)
    rows = (row_mask >> (lane // ROW % 4)) & 1
    banks = (bank_mask >> (lane % ROW // 4)) & 1
    enabled = (rows & banks).astype(np.bool_)
    enabled.setflags(write=False)
    return enabled


def dpp_masks(inst):
    """(row_mask, bank_mask) of a DPP16 instruction (all rows and banks when not given)."""
    return int(inst.mods.get("row_mask", 0xF)), int(inst.mods.get("bank_mask", 0xF))


# SDWA src_sel/dst_sel: BYTE_0..3, WORD_0..1, DWORD -> first bit and width of the field.
SDWA_DWORD = 6
SDWA_SHIFT = {0: 0, 1: 8, 2: 16, 3: 24, 4: 0, 5: 16, 6: 0}
SDWA_BITS = {0: 8, 1: 8, 2: 8, 3: 8, 4: 16, 5: 16, 6: 32}
# SDWA dst_unused: what the bits outside dst_sel's field become.
SDWA_UNUSED_PAD, SDWA_UNUSED_SEXT, SDWA_UNUSED_PRESERVE = 0, 1, 2
