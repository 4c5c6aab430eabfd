"""VALU instructions wired to the ALU's LLVM emitters: operands in, EXEC-masked results out
(the interpreter's core/isa/interp/vector_ops.py, translated).

Holds these invariants:
- the emitter is looked up once per decoded instruction; its declared operand types decide
  how each operand is read (inline constants per type, splat scalars, lane masks) and
  written (16-bit halves merged, 64-bit pairs split, masks to VCC/SGPRs/EXEC);
- DPP and SDWA forms rewrite src0 (and SDWA src1) before the op and SDWA dst_sel/dst_unused
  shape the write, so emitters never see encoding details;
- v_cmpx writes EXEC only where EXEC was set (and on gfx9 the same mask to its VCC/SGPR
  destination); 16-bit results on gfx9 zero the high half unless the target keeps it;
- a gfx11 VOPD pair runs its halves in core.isa.semantics.valu's dual_issue_order, so each half
  reads what it would have read had both read before either wrote.
"""
from core.isa.native import lanes as L
from core.isa.native import operands as O
from core.isa.native.families import family
from core.isa.native.ir_types import I32, const
from core.isa.semantics.valu import EXEC, dual_issue_order, valu_plan, vcc


@family("VOP1", "VOP2", "VOPC", "VOP3", "VOP3A", "VOP3B", "VOP3P")
def valu(inst):
    from core.isa.native.alu import emitter
    em = emitter(inst.mnemonic)
    if em is None:
        return None
    plan = valu_plan(inst, em)

    def run(k, inst):
        if plan.short:
            k.illegal(plan.short)
            return
        b = k.builder
        args = []
        for read in plan.reads:
            if read.kind == "lane":
                args.append(k.lane_ids())
                continue
            value = O.vector(k, vcc(k.lanes) if read.kind == "vcc" else read.operand, read.type)
            if read.lanes == "dpp":
                value = L.dpp_source(k, inst, value)
            elif read.lanes == "sdwa":
                value = L.sdwa_source(k, inst, value, read.index, read.type)
            args.append(value)
        results = em.emit(b, args, mode=k.mode, **plan.kwargs)
        active = k.exec_mask()
        if inst.form in ("dpp", "dpp8"):
            active = b.and_(active, L.dpp_write_mask(k, inst))
        for write, value in zip(plan.writes, results):
            if write.kind == "mask":
                if write.target is not None:
                    O.write_mask(k, write.target, value, active)      # gfx9 v_cmpx: VCC/SDST too
                if plan.cmpx:
                    O.write_mask(k, EXEC, value, active)
            elif write.kind == "scc":
                b.store(O.scc_value(k, value), k.scc)
            elif write.how == "sdwa":
                O.write_vector(k, write.target, L.sdwa_dest(k, inst, write.target, value), "b32", active)
            elif write.how == "zero_high16":
                O.write_vector(k, write.target, b.and_(value, k.splat(const(I32, 0xFFFF))), "b32", active)
            else:
                O.write_vector(k, write.target, value, write.type, active, hi=plan.dst_hi)
    return run


@family("VOPD")
def vopd(inst):
    """gfx11 dual issue: a half alone is an ordinary VALU op, a pair its halves in order."""
    if not inst.halves:
        return valu(inst)
    order = dual_issue_order(inst)
    halves = [(half, valu(half)) for half in order or ()]
    if order is None or any(fn is None for _, fn in halves):
        return None

    def run(k, inst):
        for half, fn in halves:
            fn(k, half)
    return run
