"""Which translator function takes an instruction, once every emitter module filled the table
of core/isa/native/families.py: by mnemonic, else by encoding family, else a hand-over to the
interpreter's own handler (a callout, core/isa/native/callout.py).

Holds these invariants:
- `hands_over` is the one place that decides what translated code hands to the interpreter:
  an instruction the interpreter implements and the translator has no emitter for, any
  instruction on the queue's GDS (its state lives with the interpreter), and s_getreg of
  XCC_ID (the interpreter knows the grid and the profile's XCCs); never one whose
  handler steers the interpreter's scheduler (SCHEDULED) or sets wave state that the
  instructions after it read and sg_wave does not hold (MODAL);
- an instruction neither translated nor handed over is never guessed: `handler` answers None
  and the kernel runs on the interpreter, naming that instruction;
- `writes_exec` is true exactly for instructions that may change EXEC (an EXEC destination,
  v_cmpx, saveexec/wrexec), so lane counts run between them.
"""
from core.isa.handler_tables import find
from core.isa.instruction import EXEC_LO
from core.isa.native.families import FAMILIES, HANDLERS

EXEC_SLOTS = (EXEC_LO, EXEC_LO + 1)
# Interpreter handlers that park a wave until other waves release it (GWS barriers and
# semaphores): a translated wave cannot hand them over, so their kernels run on the interpreter.
SCHEDULED = ("ds_gws_",)
# Interpreter handlers that switch how the instructions after them address VGPRs (gfx9's
# VGPR index mode): translated code after a callout would not see the switch.
MODAL = ("s_set_gpr_idx_",)
KEPT = SCHEDULED + MODAL


def handler(inst, kernel=None):
    if hands_over(inst):
        from core.isa.native.callout import hand_over
        return hand_over
    return _own(inst)


def hands_over(inst):
    """True when translated code hands `inst` to the interpreter's handler."""
    if inst.mnemonic.startswith(KEPT):
        return False
    return (bool(inst.mods.get("gds")) or _reads_placement(inst)
            or (_own(inst) is None and _interpreted(inst)))


def _reads_placement(inst):
    """s_getreg of XCC_ID: which XCC runs a workgroup follows from the grid and the profile,
    which the interpreter's handler has at hand."""
    if inst.mnemonic != "s_getreg_b32":
        return False
    from core.isa.semantics.hwreg import hwreg_meaning
    return hwreg_meaning(inst) == "xcc_id"


def refusal(inst):
    """Why the kernel of `inst`, neither translated nor handed over, runs on the interpreter."""
    if inst.mnemonic.startswith(SCHEDULED):
        return f"instruction {inst.mnemonic} parks waves in the interpreter's scheduler (GWS)"
    if inst.mnemonic.startswith(MODAL):
        return f"instruction {inst.mnemonic} switches how later instructions address VGPRs"
    return f"instruction {inst.mnemonic} is not translated"


def _interpreted(inst):
    from core.isa.interp.handlers import handler_for
    from core.isa.interp.registry import unimplemented
    return handler_for(inst) is not unimplemented


def _own(inst):
    _load()
    return find(HANDLERS, FAMILIES, inst)


def translated():
    """Every mnemonic the translator takes (its own handlers and the ALU families' ops),
    for `softgpu isa-report`."""
    _load()
    from core.isa import alu
    from core.isa.native.alu import emitter
    return frozenset(HANDLERS) | frozenset(m for m in alu.coverage() if emitter(m) is not None)


def handed_over():
    """Every mnemonic translated code hands to the interpreter (callouts), for `softgpu
    isa-report`; GDS forms of translated DS instructions are handed over too."""
    from core.isa.interp.handlers import implemented
    return frozenset(m for m in implemented() - translated() if not m.startswith(KEPT))


def writes_exec(inst):
    name = inst.mnemonic
    if name.startswith("v_cmpx") or "saveexec" in name or "wrexec" in name:
        return True
    return any(op.kind == "special" and op.index + op.count > EXEC_SLOTS[0] and op.index <= EXEC_SLOTS[1]
               for op in inst.dst + inst.implicit_dst)


_loaded = False


def _load():
    global _loaded
    if not _loaded:
        from core.isa.native import scalar, valu, control, smem, vmem, lds, lanes, packed32  # noqa: F401
        _loaded = True
