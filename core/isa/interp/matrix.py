"""Matrix instructions: gfx90a's and gfx940+'s MFMA (v_mfma_*: D = A x B + C in blocks across a wave64),
gfx11's and gfx12's WMMA (v_wmma_*: one 16x16xK product across a wave), and the sparse
gfx940+ SMFMAC and gfx12 SWMMAC (D += A x B with A 4:2 sparse: two values of every four k
stored, and a 4-bit index for each chunk saying where they belong).

Holds these invariants:
- matrix elements sit in registers and lanes exactly as AMD's matrix instruction calculator
  lays them out (its gfx9 and gfx11 register layouts): MFMA inputs hold, per lane, the
  K/(64/(M*B)) consecutive k of one row (A) or column (B), lanes walking rows of block 0,
  then block 1, ..., then the next run of k; MFMA outputs hold 4-row (f64: 1-row) strips N
  lanes wide; gfx11's WMMA inputs hold row (A) / column (B) i%16 in every 16-lane group, k
  walking the register bytes, and outputs row i in lane group i % (lanes/16) of register
  i // that; gfx12's deal a row's k in runs (quarters for 16-bit, halves for 8- and 4-bit
  elements) to the lane halves, pack 16-bit results two to a register, and in wave64 halve
  a wave32 lane between it and the lane 32 above (wmma_gfx12_input_layout,
  wmma_gfx12_output_layout; the target's `wmma_layout`); a sparse A is the layout of its
  stored half, its indices (sparse_indices, mfma_sparse_indices) in the lane of each chunk's
  first stored value. tests/isa/test_matrix_layouts.py checks every layout against AMD's
  calculator;
- every product term is exact (fp8/bf8/f16/bf16/xf32/f32 products are exact in double, int8
  in int64; fp8/bf8 are the target's flavour: core.isa.targets' `fp8`; xf32 inputs are the
  f32 values rounded to 10 mantissa bits) and
  each result element is rounded once, from double, to its type: the most accurate an
  implementation can be (hardware may round partial sums; kernels compare within tolerance);
- gfx950's f8f6f4 MFMA reads A and B in the formats CBSZ and BLGP name (core.isa.alu.mx: 32
  elements a lane; 8-bit ones in runs of 16 k, f8f6f4_input_layout); its scaled form
  (v_mfma_scale_*) multiplies the elements of each row's block of 32 k by the E8M0 scale
  lane row + rows * block holds: the byte op_sel (low bit) and op_sel_hi name in a VGPR,
  bits 30:23 of an SGPR or a constant;
- MFMA's modifiers act as on hardware: CBSZ/ABID broadcast block ABID of A to groups of
  2^CBSZ blocks, BLGP makes B read other lanes; WMMA's neg/neg_hi negate A/B halves and C
  (neg_hi[2]: |C|), or for integer WMMA say whether A/B are signed, and clamp saturates;
  SMFMAC's ABID (CBSZ 0; another CBSZ faults) and SWMMAC's index_key pick the index set.
"""
import math
import re
from functools import lru_cache

import numpy as np

from core.isa.alu import mx
from core.isa.alu.fp8 import fp8_values
from core.isa.interp.registry import HANDLERS

# gfx940+ spell the block count (`_2b`) and put `_` before the input type: the operand widths
# say the same, so one pattern reads both spellings.
# The fp8/bf8 forms name A's type, then B's.
_MFMA = re.compile(r"v_mfma_(?:scale_)?(f32|i32|f64)_(\d+)x(\d+)x(\d+)(?:_\d+b)?_?"
                   r"(f32|f16|bf16|i8|f64|xf32|f8f6f4|[fb][pf]8_[fb][pf]8)(_1k)?$")
# gfx12's fp8/bf8 forms name A's type, then B's.
_WMMA = re.compile(r"v_wmma_(f32|f16|bf16|i32)_16x16x(16|32)_(f16|bf16|iu8|iu4|fp8|bf8)(?:_(fp8|bf8))?$")
_BITS = {"f32": 32, "f16": 16, "bf16": 16, "i8": 8, "iu8": 8, "iu4": 4, "f64": 64, "i32": 32,
         "fp8": 8, "bf8": 8, "xf32": 32}
