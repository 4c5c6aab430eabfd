"""Cross-lane operations in translated code: v_readlane/v_writelane/v_readfirstlane,
v_permlane16/x16 (gfx12's _var forms too), v_permlane64, v_swap_b32, and the DPP16/DPP8/SDWA operand forms of VALU instructions
(the interpreter's core/isa/interp/lanes.py, translated; M0-relative moves stay on the
interpreter).

Holds these invariants:
- DPP sources are constant lane permutations (shufflevector over core.isa.semantics.lanes' plans):
  a lane whose source is out of its row, or inactive without fetch-inactive, reads 0 and is
  not written unless bound_ctrl asks for it; rows and banks masked off are not written;
- v_writelane ignores EXEC (the compiler spills SGPRs into VGPR lanes with it).
"""
import llvmlite.ir as ir

from core.isa.native import operands as O
from core.isa.native.families import handles
from core.isa.native.program import Untranslatable
from core.isa.native.ir_types import I1, I32, I64, const
from core.isa.semantics.lanes import (ROW, SDWA_BITS, SDWA_DWORD, SDWA_SHIFT, SDWA_UNUSED_PAD,
                                      SDWA_UNUSED_PRESERVE, SDWA_UNUSED_SEXT, dpp_enabled, dpp_masks,
                                      dpp_plan)


def _plan(k, inst):
    try:
        return dpp_plan(inst, k.lanes, k.program.target.generation == "gfx9")
    except ValueError as exc:
        # A dpp_ctrl the target does not define: the interpreter faults on it, naming it.
        raise Untranslatable(str(exc), inst) from None


def _readable(k, inst, source, in_range):
    b = k.builder
    in_range = ir.Constant(k.VB, [bool(x) for x in in_range])
    if inst.mods.get("fi"):
        return in_range
    alive = b.shuffle_vector(k.exec_mask(), ir.Constant(k.VB, None),
                             ir.Constant(k.V, [int(s) for s in source]))
    return b.and_(in_range, alive)


def dpp_source(k, inst, values):
    b = k.builder
    source, in_range = _plan(k, inst)
    moved = b.shuffle_vector(values, ir.Constant(values.type, None),
                             ir.Constant(k.V, [int(s) for s in source]))
    return b.select(_readable(k, inst, source, in_range), moved, ir.Constant(values.type, None))


def dpp_write_mask(k, inst):
    source, in_range = _plan(k, inst)
    if inst.mods.get("bound_ctrl"):
        mask = ir.Constant(k.VB, [True] * k.lanes)
    else:
        mask = _readable(k, inst, source, in_range)
    if inst.form == "dpp":
        enabled = dpp_enabled(*dpp_masks(inst), k.lanes)
        mask = k.builder.and_(mask, ir.Constant(k.VB, [bool(x) for x in enabled]))
    return mask


def sdwa_source(k, inst, values, i, type_):
    b = k.builder
    if type_ == "mask" or values.type.element == I1:
        return values
    sel = int(inst.mods.get(f"src{i}_sel", SDWA_DWORD))
    if sel == SDWA_DWORD:
        return values
    bits = SDWA_BITS[sel]
    field = b.and_(b.lshr(values, k.splat(const(I32, SDWA_SHIFT[sel]))), k.splat(const(I32, (1 << bits) - 1)))
    if inst.mods.get(f"src{i}_sext"):
        sign = k.splat(const(I32, 1 << (bits - 1)))
        field = b.sub(b.xor(field, sign), sign)
    return field


def sdwa_dest(k, inst, target, value):
    b = k.builder
    sel = int(inst.mods.get("dst_sel", SDWA_DWORD))
    if sel == SDWA_DWORD:
        return value
    unused = int(inst.mods.get("dst_unused", SDWA_UNUSED_PAD))
    shift, bits = SDWA_SHIFT[sel], SDWA_BITS[sel]
    field_mask = ((1 << bits) - 1) << shift
    placed = b.and_(b.shl(value, k.splat(const(I32, shift))), k.splat(const(I32, field_mask)))
    if unused == SDWA_UNUSED_PRESERVE:
        old = O.vgpr(k, target.index)
        return b.or_(b.and_(old, k.splat(const(I32, ~field_mask & 0xFFFFFFFF))), placed)
    if unused == SDWA_UNUSED_SEXT:
        top = k.splat(const(I32, 1 << (shift + bits - 1)))
        above = (0xFFFFFFFF << (shift + bits)) & 0xFFFFFFFF if shift + bits < 32 else 0
        negative = b.icmp_unsigned("!=", b.and_(placed, top), k.splat(const(I32, 0)))
        return b.or_(placed, b.select(negative, k.splat(const(I32, above)), k.splat(const(I32, 0))))
    return placed


def _lane(k, op):
    b = k.builder
    return b.urem(O.scalar(k, op), const(I32, k.lanes))


@handles("v_readlane_b32")
def _readlane(k, inst):
    values = O.vector(k, inst.src[0])
    O.write_scalar(k, inst.dst[0], k.builder.extract_element(values, _lane(k, inst.src[1])))


