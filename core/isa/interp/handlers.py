"""Which function executes an instruction, once every handler module has filled the table
of core/isa/interp/registry.py.

Holds this invariant: every handler module is imported before the first answer, so an
instruction is never called unimplemented because its module was not loaded yet.
"""
from core.isa.interp.registry import HANDLERS, lookup

_loaded = False


def handler_for(inst):
    """The function that executes `inst`: its own handler, its family's ALU wiring, or a fault."""
    _load_handlers()
    return lookup(inst)


def implemented():
    """Every mnemonic the engine executes: its own handlers plus the ALU's VALU/SALU ops
    (for `softgpu isa-report`)."""
    from core.isa import alu
    _load_handlers()
    return frozenset(HANDLERS) | alu.coverage()


def _load_handlers():
    global _loaded
    if not _loaded:
        from core.isa.interp import (  # noqa: F401  (importing a module registers its handlers)
            control, scalar_ops, vector_ops, lanes, smem, vmem, lds, gws, images, packed32,
            matrix, gpr_index)
        _loaded = True
