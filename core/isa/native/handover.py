"""Callouts at run time: one instruction of one wave that translated code hands over
(core/isa/native/callout.py), run by the interpreter's own handler over the wave's state in
sg_wave memory.

Holds three invariants:
- the handler runs exactly as the interpreter runs it: found through the interpreter's code
  cache, given a Step over a one-wave view whose SGPRs (by operand field id) and VGPRs
  (register-major, `nvgpr x lanes` dwords) are the sg_wave memory itself, with SCC, MODE,
  FLAT_SCRATCH, workgroup id and wave as the interpreter keeps them, the workgroup's LDS,
  and an interpreter Dispatch of the same launch (valid memory, GDS, LDS size, clock, name);
- it runs with the GIL (cffi takes it around sg_handover), so the callouts of a dispatch's
  threads run one at a time;
- no exception crosses into C: a KernelFault becomes SG_FAULT_CALLOUT, the fault kept in
  `faults` at the index sg_wave.fault_detail holds, for run_native to raise; anything else
  is kept the same way and re-raised on the dispatching thread.
"""
import numpy as np

from core.isa.faults import KernelFault
from core.isa.interp.dispatch import Dispatch, Step
from core.isa.interp.state import SGPR_SLOTS, Waves
from core.isa.native.layout import SG_FAULT_CALLOUT, VGPRS_OFFSET
from core.native import ffi


class Callouts:
    """The callout context of one native dispatch (sg_env.callout holds a handle of it, which
    run_native keeps alive while the dispatch runs)."""

    def __init__(self, session, kernel, program, lanes, nvgpr, **launch):
        """launch: run_dispatch's arguments for the interpreter's Dispatch of this launch."""
        self.dispatch = Dispatch(session, kernel, **launch)
        self.program = program
        self.lanes, self.nvgpr = lanes, nvgpr
        self.wave_bytes = VGPRS_OFFSET + nvgpr * lanes * 4
        self.lds_bytes = (self.dispatch.lds_bytes + 63) & ~63       # the runner's allocation
        self.faults = []
        self.count = 0

    def run(self, wave, group, offset):
        """sg_native_callout of the instruction at code offset `offset`: 0, or SG_FAULT_CALLOUT."""
        self.count += 1
        pc = self.program.base + offset
        d = self.dispatch
        try:
            inst, handler = d.code.at(pc, d.name)
            w = self._wave(wave, pc)
            step = Step(d, _OneWave(w, self._lds(group), np.array([list(group.id)], np.int64)),
                        slice(None), 1, inst, pc)
            handler(step, inst)
        except KernelFault as fault:
            report = fault.report
            return self._failed(wave, offset, fault, report["lane"], report["address"])
        except Exception as error:      # a defect: raised again on the dispatching thread
            return self._failed(wave, offset, error, None, None)
        wave.scc = int(w.scc[0])
        return 0

    def _wave(self, wave, pc):
        state = np.frombuffer(ffi.buffer(wave, self.wave_bytes), np.uint32)
        w = Waves(1, self.lanes, 0)
        w.sgpr = state[:SGPR_SLOTS].reshape(1, SGPR_SLOTS)
        w.vgpr = state[VGPRS_OFFSET // 4:].reshape(1, self.nvgpr, self.lanes)
        w.scc[0] = wave.scc
        w.pc[0] = pc
        w.mode[0] = self.program.modes[pc]
        w.flat_scratch[0] = wave.scratch
        w.wave_in_group[0] = wave.wave_in_group
        return w

    def _lds(self, group):
        if group.lds == ffi.NULL:
            return np.zeros((1, 8), np.uint8)
        return np.frombuffer(ffi.buffer(group.lds, self.lds_bytes), np.uint8).reshape(1, -1)

    def _failed(self, wave, offset, error, lane, address):
        wave.fault_code = SG_FAULT_CALLOUT
        wave.fault_detail = len(self.faults)
        wave.fault_lane = -1 if lane is None else lane
        wave.fault_address = address or 0
        wave.pc = offset
        self.faults.append(error)
        return SG_FAULT_CALLOUT


class _OneWave:
    """What a Step reads of an interpreter chunk: one wave, its LDS, its workgroup's id."""
    __slots__ = ("waves", "lds", "workgroup_ids")

    def __init__(self, waves, lds, workgroup_ids):
        self.waves, self.lds, self.workgroup_ids = waves, lds, workgroup_ids


@ffi.def_extern(error=SG_FAULT_CALLOUT)
def sg_handover(wave, group, env, pc):
    return ffi.from_handle(env.callout).run(wave, group, pc)

