"""Program flow: SOPP branches and waits, s_setpc/s_swappc/s_getpc/s_call, s_endpgm, s_barrier,
s_sleep, hardware registers (s_getreg/s_setreg, s_denorm_mode/s_round_mode), traps, messages.

Holds these invariants:
- a handler that changes PCs writes them per wave and returns True, so the scheduler
  regroups (s_sleep returns YIELD: its waves poll, others go first); everything else falls
  through to the next instruction;
- s_getpc_b64 and return addresses are real device addresses of the code;
- waits, clauses, prefetch hints, gfx11's ALU delay hints and cache invalidations are
  ordering points with nothing to do here: every memory operation completes before the next
  instruction issues, every VALU result is there for the next one;
- s_sendmsg MSG_INTERRUPT reaches the host at once: the waiters of every signal whose event
  mailbox the wave wrote wake (the signal table's sg_signal_interrupt), as KFD wakes them on hardware; what
  each message does is core.isa.messages'.
"""
import time

import numpy as np

from core.isa import messages
from core.isa.faults import KernelFault
from core.isa.interp.registry import YIELD, handles
from core.isa.interp.state import VCC_LO, EXEC_LO
from core.isa.semantics.control import MEMORY_FENCES, NO_OPS
from core.isa.semantics.hwreg import hwreg_fields, hwreg_meaning, hwreg_name, write_ignored
from core.hsa_abi import Status



# Memory fences order nothing here: the interpreter runs one group of waves at a time, each
# instruction's accesses whole before the next.
@handles(*NO_OPS, *MEMORY_FENCES)
def _no_op(step, inst):
    return None


@handles("s_sleep", "s_sleep_var")
def _sleep(step, inst):
    # A sleeping wave waits for something another wave or the host will do: let them run.
    step.w.pc[step.idx] = inst.address + inst.size
    return YIELD


@handles("s_endpgm", "s_endpgm_saved")
def _endpgm(step, inst):
    step.w.live[step.idx] = False
    # A wave that ends no longer counts at its workgroup's barrier (as on hardware); with no
    # wave waiting there is no barrier to release (and an empty kernel's dispatch saves 40%).
    if step.w.waiting.any():
        _release_barriers(step, np.unique(step.w.workgroup[step.idx]))
    return True


@handles("s_code_end")
def _code_end(step, inst):
    raise step.illegal("execution ran into s_code_end padding past the end of the kernel")


@handles("s_trap")
def _trap(step, inst):
    # ROCr reports a trapping wave (llvm.trap: device-side assert and abort) as a hardware
    # exception, HSA_STATUS_ERROR_EXCEPTION, not as an illegal instruction.
    raise KernelFault(f"s_trap {inst.src[0].value if inst.src else ''}: the kernel trapped",
                      Status.ERROR_EXCEPTION, **step.report())


@handles("s_sethalt")
def _sethalt(step, inst):
    if inst.src and inst.src[0].value and int(inst.src[0].value) & 1:
        raise step.illegal("s_sethalt: the kernel halted its wave")
    return None


@handles("s_barrier")
def _barrier(step, inst):
    w, idx = step.w, step.idx
    w.pc[idx] = inst.address + inst.size
    w.waiting[idx] = True
    _release_barriers(step, np.unique(w.workgroup[idx]))
    return True


def _release_barriers(step, groups):
    """Let the waves of `groups` go on where every live wave of the group waits."""
    w = step.w
    members = np.isin(w.workgroup, groups) & w.live
    at_barrier = w.waiting & ~w.parked          # waves parked on GWS are not at s_barrier
    count = step.chunk.lds.shape[0]
    waiting = np.bincount(w.workgroup[members & at_barrier], minlength=count)
    alive = np.bincount(w.workgroup[members], minlength=count)
    released = groups[(waiting[groups] == alive[groups]) & (waiting[groups] > 0)]
    if released.size:
        w.waiting[np.isin(w.workgroup, released) & at_barrier] = False


