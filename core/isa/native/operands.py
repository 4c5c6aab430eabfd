"""Reading and writing instruction operands in translated code, per ALU operand type.

Holds these invariants (the interpreter's, core/isa/interp/operands.py):
- a source arrives in the representation its type names (core.isa.alu): 32- and 16-bit
  values as i32, 64-bit as i64, lane masks as <lanes x i1>, SCC as i1; scalar sources of
  vector instructions are splat to <lanes x ...>;
- a vector write changes only lanes whose EXEC (or `active`) bit is set, 16-bit writes keep
  the other half; a lane-mask write clears the bits of inactive lanes;
- writes to null are dropped, constants are never written, and an operand the
  interpreter faults on faults here with the same reason.
"""
import llvmlite.ir as ir

from core.isa.instruction import EXEC_LO, NULL, SCC, VCC_LO
from core.isa.native.ir_types import I1, I32, I64, const
from core.isa.semantics.operands import APERTURES, HALF_TYPES, WIDE_TYPES, constant_bits


def slot_of(k, op):
    if op.kind in ("sgpr", "special"):
        return op.index
    if op.kind == "ttmp":
        return 108 + op.index
    if op.kind == "null":
        return NULL
    return None


def scalar(k, op, type_="b32"):
    """A scalar source: i32, or i64 for 64-bit types."""
    b = k.builder
    wide = type_ in WIDE_TYPES
    width = I64 if wide else I32
    kind = op.kind
    if kind in ("sgpr", "special", "ttmp"):
        slot = slot_of(k, op)
        if slot == SCC:                                # src_scc
            return b.zext(b.load(k.scc), width)
        if slot in APERTURES:
            hi, lo = APERTURES[slot]
            return const(width, (hi << 32 | lo) if wide else hi)
        if slot in (251, 252):                         # src_vccz, src_execz
            base = VCC_LO if slot == 251 else EXEC_LO
            lo = b.load(k.sgpr_slot(base))
            hi = b.load(k.sgpr_slot(base + 1))
            return b.zext(b.icmp_unsigned("==", b.or_(lo, hi), const(I32, 0)), width)
        if slot == NULL:
            return const(width, 0)
        if slot >= 128:
            k.illegal(f"source {op.text} is not modelled")
            return const(width, 0)
        if wide:
            lo = b.zext(b.load(k.sgpr_slot(slot)), I64)
            hi = b.zext(b.load(k.sgpr_slot(slot + 1)), I64)
            return b.or_(lo, b.shl(hi, const(I64, 32)))
        return b.load(k.sgpr_slot(slot))
    if kind in ("inline_int", "inline_float", "literal"):
        return const(width, constant_bits(op, type_))
    if kind == "null":
        return const(width, 0)
    k.illegal(f"operand {op.text} cannot be a scalar source")
    return const(width, 0)


def write_scalar(k, op, value, type_="b32"):
    b = k.builder
    slot = slot_of(k, op)
    if slot is None:
        k.illegal(f"operand {op.text} is not a scalar register")
        return
    if slot == NULL:
        return
    if slot >= 128 or (type_ in WIDE_TYPES and slot + 1 >= 128):
        k.illegal(f"scalar register {slot if slot >= 128 else slot + 1} cannot be written")
        return
    if type_ in WIDE_TYPES:
        value = _as(b, value, I64)
        b.store(b.trunc(value, I32), k.sgpr_slot(slot))
        b.store(b.trunc(b.lshr(value, const(I64, 32)), I32), k.sgpr_slot(slot + 1))
    else:
        b.store(_as(b, value, I32), k.sgpr_slot(slot))


def _as(b, value, type_):
    if value.type == type_:
        return value
    if value.type.width < type_.width:
        return b.zext(value, type_)
    return b.trunc(value, type_)


def mask(k, op):
    """A lane-mask source as <lanes x i1>."""
    type_ = "b64" if k.lanes == 64 else "b32"
    return k.lane_mask(scalar(k, op, type_))


