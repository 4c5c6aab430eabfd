"""Callouts in translated code: an instruction the translator hands to the interpreter's own
handler (routing.hands_over decides which); the runner runs the waves that stopped at
callouts in batches (runner.c, core/isa/native/handover.py).

Holds these invariants:
- a wave stops at a callout as at s_barrier: its registers stored to sg_wave (the exit
  block), sg_wave.pc at the instruction, and it resumes right after it with its registers
  reloaded (the prologue), so what the instruction writes, in any register, is the
  interpreter's;
- the instruction is counted like any other (its block's count, the EXEC run it issues in,
  both before the wave stops), so instruction counts and the watchdog stay the interpreter's.
"""
from core.isa.native.ir_types import I32, const
from core.isa.native.runner_layout import SG_CALLOUT


def hand_over(k, inst):
    b = k.builder
    after = k.new_block("after_callout")
    b.store(const(I32, k.callout_resume(len(k.callouts))), k.field("resume"))
    b.store(k.offset(inst.address), k.field("pc"))
    b.store(const(I32, SG_CALLOUT), k.status)
    b.branch(k.exit_block)
    k.callouts.append(after)
    b.position_at_end(after)
    b.entered_from_elsewhere()        # registers come back from sg_wave, through the prologue
