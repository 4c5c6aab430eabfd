"""VALU operand plans: for one decoded VALU instruction and the ALU operation it names, which
operands it reads and writes in the order the operation's types map them, its modifiers,
and how its 16-bit results are written; the order a gfx11 VOPD pair runs its halves in; the
scalar operations gfx90a's packed f32 instructions apply to each half.

Guarantees:
- sources are the explicit sources, then the old destination for reads_dst operations
  (v_fmac, v_mac, v_dot2c), then the implicit sources; destinations are the explicit, then
  the implicit ones;
- dst_hi (write the high 16 bits) is op_sel bit 3 or the operation's own choice, never for
  packed operations; an operation that reads its destination (v_fmac_f16) reads the half it
  writes; zero_high16 holds where the target zeroes the high half of 16-bit
  results (gfx9) and does not keep it for this mnemonic;
- dual_issue_order runs the halves as if both read their sources before either writes, or
  is None where no order does.
"""
from typing import NamedTuple

from core.isa import targets
from core.isa.instruction import EXEC_LO, VCC_LO, Operand

EXEC = Operand("special", EXEC_LO, 1)       # lane-mask writes size themselves by wave size

# The modifiers an ALU operation takes as keyword arguments (clamp as a bool, the rest ints).
_INT_MODS = ("neg", "abs", "omod", "op_sel", "op_sel_hi", "neg_hi")


class ValuPlan(NamedTuple):
    sources: tuple
    dests: tuple
    kwargs: dict                # modifiers for the ALU operation
    cmpx: bool                  # v_cmpx: the result mask is written to EXEC as well
    dst_hi: bool
    zero_high16: bool


def mods_kwargs(mods):
    """The instruction's ALU modifiers as the ALU operation's keyword arguments."""
    kw = {}
    for name in _INT_MODS:
        if name in mods:
            kw[name] = int(mods[name])
    if "clamp" in mods:
        kw["clamp"] = bool(mods["clamp"])
    return kw


def valu_plan(inst, op):
    """The plan of `inst` for `op`, anything with the ALU's reads_dst, dst_hi and packed."""
    kwargs = mods_kwargs(inst.mods)
    sources = inst.src + (inst.dst[:1] if op.reads_dst else ()) + inst.implicit_src
    dests = inst.dst + inst.implicit_dst
    dst_hi = (bool(kwargs.get("op_sel", 0) >> 3 & 1) or op.dst_hi) and not op.packed
    if dst_hi and op.reads_dst:
        kwargs["op_sel"] = kwargs.get("op_sel", 0) | 1 << len(inst.src)
    facts = targets.get(inst.target)
    zero_high16 = facts.high16_zeroed and inst.mnemonic not in facts.high16_kept
    return ValuPlan(sources, dests, kwargs, inst.mnemonic.startswith("v_cmpx"), bool(dst_hi),
                    zero_high16)


def vcc(lanes):
    """VCC as an operand of a wave of `lanes` lanes (what v_div_fmas reads without naming)."""
    return Operand("special", VCC_LO, 2 if lanes == 64 else 1)


def is_exec(operand):
    return operand.kind == "special" and operand.index == EXEC_LO


def _vgprs(operands):
    return {op.index + k for op in operands if op.kind == "vgpr" for k in range(op.count)}


def dual_issue_order(inst):
    """The halves of a gfx11 VOPD record in an order that runs them one after the other as
    if both read their sources before either writes: one half first where the other does
    not read what it writes (llvm pairs only such halves; hardware forbids the same VGPR as
    both destinations); None when neither order does."""
    x, y = inst.halves
    if not _vgprs(y.src + y.dst) & _vgprs(x.dst):
        return (x, y)
    if not _vgprs(x.src + x.dst) & _vgprs(y.dst):
        return (y, x)
    return None


# gfx90a packed f32 mnemonic -> the scalar operation each 32-bit half is.
PACKED_F32 = {"v_pk_fma_f32": "v_fma_f32", "v_pk_mul_f32": "v_mul_f32",
              "v_pk_add_f32": "v_add_f32"}
