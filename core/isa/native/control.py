"""Program flow in translated code: branches, calls and returns, s_endpgm, s_barrier, traps,
hardware registers (the interpreter's core/isa/interp/control.py, translated).

Holds these invariants:
- direct branches are LLVM branches; backward ones may yield (Kernel.jump); s_setpc_b64 and
  unresolved s_swappc_b64 switch over the program's indirect targets, and any other address
  faults as the interpreter does when the PC leaves the code;
- s_barrier stores the wave and returns SG_BARRIER, resuming after it; s_endpgm returns SG_END;
- s_sendmsg does what core.isa.messages says, MSG_INTERRUPT through the signals' C side
  (sg_signal_interrupt), so device printf and hostcall wake the host from any thread;
- MODE is static (core/isa/native/program.py): s_getreg of MODE reads the value the program
  analysis knows, and MODE writes emit nothing.
"""
import llvmlite.ir as ir

from core.isa import messages
from core.isa.apertures import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
from core.isa.instruction import EXEC_LO, M0, VCC_LO
from core.isa.native import operands as O
from core.isa.native.families import handles
from core.isa.native.runner_layout import SG_FAULT_TRAP
from core.isa.native.ir_types import I32, I64, const
from core.isa.native.runner_layout import SG_BARRIER
from core.isa.semantics.control import MEMORY_FENCES, NO_OPS
from core.isa.semantics.hwreg import hwreg_fields, hwreg_meaning, hwreg_name, write_ignored


# Besides the shared no-ops, nothing in translated code for: s_sleep(_var) (a native wave runs on
# its own thread, with no one to yield to), the MODE writes (a translation is specialised on
# the static MODE, core.isa.native.program.mode_after) and the debugger branches (never taken).
@handles(*NO_OPS, "s_sleep", "s_sleep_var", "s_denorm_mode", "s_round_mode", "s_cbranch_cdbgsys",
         "s_cbranch_cdbguser", "s_cbranch_cdbgsys_or_user", "s_cbranch_cdbgsys_and_user")
def _no_op(k, inst):
    return None


# Memory fences have no cache to act on here, but they order: without a fence LLVM may move
# a wave's plain loads and stores across them (a look-back scan reading a prefix's value
# before its flag), and x86 may let a store pass a later load. A sequentially consistent
# fence keeps both in order, across host threads.
@handles(*MEMORY_FENCES)
def _memory_fence(k, inst):
    k.builder.fence("seq_cst")


@handles("s_endpgm", "s_endpgm_saved")
def _endpgm(k, inst):
    k.end()


@handles("s_code_end")
def _code_end(k, inst):
    k.illegal("execution ran into s_code_end padding past the end of the kernel")


@handles("s_trap")
def _trap(k, inst):
    text = f"s_trap {inst.src[0].value if inst.src else ''}: the kernel trapped"
    k.fault(SG_FAULT_TRAP, lane=const(I32, -1), detail=k.reason(text))


@handles("s_sethalt")
def _sethalt(k, inst):
    if inst.src and inst.src[0].value and int(inst.src[0].value) & 1:
        k.illegal("s_sethalt: the kernel halted its wave")


@handles("s_sendmsg", "s_sendmsghalt")
def _sendmsg(k, inst):
    interrupts, fault = messages.effect(k.program.target, inst)
    if interrupts:                  # M0 carries the signal event id's low bits
        k.call("sg_signal_interrupt", I32, [k.builder.load(k.sgpr_slot(M0))])
    if fault is not None:
        k.illegal(fault)


@handles("s_barrier")
def _barrier(k, inst):
    k.leave(SG_BARRIER, inst.next_address)


@handles("s_branch")
def _branch(k, inst):
    k.jump(int(inst.src[0].value))


def _cbranch(condition):
    def run(k, inst):
        k.branch_if(condition(k), int(inst.src[0].value), inst.next_address)
    return run


def _zero(k, slot):
    return k.builder.icmp_unsigned("==", k.mask_bits(slot), const(k.MASK, 0))


handles("s_cbranch_scc0")(_cbranch(lambda k: k.builder.not_(k.builder.load(k.scc))))
handles("s_cbranch_scc1")(_cbranch(lambda k: k.builder.load(k.scc)))
handles("s_cbranch_vccz")(_cbranch(lambda k: _zero(k, VCC_LO)))
handles("s_cbranch_vccnz")(_cbranch(lambda k: k.builder.not_(_zero(k, VCC_LO))))
handles("s_cbranch_execz")(_cbranch(lambda k: _zero(k, EXEC_LO)))
handles("s_cbranch_execnz")(_cbranch(lambda k: k.builder.not_(_zero(k, EXEC_LO))))


@handles("s_getpc_b64")
def _getpc(k, inst):
    O.write_scalar(k, inst.dst[0], k.pc(inst.next_address), "b64")


