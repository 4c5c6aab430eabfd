"""Callouts in translated code: an instruction the translator hands to the interpreter's own
handler (families.hands_over decides which), run for one wave by core/isa/native/handover.py.

Holds three invariants:
- the interpreter sees the wave's whole state: every register alloca is stored to sg_wave
  before the call and loaded back after it (registers a loop brings here from code translated
  later included: `fill` runs once every alloca exists), so what the instruction writes, in
  any register, is the interpreter's;
- a callout that faults returns SG_FAULT at once: the interpreter wrote nothing, and its
  report waits in the dispatch's callout context (sg_wave.fault_detail indexes it);
- the instruction is counted like any other (its block's count, the EXEC run it issues in),
  so instruction counts and the watchdog stay the interpreter's.
"""
import llvmlite.ir as ir

from core.isa.native.translate import I32, I64, PTR, SG_FAULT, const


def hand_over(k, inst):
    """The instruction's place in the code: a block `fill` completes."""
    b = k.builder
    site = k.new_block("callout")
    after = k.new_block("after_callout")
    b.branch(site)
    k.callouts.append((site, after, inst))
    b.position_at_end(after)


def fill(k):
    """Each callout: store the registers, call sg_native_callout, fault or reload them."""
    if not k.callouts:
        return
    fn = k.intrinsic("sg_native_callout", I32, [PTR, PTR, PTR, I64])
    fn.attributes.add("cold")      # as sg_native_access: spills stay off the fast paths
    for site, after, inst in k.callouts:
        b = ir.IRBuilder(site)
        for slot, offset, stored in k.state:
            k.store_register(b, slot, offset, stored)
        status = b.call(fn, [k.wave, k.group, k.env, k.offset(inst.address)])
        ok, failed = k.new_block("callout_ok"), k.new_block("callout_fault")
        b.cbranch(b.icmp_unsigned("==", status, const(I32, 0)), ok, failed)
        ir.IRBuilder(failed).ret(const(I32, SG_FAULT))
        b.position_at_end(ok)
        for slot, offset, stored in k.state:
            k.load_register(b, slot, offset, stored)
        b.branch(after)
