"""SALU operand plans: which operands a decoded SALU instruction reads and writes, in the
order its ALU operation's types map them.

Guarantees: SCC is never among the operands (operations read and write it through their
'scc' types); reads_dst operations (s_addk, s_cmov, s_bitset) take the old destination after
the explicit sources; saveexec/wrexec operations read and write EXEC last (the decoder
leaves it out), as a 64-bit pair for the _b64 forms.
"""
from core.isa.instruction import EXEC_LO, SCC, Operand


def _not_scc(operand):
    return not (operand.kind == "special" and operand.index == SCC)


def salu_operands(inst, reads_dst):
    """(sources, destinations) of `inst` for an operation that does or does not read its
    destination."""
    old = inst.dst[:1] if reads_dst else ()
    sources = tuple(filter(_not_scc, inst.src + old + inst.implicit_src))
    dests = tuple(filter(_not_scc, inst.dst + inst.implicit_dst))
    if "saveexec" in inst.mnemonic or "wrexec" in inst.mnemonic:
        exec_operand = Operand("special", EXEC_LO, 2 if inst.mnemonic.endswith("64") else 1)
        sources, dests = sources + (exec_operand,), dests + (exec_operand,)
    return sources, dests
