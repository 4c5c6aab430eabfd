"""SALU instructions wired to the ALU library, with SCC and EXEC as ordinary operands.

Holds these invariants:
- an op's declared types map its operands: 'scc' sources and results go to the SCC bit of
  each wave, every other type to the instruction's operands in assembly order (implicit
  ones, e.g. EXEC of s_and_saveexec_b32, last);
- 64-bit types read and write SGPR pairs, so s_mov_b64 exec and friends are exact.
"""
from core.isa import alu
from core.isa.interp.registry import family
from core.isa.semantics.salu import salu_plan


@family("SOP1", "SOP2", "SOPC", "SOPK")
def salu(inst):
    try:
        op = alu.lookup(inst.mnemonic)
    except KeyError:
        return None
    plan = salu_plan(inst, op)

    def run(step, inst):
        if plan.short:
            raise step.illegal(plan.short)
        ops = step.ops
        args = [step.w.scc[step.idx] if operand is None else ops.scalar(operand, t)
                for operand, t in zip(plan.reads, op.src_types)]
        for target, t, value in zip(plan.writes, op.dst_types, op(*args)):
            if target is None:
                step.w.scc[step.idx] = value
            else:
                ops.write_scalar(target, value, t)
    return run
