"""VALU instructions wired to the ALU library: operands in, EXEC-masked results out.

Holds these invariants:
- the ALU op is looked up once per decoded instruction; its declared operand types decide
  how each operand is read (inline constants per type, [n, 1] scalars, lane masks) and
  written (16-bit halves merged into the other half, or on gfx9 the high half zeroed, as
  the target says; 64-bit pairs split, masks to VCC/SGPRs/EXEC);
- DPP and SDWA forms rewrite src0 (lanes permuted, bytes/words selected) before the op runs
  and SDWA dst_sel/dst_unused shape the write, so the ALU never sees encoding details;
- v_cmpx writes EXEC only where EXEC was set (inactive lanes stay off); on gfx9 it writes
  the same mask to its VCC/SGPR destination as well.
"""
import numpy as np

from core.isa import alu
from core.isa.interp import lanes as lane_ops
from core.isa.interp.registry import family, lookup
from core.isa.semantics.valu import EXEC, dual_issue_order, valu_plan, vcc


@family("VOP1", "VOP2", "VOPC", "VOP3", "VOP3A", "VOP3B", "VOP3P", "DPP", "DPP8", "SDWA",
        "VOP1_DPP", "VOP2_DPP", "VOPC_DPP", "VOP1_SDWA", "VOP2_SDWA", "VOPC_SDWA")
def valu(inst):
    try:
        op = alu.lookup(inst.mnemonic)
    except KeyError:
        return None
    plan = valu_plan(inst, op)

    def run(step, inst):
        if plan.short:
            raise step.illegal(plan.short)
        ops = step.ops
        args = []
        for read in plan.reads:
            if read.kind == "lane":
                args.append(ops.lane_ids())
                continue
            value = ops.vector(vcc(step.w.lanes) if read.kind == "vcc" else read.operand, read.type)
            if read.lanes == "dpp":
                value = lane_ops.dpp_source(step, inst, value)
            elif read.lanes == "sdwa":
                value = lane_ops.sdwa_source(step, inst, value, read.index, read.type)
            args.append(value)
        mode = int(step.w.mode[step.idx][0]) if step.n else 0
        results = op(*args, mode=mode, **plan.kwargs)
        active = ops.exec
        if inst.form in ("dpp", "dpp8"):
            active = active & lane_ops.dpp_write_mask(step, inst)
        for write, value in zip(plan.writes, results):
            if write.kind == "mask":
                if write.target is not None:
                    ops.write_mask(write.target, value, active)   # gfx9 v_cmpx: VCC/SDST too
                if plan.cmpx:
                    ops.write_mask(EXEC, value, active)
                    ops.invalidate_exec()
            elif write.kind == "scc":
                step.w.scc[step.idx] = value
            elif write.how == "sdwa":
                ops.write_vector(write.target, lane_ops.sdwa_dest(step, inst, write.target, value), "b32", active)
            elif write.how == "zero_high16":
                ops.write_vector(write.target, np.asarray(value, np.uint32) & np.uint32(0xFFFF), "b32", active)
            else:
                ops.write_vector(write.target, value, write.type, active, hi=plan.dst_hi)
    return run


@family("VOPD")
def vopd(inst):
    """gfx11 dual issue. A half alone is an ordinary VALU op; a pair runs its halves in
    dual_issue_order."""
    if not inst.halves:
        return valu(inst)
    order = dual_issue_order(inst)
    halves = None if order is None else [(half, lookup(half)) for half in order]

    def run(step, inst):
        if halves is None:
            raise step.illegal("VOPD halves that read each other's destinations are not modelled")
        for half, fn in halves:
            fn(step, half)
    return run
