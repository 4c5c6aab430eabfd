"""What s_sendmsg and s_sendmsghalt do for a compute wave, for every engine tier.

Holds this invariant: a message is known by the name the target's llvm gives its number (the
numbers differ by target, core/isa/opcodes_<target>.py SENDMSG_TEXT): MSG_INTERRUPT wakes
the host (the device library's signal protocol: the wave stored the signal's event id in
its mailbox, M0 carries the id's low bits); a message whose answer is a hardware value
(doorbell, dispatch id: trap handlers ask for them) faults as not modelled, since a made-up
value would mislead; a halt (MSG_HALT_WAVES, or any s_sendmsghalt) stops the wave for good,
reported as s_sethalt is; every other message serves graphics stages, context switching or
gives VGPRs back early (gfx11's MSG_DEALLOC_VGPRS) and does nothing for a compute wave.
Of the messages s_sendmsg_rtn_b32/b64 (gfx11+) send for an answer, MSG_RTN_GET_REALTIME is
the reference clock s_memrealtime reads (gfx12 has no s_memrealtime: clang reads the clock
so); every other answer is a hardware value and faults as not modelled.
"""
from core.isa.disasm import format_instruction


def effect(target, inst):
    """(whether it interrupts the host, the fault's reason or None) of `inst` on `target`."""
    name = target.opcodes.SENDMSG_TEXT.get(int(inst.mods["simm16"]) & 0x3FF, "")
    interrupts = name == "sendmsg(MSG_INTERRUPT)"
    if "GET_DOORBELL" in name or "GET_DDID" in name:
        return interrupts, f"{format_instruction(inst)}: the value this message returns is not modelled"
    if name == "sendmsg(MSG_HALT_WAVES)" or inst.mnemonic == "s_sendmsghalt":
        return interrupts, f"{inst.mnemonic}: the kernel halted its wave"
    return interrupts, None


def asks_realtime(target, inst):
    """(whether the s_sendmsg_rtn_* `inst` reads the reference clock, the fault's reason or
    None) on `target`."""
    name = target.opcodes.SENDMSG_TEXT.get(int(inst.src[0].value), "")
    if name == "sendmsg(MSG_RTN_GET_REALTIME)":
        return True, None
    return False, f"{format_instruction(inst)}: the value this message returns is not modelled"