def _jump(step, inst, taken):
    """Set PCs: the label target where `taken` (bool [n]), the next instruction elsewhere."""
    target = int(inst.src[0].value)
    step.w.pc[step.idx] = np.where(taken, target, inst.address + inst.size)
    return True


@handles("s_branch")
def _branch(step, inst):
    return _jump(step, inst, np.ones(step.n, np.bool_))


def _mask_zero(step, slot):
    w = step.w
    zero = w.sgpr[step.idx, slot] == 0
    if w.lanes == 64:
        zero &= w.sgpr[step.idx, slot + 1] == 0
    return zero


@handles("s_cbranch_scc0")
def _cbranch_scc0(step, inst):
    return _jump(step, inst, ~step.w.scc[step.idx])


@handles("s_cbranch_scc1")
def _cbranch_scc1(step, inst):
    return _jump(step, inst, step.w.scc[step.idx].copy())


@handles("s_cbranch_vccz")
def _cbranch_vccz(step, inst):
    return _jump(step, inst, _mask_zero(step, VCC_LO))


@handles("s_cbranch_vccnz")
def _cbranch_vccnz(step, inst):
    return _jump(step, inst, ~_mask_zero(step, VCC_LO))


@handles("s_cbranch_execz")
def _cbranch_execz(step, inst):
    return _jump(step, inst, _mask_zero(step, EXEC_LO))


@handles("s_cbranch_execnz")
def _cbranch_execnz(step, inst):
    return _jump(step, inst, ~_mask_zero(step, EXEC_LO))


@handles("s_cbranch_cdbgsys", "s_cbranch_cdbguser", "s_cbranch_cdbgsys_or_user",
         "s_cbranch_cdbgsys_and_user")
def _cbranch_debugger(step, inst):
    # These branch on debugger halt requests; no debugger ever requests one here.
    return None


@handles("s_getpc_b64")
def _getpc(step, inst):
    step.ops.write_scalar(inst.dst[0], np.full(step.n, inst.address + inst.size, np.uint64), "b64")


@handles("s_setpc_b64")
def _setpc(step, inst):
    target = step.ops.scalar(inst.src[0], "b64")
    step.w.pc[step.idx] = target.astype(np.int64)
    return True


@handles("s_swappc_b64")
def _swappc(step, inst):
    target = step.ops.scalar(inst.src[0], "b64")
    step.ops.write_scalar(inst.dst[0], np.full(step.n, inst.address + inst.size, np.uint64), "b64")
    step.w.pc[step.idx] = target.astype(np.int64)
    return True


@handles("s_call_b64")
def _call(step, inst):
    step.ops.write_scalar(inst.dst[0], np.full(step.n, inst.address + inst.size, np.uint64), "b64")
    step.w.pc[step.idx] = int(inst.src[0].value)
    return True


