"""Decoded code, cached per device address for as long as its code object is loaded.

Holds two invariants:
- an address is decoded at most once per loaded code object (and wave size), and the
  handler is looked up with it, so the inner loop is a dict lookup; the cache dies with the
  code object, so memory reused by a later load is decoded afresh;
- an address outside every live allocation, or bytes that do not decode, fault as
  ILLEGAL_INSTRUCTION at that PC rather than reading stray memory.
"""
import threading
import weakref

from core.isa.faults import illegal_instruction
from core.isa.interp.registry import handler_for

_BY_CODE_OBJECT = weakref.WeakKeyDictionary()     # LoadedCodeObject -> {wave64: Code}
_lock = threading.Lock()                           # packet processors of several queues share it


def code_for(arena, kernel, wave64):
    """The Code cache of `kernel`'s code object, remembered in the kernel's engine_cache."""
    key = ("interpreter code", wave64)
    found = kernel.engine_cache.get(key)
    if found is None:
        with _lock:
            caches = _BY_CODE_OBJECT.setdefault(kernel.code_object, {})
            if wave64 not in caches:
                caches[wave64] = Code(arena, wave64)
            found = kernel.engine_cache[key] = caches[wave64]
    return found


class Code:
    def __init__(self, arena, wave64):
        self._arena = arena
        self._wave64 = wave64
        self._cache = {}

    def at(self, pc, kernel_name):
        entry = self._cache.get(pc)
        if entry is None:
            entry = self._cache[pc] = self._decode(pc, kernel_name)
        return entry

    def _decode(self, pc, kernel_name):
        from core.isa.decoder import decode, DecodeError
        alloc = self._arena.find(pc)
        if alloc is None or pc + 4 > alloc.end:
            raise illegal_instruction("the program counter left the code object", kernel=kernel_name, pc=pc)
        try:
            inst = decode(self._arena.bytes, pc - self._arena.base, pc, self._wave64)
        except DecodeError as exc:
            raise illegal_instruction(f"undecodable instruction: {exc}", kernel=kernel_name, pc=pc) from None
        return inst, handler_for(inst)
