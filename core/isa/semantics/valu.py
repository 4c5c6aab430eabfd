"""VALU operand plans: for one decoded VALU instruction and the ALU operation it names, what
each of the operation's arguments is read from and how (Read), where each of its results goes
and how (Write), its modifiers; the order a gfx11 VOPD pair runs its halves in; the scalar
operations gfx90a's packed f32 instructions apply to each half.

Guarantees:
- the operation's source types take, in order, the lane ids ("lane" types), else the next of
  the explicit sources, then the old destination for reads_dst operations (v_fmac, v_mac,
  v_dot2c), then the implicit sources; a "mask" type with no operand left reads VCC
  (v_div_fmas); with none left for another type the plan is `short` (the instruction is
  illegal when it runs, on either tier);
- src0 of a DPP form, and src0 and src1 of an SDWA form, pass through their lane operation;
  an SDWA form's 64-bit result goes to its register pair whole (dst_sel DWORD; another
  dst_sel makes the plan `short`);
- its result types take, in order, the explicit destinations, then the implicit ones: a mask
  result goes to its destination unless that is EXEC or missing (and to EXEC as well for
  v_cmpx), an "scc" result to SCC, any other to a VGPR, shaped by SDWA's dst_sel, or with the
  high half zeroed (zero_high16), or into the half dst_hi names;
- the plan's kwargs are the instruction's modifiers (`byte_sel` among them: which byte or
  word of a source an 8-bit float conversion reads or writes), plus the target's 8-bit float
  flavour (`fp8`: "fnuz" or "ocp") for operations that use it;
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
from core.isa.semantics.lanes import SDWA_DWORD
from core.isa.semantics.operands import HALF_TYPES

EXEC = Operand("special", EXEC_LO, 1)       # lane-mask writes size themselves by wave size

# The modifiers an ALU operation takes as keyword arguments (clamp as a bool, the rest ints).
_INT_MODS = ("neg", "abs", "omod", "op_sel", "op_sel_hi", "neg_hi", "byte_sel")


class Read(NamedTuple):
    """One argument of the ALU operation: the lane ids ("lane"), VCC at the wave's size ("vcc"),
    or `operand` ("operand"), read as `type`; `lanes` "dpp" or "sdwa" passes it through that
    form's lane operation (as its source `index`)."""
    kind: str
    operand: object
    type: str
    lanes: object
    index: int


class Write(NamedTuple):
    """One result of the ALU operation: a lane mask ("mask"; `target` None: to no register but
    EXEC for v_cmpx), SCC ("scc"), or a VGPR written as `how`: "sdwa" (dst_sel), "zero_high16"
    (a 16-bit result with the high half zeroed) or "plain" (as `type`, into dst_hi's half)."""
    kind: str
    target: object
    type: str
    how: object


class ValuPlan(NamedTuple):
    reads: tuple
    writes: tuple
    short: object               # None, or why the instruction cannot run (too few operands)
    kwargs: dict                # modifiers for the ALU operation
    cmpx: bool                  # v_cmpx: the result mask is written to EXEC as well
    dst_hi: bool


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
    if op.uses_fp8:
        kwargs["fp8"] = targets.get(inst.target).fp8
    sources = inst.src + (inst.dst[:1] if op.reads_dst else ()) + inst.implicit_src
    dests = inst.dst + inst.implicit_dst
    dst_hi = (bool(kwargs.get("op_sel", 0) >> 3 & 1) or op.dst_hi) and not op.packed
    if dst_hi and op.reads_dst:
        kwargs["op_sel"] = kwargs.get("op_sel", 0) | 1 << len(inst.src)
    facts = targets.get(inst.target)
    zero_high16 = facts.high16_zeroed and inst.mnemonic not in facts.high16_kept
    reads, short = [], None
    operands = iter(sources)
    for i, t in enumerate(op.src_types):
        lanes = ("dpp" if i == 0 and inst.form in ("dpp", "dpp8")
                 else "sdwa" if inst.form == "sdwa" and i < 2 else None)
        if t == "lane":
            reads.append(Read("lane", None, t, None, i))
            continue
        operand = next(operands, None)
        if operand is None and t != "mask":
            short = f"{inst.mnemonic}: fewer operands than its ALU op reads"
            break
        reads.append(Read("vcc" if operand is None else "operand", operand, t, lanes, i))
    writes = []
    targets_left = iter(dests)
    for t in op.dst_types:
        if t == "scc":
            writes.append(Write("scc", None, t, None))
            continue
        target = next(targets_left, None)
        if t == "mask":
            writes.append(Write("mask", None if target is None or is_exec(target) else target, t, None))
        elif target is None:
            short = short or f"{inst.mnemonic}: fewer operands than its ALU op writes"
        else:
            sdwa = inst.form == "sdwa"
            if sdwa and target.count == 2:
                # dst_sel shapes a dword: a pair (gfx940's packed 8-bit conversions) is written
                # whole, as llvm prints it, with DWORD
                if int(inst.mods.get("dst_sel", SDWA_DWORD)) != SDWA_DWORD:
                    short = short or f"{inst.mnemonic}: SDWA dst_sel on a 64-bit result is not modelled"
                sdwa = False
            how = ("sdwa" if sdwa else
                   "zero_high16" if zero_high16 and t in HALF_TYPES else "plain")
            writes.append(Write("vector", target, t, how))
    return ValuPlan(tuple(reads), tuple(writes), short, kwargs, inst.mnemonic.startswith("v_cmpx"),
                    bool(dst_hi))


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
