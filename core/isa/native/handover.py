"""Callouts at run time: the waves that stopped at instructions translated code hands over
(core/isa/native/callout.py), run by the interpreter's own handlers in batches, as the
interpreter runs its waves.

Holds these invariants:
- a handler runs exactly as in the interpreter: found through the interpreter's code cache,
  given a Step over the group of waves standing at its PC (lowest PC first), whose SGPRs (by
  operand field id) and VGPRs (register-major, `nvgpr x lanes` dwords) are views of the
  waves' sg_wave states (the runner copies them back to back, and back after), with SCC,
  MODE, FLAT_SCRATCH, workgroup and wave as the interpreter keeps them, and an interpreter
  Dispatch of the same launch (valid memory, GDS, LDS size, clock, kernel name);
- the workgroups' LDS is copied in and out only for instructions that may reach it (DS,
  FLAT, MUBUF with lds, gfx940+'s global_load_lds_*); any other handler finds none, and touching it is an error, never a
  silent zero;
- atomics on device memory in a handler are host atomics (core/isa/native/host_atomics.py):
  translated atomics other threads run at the same time on the same words are never lost;
- no exception crosses into C (cffi takes the GIL around sg_handover): a KernelFault names
  the faulting wave to the runner, which stops the dispatch, and is kept in `faults` at the
  index its sg_wave.fault_detail holds, for run_native to raise; any other exception, in a
  handler or around it, is kept and re-raised there the same way, as what it is (only the
  runner's own failure to allocate a batch is reported as missing memory).
"""
import numpy as np

from core.isa.faults import KernelFault
from core.isa.interp.dispatch import Dispatch, Step
from core.isa.interp.state import SGPR_SLOTS, Waves
from core.isa.native.host_atomics import compare_exchange
from core.isa.native.runner_layout import SG_FAULT_CALLOUT, VGPRS_OFFSET, wave_offset
from core.isa.semantics.vmem import loads_to_lds
from core.native import ffi


