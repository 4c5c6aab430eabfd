"""SALU instructions wired to the ALU library, with SCC and EXEC as ordinary operands.

Holds these invariants:
- an op's declared types map its operands: 'scc' sources and results go to the SCC bit of
  each wave, every other type to the instruction's operands in assembly order (implicit
  ones, e.g. EXEC of s_and_saveexec_b32, last);
- 64-bit types read and write SGPR pairs, so s_mov_b64 exec and friends are exact;
- float operations (gfx12's) run in the wave's MODE, as the VALU's do; gfx12's v_s_* VOP3
  words run here too (core.isa.semantics.salu.SCALAR_VALU).
"""
from core.isa import alu
from core.isa.alu.table import FLOAT_TYPES
from core.isa.interp.registry import HANDLERS, family
from core.isa.semantics.salu import SCALAR_VALU, salu_plan


@family("SOP1", "SOP2", "SOPC", "SOPK")
def salu(inst):
    try:
        op = alu.lookup(inst.mnemonic)
    except KeyError:
        return None
    plan = salu_plan(inst, op)
    floats = any(t in FLOAT_TYPES for t in op.src_types + op.dst_types)

    def run(step, inst):
        if plan.short:
            raise step.illegal(plan.short)
        ops = step.ops
        args = [step.w.scc[step.idx] if operand is None else ops.scalar(operand, t)
                for operand, t in zip(plan.reads, op.src_types)]
        kwargs = dict(plan.kwargs, mode=int(step.w.mode[step.idx][0])) if floats and step.n else plan.kwargs
        for target, t, value in zip(plan.writes, op.dst_types, op(*args, **kwargs)):
            if target is None:
                step.w.scc[step.idx] = value
            else:
                ops.write_scalar(target, value, t)
    return run


def _scalar_valu(step, inst):
    """A v_s_* VOP3 word, planned as the SALU op it is (rare: planned where it runs)."""
    return salu(inst)(step, inst)


for _name in SCALAR_VALU:
    HANDLERS[_name] = _scalar_valu