@handles("v_readfirstlane_b32")
def _readfirstlane(k, inst):
    b = k.builder
    values = O.vector(k, inst.src[0])
    bits = k.exec_bits()
    first = k.call(f"llvm.cttz.i{k.lanes}", k.MASK, [bits, const(I1, 0)])
    first = b.select(b.icmp_unsigned("==", bits, const(k.MASK, 0)), const(k.MASK, 0), first)
    index = b.trunc(first, I32) if k.lanes == 64 else first
    O.write_scalar(k, inst.dst[0], b.extract_element(values, index))


@handles("v_writelane_b32")
def _writelane(k, inst):
    b = k.builder
    value = O.scalar(k, inst.src[0])
    lane = _lane(k, inst.src[1])
    target = inst.dst[0]
    O.write_vgpr(k, target.index, b.insert_element(O.vgpr(k, target.index), value, lane),
                 active=ir.Constant(k.VB, [True] * k.lanes))


def _permlane(k, inst, cross):
    """v_permlane(x)16: each lane's select is a nibble of the 64-bit S1:S2 pair."""
    b = k.builder
    select = b.or_(b.zext(O.scalar(k, inst.src[1]), I64),
                   b.shl(b.zext(O.scalar(k, inst.src[2]), I64), const(I64, 32)))
    nibbles = [b.trunc(b.and_(b.lshr(select, const(I64, 4 * (lane % ROW))), const(I64, 0xF)), I32)
               for lane in range(k.lanes)]
    _gather_rows(k, inst, nibbles, cross)


def _permlane_var(k, inst, cross):
    """gfx12's v_permlane(x)16_var: each lane's select is the low nibble of its own S1."""
    b = k.builder
    selects = b.and_(O.vector(k, inst.src[1]), k.splat(const(I32, 0xF)))
    _gather_rows(k, inst, [b.extract_element(selects, const(I32, lane)) for lane in range(k.lanes)],
                 cross)


def _gather_rows(k, inst, nibbles, cross):
    """Lane i of vdst takes src0 from lane nibbles[i] of its own row of 16 (cross: of the
    other row); op_sel's fetch-inactive and bound-control bits say what an inactive source
    gives."""
    b = k.builder
    values = O.vector(k, inst.src[0])
    op_sel = int(inst.mods.get("op_sel", 0))
    fetch_inactive, bound_ctrl = op_sel & 1, op_sel >> 1 & 1
    exec_mask = k.exec_mask()
    gathered = ir.Constant(k.V, None)
    readable = ir.Constant(k.VB, None)
    for lane, nibble in enumerate(nibbles):
        row = lane // ROW
        source = b.urem(b.add(const(I32, ((row ^ 1) if cross else row) * ROW), nibble), const(I32, k.lanes))
        gathered = b.insert_element(gathered, b.extract_element(values, source), const(I32, lane))
        alive = b.extract_element(exec_mask, source)
        readable = b.insert_element(readable, b.or_(alive, const(I1, fetch_inactive)), const(I32, lane))
    active = b.and_(exec_mask, b.or_(readable, k.splat(const(I1, bound_ctrl))))
    O.write_vgpr(k, inst.dst[0].index, b.select(readable, gathered, ir.Constant(k.V, None)), active)


@handles("v_permlane64_b32")
def _permlane64(k, inst):
    """gfx11+: in wave64 each active lane takes src0 of the lane 32 away (inactive or not);
    in wave32 the ISA makes it a v_nop, which writes nothing."""
    if k.lanes != 64:
        return
    values = O.vector(k, inst.src[0])
    swapped = k.builder.shuffle_vector(values, ir.Constant(k.V, None),
                                       ir.Constant(k.V, [lane ^ 32 for lane in range(64)]))
    O.write_vgpr(k, inst.dst[0].index, swapped)


# The row permutes: where each lane's select comes from, and whether it reads the other row.
for _name, _gather, _cross in (("v_permlane16_b32", _permlane, False),
                               ("v_permlanex16_b32", _permlane, True),
                               ("v_permlane16_var_b32", _permlane_var, False),
                               ("v_permlanex16_var_b32", _permlane_var, True)):
    handles(_name)(lambda k, inst, gather=_gather, cross=_cross: gather(k, inst, cross))


@handles("v_swap_b32")
def _swap(k, inst):
    a, c = inst.dst[0], inst.src[0]
    first, second = O.vgpr(k, a.index), O.vgpr(k, c.index)
    O.write_vgpr(k, a.index, second)
    O.write_vgpr(k, c.index, first)


@handles("v_swap_b16")
def _swap16(k, inst):
    # The interpreter's order: both halves read, then each written into its register.
    b = k.builder
    op_sel = int(inst.mods.get("op_sel", 0))
    parts = [(op.index, 16 * hi) for op, hi in ((inst.dst[0], op_sel >> 3 & 1), (inst.src[0], op_sel & 1))]
    halves = [b.and_(b.lshr(O.vgpr(k, index), k.splat(const(I32, shift))), k.splat(const(I32, 0xFFFF)))
              for index, shift in parts]
    for (index, shift), half in zip(parts, reversed(halves)):
        kept = b.and_(O.vgpr(k, index), k.splat(const(I32, ~(0xFFFF << shift) & 0xFFFFFFFF)))
        O.write_vgpr(k, index, b.or_(kept, b.shl(half, k.splat(const(I32, shift)))))
