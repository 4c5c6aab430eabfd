"""Which translator function takes an instruction: by mnemonic, else by encoding family.

Holds two invariants:
- a mnemonic with no translator here is never guessed: `handler` answers None and the kernel
  runs on the interpreter, naming that instruction;
- `writes_exec` is true exactly for instructions that may change EXEC (an EXEC destination,
  v_cmpx, saveexec/wrexec), so lane counts run between them.
"""
from core.isa.handler_tables import registrar
from core.isa.instruction import EXEC_LO

HANDLERS = {}
FAMILIES = {}
EXEC_SLOTS = (EXEC_LO, EXEC_LO + 1)

handles = registrar(HANDLERS)         # @handles("v_add_f32", ...): by mnemonic
family = registrar(FAMILIES)          # @family("VOP2", ...): by encoding family


def handler(inst, kernel=None):
    _load()
    fn = HANDLERS.get(inst.mnemonic)
    if fn is not None:
        return fn
    factory = FAMILIES.get(inst.encoding)
    return factory(inst) if factory is not None else None


def translated():
    """Every mnemonic the translator takes (its own handlers and the ALU families' ops),
    for `softgpu isa-report`."""
    _load()
    from core.isa import alu
    from core.isa.native.alu import emitter
    return frozenset(HANDLERS) | frozenset(m for m in alu.coverage() if emitter(m) is not None)


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
        from core.isa.native import scalar, vector, control, smem, vmem, lds, lanes, packed32  # noqa: F401
        _loaded = True
