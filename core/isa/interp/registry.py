"""The table of instruction handlers by mnemonic and by encoding family, which the handler
modules fill as they are imported (core/isa/interp/handlers.py imports them all).

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


def lookup(inst):
    """The handler that executes `inst` among those registered so far, or `unimplemented`.
    Handlers call this for the instructions they wrap: every handler module is loaded by
    then (core/isa/interp/handlers.py loads them before the first lookup)."""
    fn = find(HANDLERS, FAMILIES, inst)
    return unimplemented if fn is None else fn
