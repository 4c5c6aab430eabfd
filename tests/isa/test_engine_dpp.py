"""DPP16 as clang-15 emits it for __builtin_amdgcn_update_dpp: row shifts and rotates, row and
bank masks, bound_ctrl, and gfx9's row broadcasts and whole-wave shifts, on both tiers, against
a numpy model of which lane each lane reads (written here from the ISA manuals' tables, not
from the engine's plans).

Every case runs over whole waves, so each shift's limit is checked at every distance: the last
lane that still reads inside its row and the first whose source falls out of it."""
import numpy as np
import pytest

from core.isa.layout import layout
from core.isa.native.dispatch import Fallback, native_for
from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import fresh_kernel, launch

ROW = 16

# (dpp_ctrl, row_mask, bank_mask, bound_ctrl) per output column.
GFX10_CASES = [
    (0x101, 0xF, 0xF, False), (0x10F, 0xF, 0xF, False), (0x108, 0xF, 0xF, True),    # row_shl:1,15,8
    (0x111, 0xF, 0xF, False), (0x11F, 0xF, 0xF, False), (0x118, 0xF, 0xF, True),    # row_shr:1,15,8
    (0x121, 0xF, 0xF, False), (0x140, 0xF, 0xF, False), (0x141, 0xF, 0xF, False),   # ror:1 mirrors
    (0x1B, 0xF, 0xF, False),                                                         # quad_perm 3,2,1,0
    (0x111, 0xF, 0x5, False), (0x111, 0xF, 0x8, False), (0x111, 0x2, 0xF, False),   # masks
    (0x111, 0x1, 0x6, False), (0x111, 0x0, 0xF, False), (0x111, 0xF, 0x0, False),
]
GFX9_CASES = [
    (0x142, 0xF, 0xF, False), (0x142, 0xA, 0xF, False), (0x142, 0xF, 0xF, True),    # row_bcast:15
    (0x143, 0xF, 0xF, False), (0x143, 0xC, 0xF, False),                              # row_bcast:31
    (0x130, 0xF, 0xF, False), (0x138, 0xF, 0xF, False), (0x138, 0xF, 0xF, True),    # wave_shl/shr:1
    (0x134, 0xF, 0xF, False), (0x13C, 0xF, 0xF, False),                              # wave_rol/ror:1
    (0x101, 0xF, 0xF, False), (0x11F, 0xF, 0xF, False), (0x111, 0x5, 0x3, False),   # gfx10's rows
]


def source_lanes(ctrl, lanes):
    """(lane read, inside its row or wave) per lane for a DPP16 control."""
    lane = np.arange(lanes)
    row, pos = lane - lane % ROW, lane % ROW
    if ctrl <= 0xFF:                                               # quad_perm
        return lane - lane % 4 + (ctrl >> 2 * (lane % 4) & 3), np.ones(lanes, bool)
    if ctrl == 0x142:                                              # row_bcast:15
        return row - 1, lane >= ROW
    if ctrl == 0x143:                                              # row_bcast:31
        return np.full(lanes, 31), lane >= 2 * ROW
    if ctrl in (0x130, 0x138):                                     # wave_shl:1 / wave_shr:1
        read = lane + (1 if ctrl == 0x130 else -1)
        return read % lanes, (read >= 0) & (read < lanes)
    if ctrl in (0x134, 0x13C):                                     # wave_rol:1 / wave_ror:1
        return (lane + (1 if ctrl == 0x134 else -1)) % lanes, np.ones(lanes, bool)
    if ctrl == 0x140:                                              # row_mirror
        return row + 15 - pos, np.ones(lanes, bool)
    if ctrl == 0x141:                                              # row_half_mirror
        return lane - lane % 8 + 7 - lane % 8, np.ones(lanes, bool)
    kind, amount = ctrl & 0xFF0, ctrl & 0xF
    read = {0x100: pos + amount, 0x110: pos - amount, 0x120: (pos - amount) % ROW}[kind]
    return row + read % ROW, (read >= 0) & (read < ROW)


def expected(case, values, old):
    """What v_mov_b32_dpp leaves in each lane: the source lane's value, 0 for a source out of
    range under bound_ctrl, else the old value; rows and banks masked off keep the old value."""
    ctrl, row_mask, bank_mask, bound = case
    lanes = values.size
    read, inside = source_lanes(ctrl, lanes)
    moved = np.where(inside, values[np.clip(read, 0, lanes - 1)], 0 if bound else old)
    lane = np.arange(lanes)
    written = (row_mask >> lane // ROW % 4 & 1) & (bank_mask >> lane % ROW // 4 & 1)
    return np.where(written.astype(bool), moved, old)


def dpp_kernel(cases):
    lines = "\n".join(
        f"  o[{k}] = __builtin_amdgcn_update_dpp(old, v, {ctrl:#x}, {rows:#x}, {banks:#x}, {str(bound).lower()});"
        for k, (ctrl, rows, banks, bound) in enumerate(cases))
    return f"""
kernel void dpp(global const int *in, global int *out) {{
  size_t i = get_global_id(0);
  int v = in[i];
  int old = -1000 - (int)i;
  global int *o = out + {len(cases)} * i;
{lines}
}}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("mcpu, lanes, cases", [("gfx1030", 32, GFX10_CASES), ("gfx90a", 64, GFX9_CASES)])
def test_dpp_moves_read_the_lanes_the_isa_names(session, tier, mcpu, lanes, cases):
    path = compile_opencl(dpp_kernel(cases), mcpu=mcpu)
    waves = 2
    n = waves * lanes
    values = np.random.default_rng(7).integers(1, 1 << 20, n).astype(np.int32)
    kernel, executable = fresh_kernel(session, path, "dpp")
    try:
        with engine(tier):
            _, out = launch(session, path, "dpp", [values, np.zeros(len(cases) * n, np.int32)], n, lanes,
                            kernel=kernel)
        if tier == "native":
            translation = native_for(session, kernel, layout(kernel))
            assert not isinstance(translation, Fallback), translation.error
    finally:
        session.loader.destroy_executable(executable)
    out = out.reshape(n, len(cases))
    old = -1000 - np.arange(n)
    for k, case in enumerate(cases):
        for w in range(waves):
            wave = slice(w * lanes, (w + 1) * lanes)
            np.testing.assert_array_equal(out[wave, k], expected(case, values[wave], old[wave]),
                                          err_msg=f"dpp_ctrl {case[0]:#x} masks {case[1]:#x}/{case[2]:#x} "
                                                  f"bound_ctrl {case[3]} wave {w}")
