"""Decoded records in the engine's terms, the form both tiers run.

Guarantees: executable gives the record with the gfx1030 name of its operation (gfx11's
renames resolved, a VOPD half's v_dual_ prefix dropped) and AGPR operands as the VGPRs they
are in the unified register file (a<n> is v<accum_offset + n>); the record is returned
unchanged where nothing differs, and its printed text stays the target's.
"""
import dataclasses

from core.isa import targets
from core.isa.instruction import Operand


def executable(inst, target, accum_offset):
    """The decoded record `inst` in the engine's terms (both tiers run these): the gfx1030
    name of its operation (a VOPD half's v_dual_ prefix dropped) and AGPRs as the VGPRs
    after `accum_offset`; the printed text stays the target's."""
    halves = tuple(executable(half, target, accum_offset) for half in inst.halves)
    mnemonic = inst.mnemonic
    if inst.encoding == "VOPD" and not halves:          # a half: v_dual_mul_f32 -> v_mul_f32
        mnemonic = "v_" + mnemonic.removeprefix("v_dual_")
    mnemonic = targets.semantic_name(mnemonic, target)
    dst, src = (tuple(_vgpr(op, accum_offset) for op in ops) for ops in (inst.dst, inst.src))
    if (mnemonic, dst, src, halves) == (inst.mnemonic, inst.dst, inst.src, inst.halves):
        return inst
    return dataclasses.replace(inst, mnemonic=mnemonic, dst=dst, src=src, halves=halves)


def _vgpr(op, accum_offset):
    if op.kind != "agpr":
        return op
    return Operand("vgpr", accum_offset + op.index, op.count)