class Callouts:
    """The callout context of one native dispatch (sg_env.callout holds a handle of it, which
    run_native keeps alive while the dispatch runs)."""

    def __init__(self, session, plan, program):
        """plan: the dispatch's core.isa.plan.DispatchPlan; the interpreter's Dispatch of it
        gives the handlers their view of the launch."""
        self.dispatch = Dispatch(session, plan)
        self.dispatch.compare_exchange = compare_exchange   # other threads' atomics run meanwhile
        self.program = program
        self.lanes, self.nvgpr = plan.desc.lanes, plan.desc.nvgpr
        self.lds_bytes = (self.dispatch.plan.lds_bytes + 63) & ~63       # the runner's allocation
        self.faults = []
        self.count = 0                  # wave-instructions handed over

    def fault(self, detail):
        """What run_native raises for a SG_FAULT_CALLOUT with `detail`."""
        if detail == NO_BATCH_MEMORY:
            return MemoryError("no memory for a batch of callouts")
        if detail >= len(self.faults):
            return RuntimeError(f"a callout failed with no record of why (detail {detail})")
        return self.faults[detail]

    def failed_outside_handlers(self, states, count, wave_bytes, error):
        """sg_handover's answer to an exception outside any handler: the batch's first wave
        stops the dispatch, and run_native raises `error` itself."""
        state = np.frombuffer(ffi.buffer(states, count * wave_bytes), np.uint32).reshape(count, -1)
        _field(state, "fault_code", np.int32)[0] = SG_FAULT_CALLOUT
        _field(state, "fault_lane", np.int32)[0] = -1
        _field(state, "fault_address", np.uint64)[0] = 0
        _field(state, "fault_detail", np.uint64)[0] = len(self.faults)
        self.faults.append(error)
        return 0

    def run(self, states, count, wave_bytes, group_of_wave, group_ids, lds, groups):
        """sg_handover: -1, or the index of the wave whose fault stops the dispatch."""
        self.count += count
        state = np.frombuffer(ffi.buffer(states, count * wave_bytes), np.uint32).reshape(count, -1)
        w = self._waves(state, np.frombuffer(ffi.buffer(group_of_wave, 4 * count), np.uint32))
        ids = np.frombuffer(ffi.buffer(group_ids, 12 * groups), np.uint32).reshape(groups, 3)
        pcs = _field(state, "pc", np.uint64) + np.uint64(self.program.base)
        for pc in np.unique(pcs):
            idx = np.flatnonzero(pcs == pc)
            bad = self._run_at(int(pc), w, idx, ids, lds, groups, state)
            if bad >= 0:
                return bad
        _field(state, "scc", np.uint32)[:] = w.scc
        return -1

    def _waves(self, state, group_of_wave):
        count = len(state)
        w = Waves(count, self.lanes, 0)
        w.sgpr = state[:, :SGPR_SLOTS]
        w.vgpr = state[:, VGPRS_OFFSET // 4:].reshape(count, self.nvgpr, self.lanes)
        w.scc[:] = _field(state, "scc", np.uint32) != 0
        w.flat_scratch[:] = _field(state, "scratch", np.uint64)
        w.wave_in_group[:] = _field(state, "wave_in_group", np.uint32)
        w.workgroup[:] = group_of_wave
        return w

    def _run_at(self, pc, w, idx, ids, lds, groups, state):
        d = self.dispatch
        try:
            inst, handler = d.code.at(pc, d.plan.name)
            w.pc[idx] = pc
            modes = self.program.modes[pc]      # one MODE, or the wave's where several reach
            w.mode[idx] = _field(state, "mode", np.uint32)[idx] if isinstance(modes, tuple) else modes
            reaches_lds = (inst.encoding in ("DS", "FLAT") or inst.mods.get("lds")
                           or loads_to_lds(inst.mnemonic))
            chunk = _Batch(w, self._lds_in(lds, groups) if reaches_lds else np.zeros((groups, 0), np.uint8), ids)
            handler(Step(d, chunk, idx, len(idx), inst, pc), inst)
            if reaches_lds:
                self._lds_out(chunk.lds, lds, groups)
        except KernelFault as fault:
            return self._failed(state, idx, w, ids, fault, fault.report)
        except Exception as error:      # a defect: raised again on the dispatching thread
            return self._failed(state, idx, w, ids, error, None)
        return -1

    def _lds_in(self, lds, groups):
        out = np.zeros((groups, max(self.lds_bytes, 8)), np.uint8)
        for g in range(groups):
            if lds[g] != ffi.NULL:
                out[g, :self.lds_bytes] = np.frombuffer(ffi.buffer(lds[g], self.lds_bytes), np.uint8)
        return out

    def _lds_out(self, copy, lds, groups):
        for g in range(groups):
            if lds[g] != ffi.NULL:
                ffi.memmove(lds[g], copy[g, :self.lds_bytes], self.lds_bytes)

    def _failed(self, state, idx, w, ids, error, report):
        """Mark the wave the report names (the group's first when none) as faulted."""
        bad = int(idx[0])
        if report is not None:
            for i in idx:
                if (tuple(int(x) for x in ids[w.workgroup[i]]) == report["workgroup"]
                        and int(w.wave_in_group[i]) == report["wave"]):
                    bad = int(i)
                    break
        lane = report["lane"] if report is not None else None
        _field(state, "fault_code", np.int32)[bad] = SG_FAULT_CALLOUT
        _field(state, "fault_lane", np.int32)[bad] = -1 if lane is None else lane
        _field(state, "fault_address", np.uint64)[bad] = (report or {}).get("address") or 0
        _field(state, "fault_detail", np.uint64)[bad] = len(self.faults)
        self.faults.append(error)
        return bad


def _field(state, name, dtype):
    """The column of sg_wave field `name` across the waves of `state` (a view)."""
    offset = wave_offset(name)
    width = np.dtype(dtype).itemsize
    return state.view(np.uint8)[:, offset:offset + width].view(dtype)[:, 0]


class _Batch:
    """What a Step reads of an interpreter chunk: the waves, their workgroups' LDS and ids."""
    __slots__ = ("waves", "lds", "workgroup_ids")

    def __init__(self, waves, lds, workgroup_ids):
        self.waves, self.lds, self.workgroup_ids = waves, lds, workgroup_ids


# The runner's fault_detail when it could not allocate a batch (runner.c, run_callouts).
NO_BATCH_MEMORY = (1 << 64) - 1


@ffi.def_extern(error=0)
def sg_handover(env, states, count, wave_bytes, group_of_wave, group_ids, lds, groups):
    callouts = ffi.from_handle(env.callout)
    try:
        return callouts.run(states, count, wave_bytes, group_of_wave, group_ids, lds, groups)
    except BaseException as error:      # C's edge: the error goes to run_native, as itself
        return callouts.failed_outside_handlers(states, count, wave_bytes, error)
