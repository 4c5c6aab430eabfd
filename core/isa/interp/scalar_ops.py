"""SALU instructions wired to the ALU library, with SCC and EXEC as ordinary operands.

Holds two invariants:
- an op's declared types map its operands: 'scc' sources and results go to the SCC bit of
  each wave, every other type to the instruction's operands in assembly order (implicit
  ones, e.g. EXEC of s_and_saveexec_b32, last);
- 64-bit types read and write SGPR pairs, so s_mov_b64 exec and friends are exact.
"""
from core.isa import alu
from core.isa.interp.registry import family
from core.isa.instruction import EXEC_LO, SCC, Operand


def _not_scc(operand):
    return not (operand.kind == "special" and operand.index == SCC)


@family("SOP1", "SOP2", "SOPC", "SOPK")
def salu(inst):
    try:
        op = alu.lookup(inst.mnemonic)
    except KeyError:
        return None
    # reads_dst ops (s_addk, s_cmov, s_bitset) take the old destination after the explicit sources.
    sources = tuple(filter(_not_scc, inst.src + (inst.dst[:1] if op.reads_dst else ()) + inst.implicit_src))
    dests = tuple(filter(_not_scc, inst.dst + inst.implicit_dst))
    if "saveexec" in inst.mnemonic or "wrexec" in inst.mnemonic:
        # EXEC is the implicit second source and second result (the decoder leaves it out).
        exec_operand = Operand("special", EXEC_LO, 2 if inst.mnemonic.endswith("64") else 1)
        sources, dests = sources + (exec_operand,), dests + (exec_operand,)

    def run(step, inst):
        ops = step.ops
        args = []
        operands = iter(sources)
        for t in op.src_types:
            if t == "scc":
                args.append(step.w.scc[step.idx])
            else:
                operand = next(operands, None)
                if operand is None:
                    raise step.illegal(f"{inst.mnemonic}: fewer operands than its ALU op reads")
                args.append(ops.scalar(operand, t))
        results = op(*args)
        targets = iter(dests)
        for t, value in zip(op.dst_types, results):
            if t == "scc":
                step.w.scc[step.idx] = value
            else:
                ops.write_scalar(next(targets), value, t)
    return run