def _go(k, inst, target):
    known = k.program.constants.get(inst.address)
    if known is not None:
        k.jump(known)
    else:
        k.indirect(target, k.program.indirect_targets)


@handles("s_setpc_b64")
def _setpc(k, inst):
    _go(k, inst, O.scalar(k, inst.src[0], "b64"))


@handles("s_swappc_b64")
def _swappc(k, inst):
    target = O.scalar(k, inst.src[0], "b64")
    O.write_scalar(k, inst.dst[0], k.pc(inst.next_address), "b64")
    _go(k, inst, target)


@handles("s_call_b64")
def _call(k, inst):
    O.write_scalar(k, inst.dst[0], k.pc(inst.next_address), "b64")
    _go(k, inst, None)


# ---- hardware registers -------------------------------------------------------------------
def _read_hwreg(k, inst):
    """The operand's register as i64, by what it holds on the target, or None after faulting
    on one not modelled. (XCC_ID never comes here: routing hands it to the interpreter.)"""
    b = k.builder
    meaning = hwreg_meaning(inst)
    if meaning == "mode":
        return const(I64, k.mode)
    if meaning == "scratch_lo":
        return b.and_(b.load(k.field("scratch"), typ=I64), const(I64, 0xFFFFFFFF))
    if meaning == "scratch_hi":
        return b.lshr(b.load(k.field("scratch"), typ=I64), const(I64, 32))
    if meaning == "apertures":
        return const(I64, (PRIVATE_APERTURE_HI >> 16) | ((SHARED_APERTURE_HI >> 16) << 16))
    if meaning == "wave_id":
        return b.zext(b.and_(b.load(k.field("wave_in_group"), typ=I32), const(I32, 0x1F)), I64)
    if meaning == "gpr_alloc":
        blocks = k.nvgpr // (4 if k.lanes == 64 else 8) - 1
        return const(I64, blocks << 8 | 0xF << 24)
    if meaning == "lds_alloc":
        from core.isa.native.runner_layout import ENV
        lds = b.load(b.gep(k.env, [const(I64, ENV["lds_bytes"])], source_etype=ir.IntType(8)), typ=I64)
        size = b.and_(b.add(_max(b, lds, const(I64, 8)), const(I64, 7)), const(I64, ~7))
        return b.shl(b.udiv(size, const(I64, 512)), const(I64, 12))
    if meaning in ("cycles_20", "cycles_lo", "cycles_hi"):
        now = b.call(k.intrinsic("sg_now_ns", I64, []), [])
        if meaning == "cycles_hi":
            return b.lshr(now, const(I64, 32))
        return b.and_(now, const(I64, 0xFFFFF if meaning == "cycles_20" else 0xFFFFFFFF))
    if meaning == "zero":
        return const(I64, 0)
    k.illegal(f"hardware register {hwreg_name(inst)} is not modelled")
    return None


def _max(b, x, y):
    return b.select(b.icmp_unsigned(">", x, y), x, y)


@handles("s_getreg_b32")
def _getreg(k, inst):
    _, offset, size = hwreg_fields(inst)
    value = _read_hwreg(k, inst)
    if value is None:
        return
    b = k.builder
    value = b.and_(b.lshr(value, const(I64, offset)), const(I64, (1 << size) - 1))
    O.write_scalar(k, inst.dst[0], b.trunc(value, I32))


def _setreg(k, inst, value):
    _, offset, size = hwreg_fields(inst)
    meaning = hwreg_meaning(inst)
    if meaning == "mode" or write_ignored(inst):
        return          # MODE is static (the program analysis applied it); the others read 0
    if meaning not in ("scratch_lo", "scratch_hi"):
        k.illegal(f"s_setreg of hardware register {hwreg_name(inst)} is not modelled")
        return
    b = k.builder
    field = ((1 << size) - 1) << offset
    new = b.or_(b.and_(_read_hwreg(k, inst), const(I64, ~field & 0xFFFFFFFFFFFFFFFF)),
                b.and_(b.shl(b.zext(value, I64), const(I64, offset)), const(I64, field)))
    scratch = b.load(k.field("scratch"), typ=I64)
    if meaning == "scratch_lo":
        scratch = b.or_(b.and_(scratch, const(I64, 0xFFFFFFFF00000000)), new)
    else:
        scratch = b.or_(b.and_(scratch, const(I64, 0xFFFFFFFF)), b.shl(new, const(I64, 32)))
    b.store(scratch, k.field("scratch"))


@handles("s_setreg_b32")
def _setreg_b32(k, inst):
    _setreg(k, inst, O.scalar(k, inst.src[0]))


@handles("s_setreg_imm32_b32")
def _setreg_imm(k, inst):
    _setreg(k, inst, const(I32, int(inst.src[0].value) & 0xFFFFFFFF))