# ---- registers <-> elements ---------------------------------------------------------------
def _registers(step, operand, count, kind="f32"):
    """`count` consecutive registers of a vector operand as uint32 [n, lanes, count]; a
    constant (MFMA's and WMMA's C may be one) stands for each element of `kind`."""
    shape = (step.n, step.w.lanes, count)
    if operand.kind != "vgpr" and kind == "f64":
        pair = np.broadcast_to(step.ops.vector(operand, "f64"), shape[:2])
        words = np.stack([pair & np.uint64(0xFFFFFFFF), pair >> np.uint64(32)], axis=-1)
        return np.tile(words.astype(np.uint32), count // 2)
    if operand.kind != "vgpr":
        return np.broadcast_to(step.ops.vector(operand)[..., None], shape).astype(np.uint32)
    return np.stack([np.broadcast_to(step.ops.vgpr_read(operand.index + r), shape[:2])
                     for r in range(count)], axis=-1)


def _elements(regs, kind, signed=True, fp8=""):
    """Registers [n, lanes, r] -> their elements [n, lanes, e] as float64 (int64 for ints);
    fp8/bf8 as the target's flavour of them (`fp8`)."""
    regs = np.ascontiguousarray(regs, np.uint32)
    if kind in ("fp8", "bf8"):
        return fp8_values(fp8, kind)[regs.view(np.uint8)]
    if kind == "f32":
        return regs.view(np.float32).astype(np.float64)
    if kind == "xf32":
        # gfx942's xf32: f32 with 10 mantissa bits. AMD does not document how the f32 inputs
        # are narrowed; they are rounded to nearest even here (infinities and NaNs kept).
        rounded = (regs + np.uint32(0xFFF) + (regs >> np.uint32(13) & np.uint32(1))) & np.uint32(0xFFFFE000)
        special = regs & np.uint32(0x7F800000) == np.uint32(0x7F800000)
        return np.where(special, regs, rounded).view(np.float32).astype(np.float64)
    if kind == "f64":
        return regs.view(np.float64)
    if kind == "f16":
        return regs.view(np.float16).astype(np.float64)
    if kind == "bf16":
        return (regs.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    if kind in ("i8", "iu8"):
        return regs.view(np.int8 if signed else np.uint8).astype(np.int64)
    if kind == "iu4":
        nibbles = regs[..., None] >> (np.arange(8, dtype=np.uint32) * np.uint32(4)) & np.uint32(0xF)
        nibbles = nibbles.reshape(regs.shape[:-1] + (-1,)).astype(np.int64)
        return np.where(nibbles >= 8, nibbles - 16, nibbles) if signed else nibbles
    if kind == "i32":
        return regs.view(np.int32).astype(np.int64)
    raise ValueError(kind)


def _to_bits(values, kind, clamp=False):
    """Result values (float64 / int64) -> uint32 register words (two per f64, low first)."""
    if kind == "f32":
        return values.astype(np.float32).view(np.uint32)
    if kind == "f64":
        return np.ascontiguousarray(values, np.float64).view(np.uint32)
    if kind == "f16":
        return values.astype(np.float16).view(np.uint16).astype(np.uint32)
    if kind == "bf16":
        bits = values.astype(np.float32).view(np.uint32)
        nearest_even = bits + np.uint32(0x7FFF) + (bits >> np.uint32(16) & np.uint32(1))
        bf16 = np.where(np.isnan(values), bits | np.uint32(0x400000), nearest_even)
        return bf16 >> np.uint32(16)
    if clamp:                           # i32
        values = np.clip(values, -2**31, 2**31 - 1)
    return (values & 0xFFFFFFFF).astype(np.uint32)


# ---- MFMA ---------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def mfma_input_layout(rows, k, blocks, per_lane):
    """(lane, slot) of element [block, row, k] of an MFMA input: A's row is i, B's is j."""
    b, i, kk = np.meshgrid(np.arange(blocks), np.arange(rows), np.arange(k), indexing="ij")
    return b * rows + (kk // per_lane) * rows * blocks + i, kk % per_lane


@lru_cache(maxsize=None)
def mfma_output_layout(m, n, blocks, wide):
    """(lane, register) of element [block, i, j] of an MFMA's C/D: 4-row strips (1-row for
    f64, whose 'register' counts register pairs) n lanes wide, blocks side by side."""
    height = 1 if wide else 4
    strips_per_register = 64 // n
    blocks_per_register = math.ceil(64 / (n * m // height))
    b, i, j = np.meshgrid(np.arange(blocks), np.arange(m), np.arange(n), indexing="ij")
    register = b * (m * n // 64) + i // (height * strips_per_register) * height + i % height
    lane = (b % blocks_per_register) * n + (i // height % strips_per_register) * blocks_per_register * n + j
    return lane, register


def _blgp_lane(lane, blgp):
    """The lane BLGP makes a B-matrix read come from (broadcasts and rotations of 16/32 lanes)."""
    if blgp == 1:
        return lane % 32
    if blgp == 2:
        return np.where(lane < 32, lane + 32, lane)
    if blgp == 3:
        return (lane + 16) % 64
    if blgp == 4:
        return lane % 16
    if blgp in (5, 6, 7):
        return lane % 16 + 16 * (blgp - 4)
    return lane


def _mfma(match):
    out, m, n, k, kind, _ = match.groups()
    m, n, k = int(m), int(n), int(k)
    a_kind, _, b_kind = kind.partition("_") if kind[1:3] in ("p8", "f8") else (kind, "", kind)
    formats = kind == "f8f6f4"

    def run(step, inst):
        a_op, b_op, c_op = inst.src[:3]
        d_op = inst.dst[0]
        mods = inst.mods
        fp8 = step.dispatch.plan.desc.target.fp8
        if formats:
            a_format, b_format = (_mx_format(step, inst, i) for i in (0, 1))
            a, b = (_mx_elements(step, inst.src[i], fmt, fp8) for i, fmt in enumerate((a_format, b_format)))
            per_lane = mx.ELEMENTS_PER_LANE
        else:
            per_lane = a_op.count * 32 // _BITS[a_kind]
            a = _elements(_registers(step, a_op, a_op.count), a_kind, fp8=fp8)
            b = _elements(_registers(step, b_op, b_op.count), b_kind, fp8=fp8)
        blocks = 64 * per_lane // (m * k)
        out_words = m * n * blocks // 64 * (2 if out == "f64" else 1)
        c = _elements(_registers(step, c_op, out_words, out), out)
        if formats:
            a_lane, a_slot = f8f6f4_input_layout(m, k, a_format[1])
            b_lane, b_slot = f8f6f4_input_layout(n, k, b_format[1])
        else:
            a_lane, a_slot = mfma_input_layout(m, k, blocks, per_lane)
            b_lane, b_slot = mfma_input_layout(n, k, blocks, per_lane)
        if not formats:
            group = 1 << int(mods["cbsz"])
            source_block = np.arange(blocks) // group * group + int(mods["abid"])
            a_lane, a_slot = a_lane[source_block % blocks], a_slot[source_block % blocks]
            b_lane = _blgp_lane(b_lane, int(mods["blgp"]))
        a_matrix = a[:, a_lane, a_slot]                          # [n, blocks, m, k]
        b_matrix = b[:, b_lane, b_slot].transpose(0, 1, 3, 2)    # [n, blocks, k, n]
        if inst.mnemonic.startswith("v_mfma_scale_"):
            a_matrix = a_matrix * _block_scales(step, inst, 0, m, k)
            b_matrix = b_matrix * _block_scales(step, inst, 1, n, k).transpose(0, 1, 3, 2)
        d_lane, d_reg = mfma_output_layout(m, n, blocks, out == "f64")
        d = np.matmul(a_matrix, b_matrix) + c[:, d_lane, d_reg]
        words = np.zeros((step.n, step.w.lanes, out_words), np.uint32)
        bits = _to_bits(d, out)
        if out == "f64":                # each element is a register pair: low word, then high
            bits = bits.reshape(d.shape + (2,))
            words[:, d_lane, 2 * d_reg] = bits[..., 0]
            words[:, d_lane, 2 * d_reg + 1] = bits[..., 1]
        else:
            words[:, d_lane, d_reg] = bits
        for r in range(out_words):
            step.ops.vgpr_write(d_op.index + r, words[..., r], step.ops.exec)
    return run


def _mx_format(step, inst, which):
    """(name, bits, registers) of gfx950's f8f6f4 MFMA source `which` (0: A by CBSZ, 1: B by
    BLGP)."""
    field = ("cbsz", "blgp")[which]
    code = int(inst.mods[field])
    if code not in mx.F8F6F4:
        raise step.illegal(f"{inst.mnemonic} with {field}:{code}: no matrix format has that number")
    return mx.F8F6F4[code] + (mx.registers(code),)


def _mx_elements(step, operand, fmt, fp8):
    """gfx950's f8f6f4 MFMA: a source `operand` in format `fmt` (_mx_format) as float64
    [n, lanes, 32]."""
    name, bits, registers = fmt
    return mx.values(name, fp8)[mx.unpack(_registers(step, operand, registers), bits)]


@lru_cache(maxsize=None)
def f8f6f4_input_layout(rows, k, bits):
    """(lane, slot) of element [0, row, k] of a gfx950 f8f6f4 MFMA input of `bits`-bit elements.
    6- and 4-bit ones lie as every MFMA's (a lane: 32 consecutive k of its row); 8-bit ones in
    runs of 16 k dealt to the lane groups in turn (the group of lane l // rows holds runs g,
    g + groups, ...). AMD's calculator has no gfx950; Triton's GEMMs of fp8/bf8 with fp4 (and
    scales) agree with these and with no other of the runs of 32, 8 or 4 k."""
    if bits != 8:
        return mfma_input_layout(rows, k, 1, mx.ELEMENTS_PER_LANE)
    groups = 64 // rows
    i, kk = np.meshgrid(np.arange(rows), np.arange(k), indexing="ij")
    run = kk // 16
    return (i + rows * (run % groups))[None], ((run // groups) * 16 + kk % 16)[None]


def _scale_codes(step, inst, which):
    """Each lane's E8M0 scale byte for source `which`: of a VGPR, the byte op_sel and
    op_sel_hi name (op_sel the low bit); of an SGPR or a constant, bits 30:23 whatever they
    name (the hardware's, by LLVM's AMD authors: llvm PR 158117, which keeps compilers to VGPRs)."""
    operand = inst.src[3 + which]
    words = np.broadcast_to(step.ops.vector(operand), (step.n, step.w.lanes)).astype(np.uint32)
    if operand.kind == "vgpr":
        byte = (int(inst.mods["op_sel"]) >> which & 1) | (int(inst.mods["op_sel_hi"]) >> which & 1) << 1
        return (words >> np.uint32(8 * byte) & np.uint32(0xFF)).astype(np.int64)
    return (words >> np.uint32(23) & np.uint32(0xFF)).astype(np.int64)


def _block_scales(step, inst, which, rows, k):
    """v_mfma_scale_*: the factor [n, 1, rows, k] of each element of source `which`: the E8M0
    scale of its row's block of 32 k, which lane row + rows * block holds (whichever lane holds
    the elements: an 8-bit lane's runs span two blocks)."""
    codes = _scale_codes(step, inst, which)                            # [n, lanes]
    lane = np.arange(rows)[:, None] + rows * (np.arange(k)[None, :] // 32)
    return mx.scale_values()[codes[:, lane]][:, None]


# ---- WMMA ---------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def wmma_gfx12_input_layout(k, bits, lanes):
    """(lane, slot) of element [i, kk] of gfx12's WMMA A (row i) or B (column i), k elements
    of `bits` each, as AMD's matrix instruction calculator lays them out: in wave32 a row's k
    come in runs (a quarter of the row for 16-bit elements, a half for 8- and 4-bit ones),
    dealt to lanes i and i + 16 in turn; in wave64 a lane keeps the first half of a wave32
    lane's slots, and the lane 32 above it the second half. SWMMAC's sparse A is this layout
    of its stored half (k / 2 values a row)."""
    per_lane = 16 * k // 32                     # a wave32 lane's elements
    run = k // 4 if bits == 16 else k // 2
    i, kk = np.meshgrid(np.arange(16), np.arange(k), indexing="ij")
    chunk = kk // run
    lane, slot = i + 16 * (chunk % 2), chunk // 2 * run + kk % run
    return _gfx12_wave64(lane, slot, per_lane, bits, lanes)


@lru_cache(maxsize=None)
def wmma_gfx12_output_layout(lanes):
    """(lane, slot) of element [i, j] of gfx12's C/D, slots counted in the result's width
    (two 16-bit results share a register): column j in lanes j and j + 16, rows 0-7 in the
    low lanes' slots and rows 8-15 in the high lanes'; wave64 halves them as the inputs."""
    i, j = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    return _gfx12_wave64(j + 16 * (i // 8), i % 8, 8, 32, lanes)


@lru_cache(maxsize=None)
def wmma_gfx11_output_layout(lanes):
    """(lane, register) of element [i, j] of gfx11's C/D: row i in register i // groups of
    lanes 16 * (i % groups) + j, for groups = lanes / 16 (16-bit results in the half op_sel
    names). Its A and B hold row/column i in lane i of every 16-lane group, k in order."""
    groups = lanes // 16
    i, j = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    return 16 * (i % groups) + j, i // groups


def _gfx12_wave64(lane, slot, per_lane, bits, lanes):
    """wave32's (lane, slot) in a wave of `lanes`: in wave64 the second half of a lane's
    registers goes to the lane 32 above; an operand of one register keeps wave32's layout
    (lanes 32-63 unread)."""
    if lanes == 32 or per_lane * bits <= 32:
        return lane, slot
    half = per_lane // 2
    return lane + 32 * (slot // half), slot % half


def _gfx12_operand(step, op, kind, k, signed, fp8):
    """A's rows or B's columns [n, 16, k] from a gfx12 WMMA/SWMMAC source."""
    values = _elements(_registers(step, op, op.count), kind, signed=signed, fp8=fp8)
    return values[(slice(None),) + wmma_gfx12_input_layout(k, _BITS[kind], step.w.lanes)]


def _negate_halves(matrix, neg, neg_hi, operand):
    """16-bit float inputs: NEG[operand] negates the elements of the registers' low halves
    (even along k), NEG_HI[operand] those of the high halves."""
    matrix *= np.where(np.arange(matrix.shape[-1]) % 2, -1.0 if neg_hi >> operand & 1 else 1.0,
                       -1.0 if neg >> operand & 1 else 1.0)


def _gfx12_words(step, bits, half, count, lane, slot):
    """Result words [n, lanes, count] holding each element's bits at (lane, slot), 16-bit
    results two to a register, the low one first."""
    if half:
        packed = np.zeros((step.n, step.w.lanes, 2 * count), np.uint16)
        packed[:, lane, slot] = bits
        return packed.view(np.uint32)
    words = np.zeros((step.n, step.w.lanes, count), np.uint32)
    words[:, lane, slot] = bits
    return words


def _wmma_kinds(match):
    """A WMMA/SWMMAC name's result type, K, A's and B's types, and whether its inputs are
    integers or 8-bit floats and its result 16-bit."""
    out, k, kind_a, kind_b = match.groups()
    kind_b = kind_b or kind_a
    return out, int(k), kind_a, kind_b, kind_a.startswith("iu"), kind_a in ("fp8", "bf8"), \
        out in ("f16", "bf16")


def _wmma(match):
    out, k, kind_a, kind_b, integer, float8, half = _wmma_kinds(match)

    def run(step, inst):
        a_op, b_op, c_op = inst.src
        d_op = inst.dst[0]
        lanes = step.w.lanes
        mods = inst.mods
        target = step.dispatch.plan.desc.target
        gfx12 = target.wmma_layout == "gfx12"
        neg, neg_hi = int(mods["neg"]), int(mods["neg_hi"])
        if gfx12:               # [n, 16, k]: A's rows, B's columns, each along k
            a = _gfx12_operand(step, a_op, kind_a, k, bool(neg & 1), target.fp8)
            b = _gfx12_operand(step, b_op, kind_b, k, bool(neg & 2), target.fp8)
        else:                   # gfx11: every lane group holds the whole of row/column i % 16
            a = _elements(_registers(step, a_op, a_op.count), kind_a, signed=bool(neg & 1))[:, :16, :k]
            b = _elements(_registers(step, b_op, b_op.count), kind_b, signed=bool(neg & 2))[:, :16, :k]
        if not integer and not float8:
            _negate_halves(a, neg, neg_hi, 0)
            _negate_halves(b, neg, neg_hi, 1)
        if gfx12:
            # C/D: element [i, j] in slot `reg` of lane `lane`, 16-bit results packed two to
            # a register.
            lane, reg = wmma_gfx12_output_layout(lanes)
            count = 16 * 16 * _BITS[out] // 32 // lanes
            shift = None
        else:
            # C/D: 16-bit results in the low or high half of each register (op_sel bit 2).
            lane, reg = wmma_gfx11_output_layout(lanes)
            count = 16 * 16 // lanes
            high = int(mods["op_sel"]) >> 2 & 1
            shift = np.full(reg.shape, 16 * high, np.uint32)
        c_regs = _registers(step, c_op, count)
        if half and shift is not None:
            c = _elements((c_regs[:, lane, reg] >> shift) & np.uint32(0xFFFF), out)[..., 0::2]
        else:
            c = _elements(c_regs, out)[:, lane, reg]
        if not integer:
            if neg_hi >> 2 & 1:
                c = np.abs(c)
            if neg >> 2 & 1:
                c = -c
        d = np.matmul(a, b.transpose(0, 2, 1)) + c                # b holds column j in row j
        bits = _to_bits(d, out, clamp=bool(mods["clamp"]))
        if half and shift is not None:      # gfx11: into one half of each register, the other kept
            words = _registers(step, d_op, count)
            words[:, lane, reg] = words[:, lane, reg] & ~(np.uint32(0xFFFF) << shift) | bits << shift
        else:
            words = _gfx12_words(step, bits, half, count, lane, reg)
        for r in range(count):
            step.ops.vgpr_write(d_op.index + r, words[..., r], step.ops.exec)
    return run


# ---- SWMMAC (gfx12: D += A x B, A 4:2 sparse) -----------------------------------------------
_SWMMAC = re.compile(r"v_swmmac_(f32|f16|bf16|i32)_16x16x(32|64)_(f16|bf16|iu8|iu4|fp8|bf8)(?:_(fp8|bf8))?$")


def sparse_indices(k, bits, lanes):
    """(lane, bit) of the 4-bit index of chunk c (k // 4) of A's row i, [i, c]: in the lane
    that holds the chunk's first stored value, at 4 x (that value's slot / 2) (AMD's
    calculator); the index's low 2 bits say where in the chunk the first stored value
    belongs, its high 2 bits the second."""
    lane, slot = wmma_gfx12_input_layout(k // 2, bits, lanes)
    return lane[:, 0::2], 4 * (slot[:, 0::2] // 2)


def _densify(step, index_op, stored, lane, bit):
    """The dense A [n, rows, k] of a 4:2 sparse one: each stored value [n, rows, k/2] (two a
    chunk of four k) at the place its chunk's 4-bit index (read at `lane`, `bit` [rows, k/4]
    of the index register) names; two values named to one place add, as the products do."""
    words = _registers(step, index_op, 1)[..., 0]
    index = words[:, lane] >> np.asarray(bit, np.uint32) & np.uint32(0xF)
    a = np.zeros(stored.shape[:2] + (2 * stored.shape[2],), stored.dtype)
    waves, rows, chunks = np.indices(index.shape)
    for t in (0, 1):
        place = 4 * chunks + (index >> np.uint32(2 * t) & np.uint32(3)).astype(np.int64)
        np.add.at(a, (waves, rows, place), stored[:, :, t::2])
    return a


def _swmmac(match):
    out, k, kind_a, kind_b, integer, float8, half = _wmma_kinds(match)

    def run(step, inst):
        a_op, b_op, index_op = inst.src
        d_op = inst.dst[0]
        lanes = step.w.lanes
        mods = inst.mods
        fp8 = step.dispatch.plan.desc.target.fp8
        neg, neg_hi = int(mods["neg"]), int(mods["neg_hi"])
        stored = _gfx12_operand(step, a_op, kind_a, k // 2, bool(neg & 1), fp8)     # [n, 16, k/2]
        b = _gfx12_operand(step, b_op, kind_b, k, bool(neg & 2), fp8)               # [n, 16, k]
        if not integer and not float8:      # A's stored values alternate halves as B's k do
            _negate_halves(stored, neg, neg_hi, 0)
            _negate_halves(b, neg, neg_hi, 1)
        lane, bit = sparse_indices(k, _BITS[kind_a], lanes)
        a = _densify(step, index_op, stored, lane, bit + 16 * int(mods.get("index_key", 0)))
        # D accumulates into itself (C is D), laid out as WMMA's.
        d_lane, d_slot = wmma_gfx12_output_layout(lanes)
        count = 16 * 16 * _BITS[out] // 32 // lanes
        c = _elements(_registers(step, d_op, count), out)[:, d_lane, d_slot]
        d = np.matmul(a, b.transpose(0, 2, 1)) + c
        result = _gfx12_words(step, _to_bits(d, out, clamp=bool(mods["clamp"])), half, count, d_lane, d_slot)
        for r in range(count):
            step.ops.vgpr_write(d_op.index + r, result[..., r], step.ops.exec)
    return run


# ---- SMFMAC (gfx940+: D += A x B, A 4:2 sparse, one block) -----------------------------------
_SMFMAC = re.compile(r"v_smfmac_(f32|i32)_(\d+)x(\d+)x(\d+)_(f16|bf16|i8|[fb][pf]8_[fb][pf]8)$")


def mfma_sparse_indices(m, k):
    """(lane, bit) of the 4-bit index of chunk c of an SMFMAC A's row i, [i, c], for index
    set 0: in the lane holding the chunk's first stored value (A is MFMA's layout of its
    stored k / 2), at 4 x (that value's slot / 2) (AMD's calculator)."""
    lane, slot = mfma_input_layout(m, k // 2, 1, m * k // 2 // 64)
    return lane[0][:, 0::2], 4 * (slot[0][:, 0::2] // 2)


def _smfmac(match):
    out, m, n, k, kind = match.groups()
    m, n, k = int(m), int(n), int(k)
    a_kind, _, b_kind = kind.partition("_") if kind[1:3] in ("p8", "f8") else (kind, "", kind)
    set_bits = m * k // 64              # index bits a lane holds per set (ABID picks the set)

    def run(step, inst):
        a_op, b_op, index_op = inst.src
        d_op = inst.dst[0]
        cbsz, abid = int(inst.mods["cbsz"]), int(inst.mods["abid"])
        if cbsz:
            raise step.illegal(f"{inst.mnemonic} with cbsz:{cbsz}: only cbsz:0 (abid naming the "
                               "index set) is modelled")
        fp8 = step.dispatch.plan.desc.target.fp8
        a_lane, a_slot = mfma_input_layout(m, k // 2, 1, m * k // 2 // 64)
        stored = _elements(_registers(step, a_op, a_op.count), a_kind, fp8=fp8)[:, a_lane[0], a_slot[0]]
        b_lane, b_slot = mfma_input_layout(n, k, 1, n * k // 64)
        b = _elements(_registers(step, b_op, b_op.count), b_kind, fp8=fp8)[:, b_lane[0], b_slot[0]]
        lane, bit = mfma_sparse_indices(m, k)
        a = _densify(step, index_op, stored, lane, bit + set_bits * abid)
        d_lane, d_reg = (x[0] for x in mfma_output_layout(m, n, 1, False))
        count = m * n // 64
        c = _elements(_registers(step, d_op, count), out)[:, d_lane, d_reg]
        words = np.zeros((step.n, step.w.lanes, count), np.uint32)
        words[:, d_lane, d_reg] = _to_bits(np.matmul(a, b.transpose(0, 2, 1)) + c, out)
        for r in range(count):
            step.ops.vgpr_write(d_op.index + r, words[..., r], step.ops.exec)
    return run


SPARSE_MNEMONICS = (
    "v_swmmac_f32_16x16x32_f16", "v_swmmac_f32_16x16x32_bf16", "v_swmmac_f16_16x16x32_f16",
    "v_swmmac_bf16_16x16x32_bf16", "v_swmmac_i32_16x16x32_iu8", "v_swmmac_i32_16x16x32_iu4",
    "v_swmmac_i32_16x16x64_iu4",
    *(f"v_swmmac_f32_16x16x32_{a}_{b}" for a in ("fp8", "bf8") for b in ("fp8", "bf8")),
)
# gfx942's SMFMAC (gfx950 runs them too; its forms of twice the K are not modelled)
SPARSE_MNEMONICS += (
    *(f"v_smfmac_f32_{shape}_{t}" for shape in ("16x16x32", "32x32x16") for t in ("f16", "bf16")),
    "v_smfmac_i32_16x16x64_i8", "v_smfmac_i32_32x32x32_i8",
    *(f"v_smfmac_f32_{shape}_{a}_{b}" for shape in ("16x16x64", "32x32x32")
      for a in ("fp8", "bf8") for b in ("fp8", "bf8")),
)
for _name in SPARSE_MNEMONICS:
    _match = _SWMMAC.match(_name)
    HANDLERS[_name] = _swmmac(_match) if _match else _smfmac(_SMFMAC.match(_name))


# The MFMA and WMMA opcodes (core/isa/opcodes_gfx90a.py, opcodes_gfx942.py, opcodes_gfx950.py,
# opcodes_gfx1100.py).
MNEMONICS = (
    "v_mfma_f32_32x32x1f32", "v_mfma_f32_16x16x1f32", "v_mfma_f32_4x4x1f32",
    "v_mfma_f32_32x32x2f32", "v_mfma_f32_16x16x4f32", "v_mfma_f32_32x32x4f16",
    "v_mfma_f32_16x16x4f16", "v_mfma_f32_4x4x4f16", "v_mfma_f32_32x32x8f16",
    "v_mfma_f32_16x16x16f16", "v_mfma_i32_32x32x4i8", "v_mfma_i32_16x16x4i8",
    "v_mfma_i32_4x4x4i8", "v_mfma_i32_32x32x8i8", "v_mfma_i32_16x16x16i8",
    "v_mfma_f32_32x32x4bf16_1k", "v_mfma_f32_16x16x4bf16_1k", "v_mfma_f32_4x4x4bf16_1k",
    "v_mfma_f32_32x32x8bf16_1k", "v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_32x32x2bf16",
    "v_mfma_f32_16x16x2bf16", "v_mfma_f32_4x4x2bf16", "v_mfma_f32_32x32x4bf16",
    "v_mfma_f32_16x16x8bf16", "v_mfma_f64_16x16x4f64", "v_mfma_f64_4x4x4f64",
    # gfx940+ (opcodes_gfx942.py): gfx90a's MFMA renamed, bf16 only as gfx90a's _1k forms, and
    # the i8 products with twice the K.
    "v_mfma_f32_32x32x1_2b_f32", "v_mfma_f32_16x16x1_4b_f32", "v_mfma_f32_4x4x1_16b_f32",
    "v_mfma_f32_32x32x2_f32", "v_mfma_f32_16x16x4_f32", "v_mfma_f32_32x32x4_2b_f16",
    "v_mfma_f32_16x16x4_4b_f16", "v_mfma_f32_4x4x4_16b_f16", "v_mfma_f32_32x32x8_f16",
    "v_mfma_f32_16x16x16_f16", "v_mfma_i32_32x32x4_2b_i8", "v_mfma_i32_16x16x4_4b_i8",
    "v_mfma_i32_4x4x4_16b_i8", "v_mfma_i32_32x32x16_i8", "v_mfma_i32_16x16x32_i8",
    "v_mfma_f32_32x32x4_2b_bf16", "v_mfma_f32_16x16x4_4b_bf16", "v_mfma_f32_4x4x4_16b_bf16",
    "v_mfma_f32_32x32x8_bf16", "v_mfma_f32_16x16x16_bf16", "v_mfma_f64_16x16x4_f64",
    "v_mfma_f64_4x4x4_4b_f64",
    "v_mfma_f32_16x16x8_xf32", "v_mfma_f32_32x32x4_xf32",
    *(f"v_mfma_f32_{shape}_{a}_{b}" for shape in ("16x16x32", "32x32x16")
      for a in ("fp8", "bf8") for b in ("fp8", "bf8")),
    # gfx950 (opcodes_gfx950.py): f16, bf16 and i8 products of twice gfx942's K, and the
    # 8-bit float ones of four times it.
    "v_mfma_f32_16x16x32_f16", "v_mfma_f32_32x32x16_f16", "v_mfma_f32_16x16x32_bf16",
    "v_mfma_f32_32x32x16_bf16", "v_mfma_i32_16x16x64_i8", "v_mfma_i32_32x32x32_i8",
    "v_mfma_f32_16x16x128_f8f6f4", "v_mfma_f32_32x32x64_f8f6f4",
    # gfx950's scaled form of them (a v_mfma_ld_scale_b32 word, then the MFMA's).
    "v_mfma_scale_f32_16x16x128_f8f6f4", "v_mfma_scale_f32_32x32x64_f8f6f4",
    "v_wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_bf16", "v_wmma_f16_16x16x16_f16",
    "v_wmma_bf16_16x16x16_bf16", "v_wmma_i32_16x16x16_iu8", "v_wmma_i32_16x16x16_iu4",
    # gfx12 (opcodes_gfx1200.py): the same names in its own layout, 8-bit float products, and
    # iu4 of twice the K.
    *(f"v_wmma_f32_16x16x16_{a}_{b}" for a in ("fp8", "bf8") for b in ("fp8", "bf8")),
    "v_wmma_i32_16x16x32_iu4",
)
for _name in MNEMONICS:
    _match = _MFMA.match(_name)
    HANDLERS[_name] = _mfma(_match) if _match else _wmma(_WMMA.match(_name))
