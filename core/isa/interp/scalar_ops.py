"""SALU instructions wired to the ALU library, with SCC and EXEC as ordinary operands.

Holds these invariants:
- an op's declared types map its operands: 'scc' sources and results go to the SCC bit of
  each wave, every other type to the instruction's operands in assembly order (implicit
  ones, e.g. EXEC of s_and_saveexec_b32, last);
- 64-bit types read and write SGPR pairs, so s_mov_b64 exec and friends are exact.
"""
from core.isa import alu
from core.isa.interp.registry import family
from core.isa.semantics.salu import salu_operands


@family("SOP1", "SOP2", "SOPC", "SOPK")
def salu(inst):
    try:
        op = alu.lookup(inst.mnemonic)
    except KeyError:
        return None
    sources, dests = salu_operands(inst, op.reads_dst)

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
