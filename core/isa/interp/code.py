"""Decoded code, cached per device address for as long as its code object is loaded.

Holds these invariants:
- an address is decoded at most once per loaded code object (and launch layout: wave size,
  target, gfx90a's AGPR offset), and the handler is looked up with it, so the inner loop is a
  dict lookup; the cache dies with the code object, so memory reused by a later load is
  decoded afresh;
- handlers see the record in the engine's terms, not the target's: the gfx1030 name of the
  operation (gfx11's renames resolved, a VOPD half's v_dual_ prefix dropped) and AGPR
  operands as the VGPRs they are in the unified register file (a<n> is v<accum_offset + n>),
  VALU handlers wrapped to follow gfx9's index mode (core.isa.interp.gpr_index); faults
  report the record as the target prints it;
- an address outside every live allocation, or bytes that do not decode, fault as
  ILLEGAL_INSTRUCTION at that PC rather than reading stray memory.
"""
import threading
import weakref

from core.isa.faults import illegal_instruction
from core.isa.interp.gpr_index import indexed
from core.isa.interp.handlers import handler_for
from core.isa.semantics.records import executable

# Families whose VGPR operands gfx9's index mode (s_set_gpr_idx_on) makes relative.
_VALU = frozenset(("VOP1", "VOP2", "VOPC", "VOP3", "VOP3B", "VOP3P"))

_BY_CODE_OBJECT = weakref.WeakKeyDictionary()     # LoadedCodeObject -> {layout key: Code}
_lock = threading.Lock()                           # packet processors of several queues share it


def code_for(arena, kernel, desc):
    """The Code cache of `kernel`'s code object for its launch layout `desc`, remembered in
    the kernel's engine_cache."""
    key = (desc.wave64, desc.target.name, desc.accum_offset)
    found = kernel.engine_cache.get(("interpreter code", key))
    if found is None:
        with _lock:
            caches = _BY_CODE_OBJECT.setdefault(kernel.code_object, {})
            if key not in caches:
                caches[key] = Code(arena, desc)
            found = kernel.engine_cache[("interpreter code", key)] = caches[key]
    return found


class Code:
    def __init__(self, arena, desc):
        self._arena = arena
        self._wave64 = desc.wave64
        self._target = desc.target
        self._accum_offset = desc.accum_offset
        self._cache = {}
        self._printed = {}

    def at(self, pc, kernel_name):
        """(record as the engine runs it, its handler) at `pc`."""
        entry = self._cache.get(pc)
        if entry is None:
            entry = self._cache[pc] = self._decode(pc, kernel_name)
        return entry

    def printed(self, pc):
        """The record at `pc` as the target prints it (for fault reports)."""
        return self._printed[pc]

    def _decode(self, pc, kernel_name):
        from core.isa.decoder import decode, DecodeError
        alloc = self._arena.find(pc)
        if alloc is None or pc + 4 > alloc.end:
            raise illegal_instruction("the program counter left the code object", kernel=kernel_name, pc=pc)
        try:
            inst = decode(self._arena.bytes, pc - self._arena.base, pc, self._wave64, self._target)
        except DecodeError as exc:
            raise illegal_instruction(f"undecodable instruction: {exc}", kernel=kernel_name, pc=pc) from None
        self._printed[pc] = inst
        inst = executable(inst, self._target, self._accum_offset)
        handler = handler_for(inst)
        if self._target.gpr_index_mode and inst.encoding in _VALU:
            handler = indexed(handler)
        return inst, handler

