"""Instruction handlers by mnemonic: one short function per instruction or family.

Holds these invariants:
- a handler is looked up once per decoded instruction and cached with it (see Code);
- a mnemonic with no handler here and no ALU op is never guessed: it faults as
  ILLEGAL_INSTRUCTION naming the instruction, so users see exactly what does not run.
"""
from core.isa.handler_tables import find, registrar

HANDLERS = {}
FAMILIES = {}      # encoding -> fallback handler factory (ALU-backed VALU/SALU)

# A handler returns True when it wrote its waves' PCs (branches, waits), YIELD when it wrote
# them and its waves have nothing to do for now (s_sleep in a polling loop), so other waves
# should run first; anything else means "next instruction".
YIELD = type("Yield", (), {"__repr__": lambda self: "YIELD"})()


handles = registrar(HANDLERS)         # @handles("v_add_f32", ...): by mnemonic
family = registrar(FAMILIES)          # @family("VOP2", ...): by encoding family


def unimplemented(step, inst):
    raise step.illegal(f"instruction {inst.mnemonic} is not implemented")


def handler_for(inst):
    """The function that executes `inst`: its own handler, its family's ALU wiring, or a fault."""
    _load_handlers()
    fn = find(HANDLERS, FAMILIES, inst)
    return unimplemented if fn is None else fn


def implemented():
    """Every mnemonic the engine executes: its own handlers plus the ALU's VALU/SALU ops
    (for `softgpu isa-report`)."""
    from core.isa import alu
    _load_handlers()
    return frozenset(HANDLERS) | alu.coverage()


_loaded = False


def _load_handlers():
    global _loaded
    if not _loaded:
        from core.isa.interp import (  # noqa: F401  (importing a module registers its handlers)
            control, scalar_ops, vector_ops, lanes, smem, vmem, lds, gws, images, packed32,
            matrix, gpr_index)
        _loaded = True
