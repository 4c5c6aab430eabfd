"""SALU instructions wired to the ALU's LLVM emitters (core.isa.native.alu), SCC and EXEC as
ordinary operands (the interpreter's core/isa/interp/scalar_ops.py, translated).

Holds these invariants:
- an emitter's declared types map its operands: 'scc' sources and results are the SCC bit,
  every other type the instruction's operands in assembly order (the destination's old value
  after the explicit sources for reads_dst ops, EXEC last for saveexec/wrexec);
- 64-bit types read and write SGPR pairs, so s_mov_b64 exec and friends are exact.
"""
from core.isa.native import operands as O
from core.isa.native.families import family
from core.isa.semantics.salu import salu_operands


@family("SOP1", "SOP2", "SOPC", "SOPK")
def salu(inst):
    from core.isa.native.alu import emitter
    em = emitter(inst.mnemonic)
    if em is None:
        return None
    sources, dests = salu_operands(inst, em.reads_dst)

    def run(k, inst):
        b = k.builder
        args = []
        operands = iter(sources)
        for t in em.src_types:
            if t == "scc":
                args.append(b.load(k.scc))
                continue
            operand = next(operands, None)
            if operand is None:
                k.illegal(f"{inst.mnemonic}: fewer operands than its ALU op reads")
                return
            args.append(O.scalar(k, operand, t))
        results = em.emit(b, args, mode=k.mode)
        targets = iter(dests)
        for t, value in zip(em.dst_types, results):
            if t == "scc":
                b.store(O.scc_value(k, value), k.scc)
            else:
                O.write_scalar(k, next(targets), value, t)
    return run