def write_mask(k, op, value, active=None):
    """Write a lane mask (inactive lanes as 0) to an SGPR (pair), VCC or EXEC."""
    b = k.builder
    value = b.and_(value, k.exec_mask() if active is None else active)
    bits = b.bitcast(value, k.MASK)
    write_scalar(k, op, bits, "b64" if k.lanes == 64 else "b32")


def vector(k, op, type_="b32"):
    """A vector source: <lanes x i32> / <lanes x i64> / <lanes x i1> ('mask', 'scc')."""
    b = k.builder
    if op.kind == "vgpr":
        if type_ in WIDE_TYPES:
            lo = vgpr(k, op.index)
            hi = vgpr(k, op.index + 1)
            return b.or_(b.zext(lo, k.V64), b.shl(b.zext(hi, k.V64), k.splat(const(I64, 32))))
        return vgpr(k, op.index)
    if type_ == "mask":
        return mask(k, op)
    if type_ == "scc":
        return k.splat(b.load(k.scc))
    if type_ == "pk16" and op.kind == "inline_float":
        return k.splat(scalar(k, op, "f16"))
    if type_ == "pk16" and op.kind == "literal":
        return k.splat(scalar(k, op, "b32"))
    return k.splat(scalar(k, op, type_))


def vgpr(k, index):
    """VGPR `index` as <lanes x i32>; beyond the kernel's VGPRs it faults as the interpreter."""
    try:
        return k.builder.load(k.vgpr_slot(index))
    except IndexError:
        k.illegal(f"v{index} is beyond the kernel's {k.nvgpr} VGPRs")
        return ir.Constant(k.V, None)


def write_vgpr(k, index, value, active=None):
    b = k.builder
    try:
        slot = k.vgpr_slot(index)
    except IndexError:
        k.illegal(f"v{index} is beyond the kernel's {k.nvgpr} VGPRs")
        return
    active = k.exec_mask() if active is None else active
    b.store(b.select(active, value, b.load(slot)), slot)


def vgprs(k, index, words):
    """VGPR `index` (words 1), or the 64-bit value of the pair from it, low word first (words 2)."""
    b = k.builder
    low = vgpr(k, index)
    if words == 1:
        return low
    return b.or_(b.zext(low, k.V64), b.shl(b.zext(vgpr(k, index + 1), k.V64), k.splat(const(I64, 32))))


def write_vgprs(k, index, value, words, active=None):
    """Write a 32-bit `value` (words 1), or a 64-bit one to the pair from `index`, low word first."""
    b = k.builder
    if words == 1:
        write_vgpr(k, index, value, active)
        return
    write_vgpr(k, index, b.trunc(value, k.V), active)
    write_vgpr(k, index + 1, b.trunc(b.lshr(value, k.splat(const(I64, 32))), k.V), active)


def write_vector(k, op, value, type_="b32", active=None, hi=False):
    """Write `value` to the VGPR(s) of `op` in the lanes of `active` (default EXEC)."""
    if op.kind != "vgpr":
        k.illegal(f"operand {op.text} is not a VGPR destination")
        return
    if type_ in WIDE_TYPES:
        write_vgprs(k, op.index, value, 2, active)
        return
    if type_ in HALF_TYPES:
        value = merge16(k, vgpr(k, op.index), value, hi)
    write_vgpr(k, op.index, value, active)


def merge16(k, old, value, hi):
    """A 16-bit result into one half of a VGPR, keeping the other half (gfx10)."""
    b = k.builder
    low = b.and_(value, k.splat(const(I32, 0xFFFF)))
    if hi:
        return b.or_(b.and_(old, k.splat(const(I32, 0xFFFF))), b.shl(low, k.splat(const(I32, 16))))
    return b.or_(b.and_(old, k.splat(const(I32, 0xFFFF0000))), low)


def scc_value(k, value):
    """An i1 (or <1 x i1>) SCC result as i1."""
    return value if value.type == I1 else k.builder.trunc(value, I1)
