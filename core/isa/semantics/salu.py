"""SALU operand plans: what each argument of a decoded SALU instruction's ALU operation is read
from, and where each result goes, in the order the operation's types map them.

Guarantees: an 'scc' type reads or writes SCC, every other type the next operand, so SCC is
never among the operands; reads_dst operations (s_addk, s_cmov, s_bitset) take the old
destination after the explicit sources; saveexec/wrexec operations read and write EXEC last
(the decoder leaves it out), as a 64-bit pair for the _b64 forms; with too few operands for
the types the plan is `short` (the instruction is illegal when it runs, on either tier);
gfx12's v_s_* (VOP3 words computing one value per wave into an SGPR, whatever EXEC holds:
SCALAR_VALU) run on this plan too, with their VOP3 modifiers.
"""
from typing import NamedTuple

from core.isa.instruction import EXEC_LO, SCC, Operand
from core.isa.alu.scalar_float import SCALAR_TWINS
from core.isa.semantics.valu import mods_kwargs

SCALAR_VALU = tuple(name for name in SCALAR_TWINS if name.startswith("v_s_"))


class SaluPlan(NamedTuple):
    reads: tuple                # per source type: an Operand, or None for SCC
    writes: tuple               # per result type: an Operand, or None for SCC
    short: object               # None, or why the instruction cannot run
    kwargs: dict                # the ALU operation's modifiers (a v_s_* op's VOP3 ones)


def _not_scc(operand):
    return not (operand.kind == "special" and operand.index == SCC)


def _operands(inst, reads_dst):
    """(sources, destinations) of `inst` for an operation that does or does not read its
    destination."""
    old = inst.dst[:1] if reads_dst else ()
    sources = tuple(filter(_not_scc, inst.src + old + inst.implicit_src))
    dests = tuple(filter(_not_scc, inst.dst + inst.implicit_dst))
    if "saveexec" in inst.mnemonic or "wrexec" in inst.mnemonic:
        exec_operand = Operand("special", EXEC_LO, 2 if inst.mnemonic.endswith("64") else 1)
        sources, dests = sources + (exec_operand,), dests + (exec_operand,)
    return sources, dests


def salu_plan(inst, op):
    """The plan of `inst` for `op`, anything with the ALU's src_types, dst_types and reads_dst."""
    sources, dests = _operands(inst, op.reads_dst)
    sources, dests = iter(sources), iter(dests)
    missing = object()
    reads = tuple(None if t == "scc" else next(sources, missing) for t in op.src_types)
    writes = tuple(None if t == "scc" else next(dests, missing) for t in op.dst_types)
    short = (f"{inst.mnemonic}: fewer operands than its ALU op reads" if missing in reads else
             f"{inst.mnemonic}: fewer operands than its ALU op writes" if missing in writes else None)
    return SaluPlan(reads, writes, short, mods_kwargs(inst.mods) if inst.encoding == "VOP3" else {})
