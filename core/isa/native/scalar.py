"""SALU instructions wired to the ALU's LLVM emitters (core.isa.native.alu), SCC and EXEC as
ordinary operands (the interpreter's core/isa/interp/scalar_ops.py, translated).

Holds these invariants:
- an emitter's declared types map its operands: 'scc' sources and results are the SCC bit,
  every other type the instruction's operands in assembly order (the destination's old value
  after the explicit sources for reads_dst ops, EXEC last for saveexec/wrexec);
- 64-bit types read and write SGPR pairs, so s_mov_b64 exec and friends are exact;
- float operations (gfx12's) are specialised for the wave's MODE, as the VALU's are; gfx12's
  v_s_* VOP3 words are translated here too (core.isa.semantics.salu.SCALAR_VALU).
"""
from core.isa.native import operands as O
from core.isa.native.families import HANDLERS, family
from core.isa.semantics.salu import SCALAR_VALU, salu_plan


@family("SOP1", "SOP2", "SOPC", "SOPK")
def salu(inst):
    from core.isa.native.alu import emitter
    em = emitter(inst.mnemonic)
    if em is None:
        return None
    plan = salu_plan(inst, em)

    def run(k, inst):
        if plan.short:
            k.illegal(plan.short)
            return
        b = k.builder
        args = [b.load(k.scc) if operand is None else O.scalar(k, operand, t)
                for operand, t in zip(plan.reads, em.src_types)]
        for target, t, value in zip(plan.writes, em.dst_types, em.emit(b, args, mode=k.mode, **plan.kwargs)):
            if target is None:
                b.store(O.scc_value(k, value), k.scc)
            else:
                O.write_scalar(k, target, value, t)
    return run


def _scalar_valu(k, inst):
    """A v_s_* VOP3 word, translated as the SALU op it is."""
    salu(inst)(k, inst)


for _name in SCALAR_VALU:
    HANDLERS[_name] = _scalar_valu