# ---- hardware registers -------------------------------------------------------------------
def _read_hwreg(step, inst):
    """The operand's register per lane, as uint64, by what it holds on the target."""
    w, idx = step.w, step.idx
    plan = step.dispatch.plan
    meaning = hwreg_meaning(inst)
    if meaning == "xcc_id":
        # XCC_ID[3:0]: the XCC running the wave's workgroup.
        ids = step.chunk.workgroup_ids[w.workgroup[idx]].astype(np.int64)
        return np.broadcast_to(plan.xcc_of(ids), (step.n,)).astype(np.uint64)
    if meaning == "mode":
        return w.mode[idx].astype(np.uint64)
    if meaning == "scratch_lo":
        return w.flat_scratch[idx] & np.uint64(0xFFFFFFFF)
    if meaning == "scratch_hi":
        return w.flat_scratch[idx] >> np.uint64(32)
    if meaning == "apertures":
        from core.isa.apertures import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
        # [15:0] private base and [31:16] shared base, in units of 2^48 bytes.
        value = (PRIVATE_APERTURE_HI >> 16) | ((SHARED_APERTURE_HI >> 16) << 16)
        return np.full(step.n, value, np.uint64)
    if meaning == "wave_id":
        return w.wave_in_group[idx].astype(np.uint64) & np.uint64(0x1F)
    if meaning == "gpr_alloc":
        vgpr_blocks = w.vgpr.shape[1] // plan.desc.target.vgpr_granule[w.lanes] - 1
        return np.full(step.n, vgpr_blocks << 8 | 0xF << 24, np.uint64)
    if meaning == "lds_alloc":
        return np.full(step.n, (step.chunk.lds.shape[1] // 512) << 12, np.uint64)
    if meaning in ("cycles_20", "cycles_lo", "cycles_hi"):
        # The cycle counter (gfx11's 20 bits, gfx12's 64 in two words; clock64):
        # microseconds since the dispatch began stand in for cycles of a 1 MHz clock, so
        # kernels that wait on it see it advance (an instruction here takes microseconds)
        # and 20 bits wrap only after a second of a dispatch, where a nanosecond count
        # wrapped every millisecond between two reads.
        elapsed = (time.monotonic_ns() - step.dispatch.started_ns) // 1000
        word = {"cycles_20": elapsed & 0xFFFFF, "cycles_lo": elapsed & 0xFFFFFFFF,
                "cycles_hi": elapsed >> 32}[meaning]
        return np.full(step.n, word, np.uint64)
    if meaning == "zero":
        return np.zeros(step.n, np.uint64)
    raise step.illegal(f"hardware register {hwreg_name(inst)} is not modelled")


@handles("s_getreg_b32")
def _getreg(step, inst):
    _, offset, size = hwreg_fields(inst)
    value = (_read_hwreg(step, inst) >> np.uint64(offset)) & np.uint64((1 << size) - 1)
    step.ops.write_scalar(inst.dst[0], value.astype(np.uint32))


def _setreg(step, inst, value):
    _, offset, size = hwreg_fields(inst)
    meaning = hwreg_meaning(inst)
    if write_ignored(inst):
        return
    if meaning not in ("mode", "scratch_lo", "scratch_hi"):
        raise step.illegal(f"s_setreg of hardware register {hwreg_name(inst)} is not modelled")
    field = np.uint64(((1 << size) - 1) << offset)
    value = (value.astype(np.uint64) << np.uint64(offset)) & field
    new = (_read_hwreg(step, inst) & ~field) | value
    w, idx = step.w, step.idx
    if meaning == "mode":
        w.mode[idx] = new.astype(np.uint32)
    elif meaning == "scratch_lo":
        w.flat_scratch[idx] = (w.flat_scratch[idx] & np.uint64(0xFFFFFFFF00000000)) | new
    else:
        w.flat_scratch[idx] = (w.flat_scratch[idx] & np.uint64(0xFFFFFFFF)) | (new << np.uint64(32))


@handles("s_setreg_b32")
def _setreg_b32(step, inst):
    _setreg(step, inst, step.ops.scalar(inst.src[0]))


@handles("s_setreg_imm32_b32")
def _setreg_imm(step, inst):
    _setreg(step, inst, np.full(step.n, int(inst.src[0].value) & 0xFFFFFFFF, np.uint64))


@handles("s_denorm_mode")
def _denorm_mode(step, inst):
    bits = int(inst.src[0].value) & 0xF
    step.w.mode[step.idx] = (step.w.mode[step.idx] & ~np.uint32(0xF0)) | np.uint32(bits << 4)


@handles("s_round_mode")
def _round_mode(step, inst):
    bits = int(inst.src[0].value) & 0xF
    step.w.mode[step.idx] = (step.w.mode[step.idx] & ~np.uint32(0xF)) | np.uint32(bits)


@handles("s_sendmsg", "s_sendmsghalt")
def _sendmsg(step, inst):
    interrupts, fault = messages.effect(step.dispatch.plan.desc.target, inst)
    if interrupts:
        # The signal table's C side wakes the signals, as the native tier calls it; imported
        # here so that the interpreter loads without the built library until a wave needs it.
        from core.native import lib
        for data in np.unique(step.ops.m0()):
            lib.sg_signal_interrupt(int(data))
    if fault is not None:
        raise step.illegal(fault)
