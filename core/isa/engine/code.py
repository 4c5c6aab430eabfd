"""Decoded code, cached per device address.

Holds two invariants:
- an address is decoded at most once per dispatch's Code object, and the handler is looked
  up with it, so the inner loop is a dict lookup;
- an address outside every live allocation, or bytes that do not decode, fault as
  ILLEGAL_INSTRUCTION at that PC rather than reading stray memory.
"""
from core.isa.engine.registry import handler_for


class Code:
    def __init__(self, arena, fault, wave64):
        self._arena = arena
        self._wave64 = wave64
        self._fault = fault           # fault(reason, pc) -> KernelFault
        self._cache = {}

    def at(self, pc):
        entry = self._cache.get(pc)
        if entry is None:
            entry = self._cache[pc] = self._decode(pc)
        return entry

    def _decode(self, pc):
        from core.isa.decoder import decode, DecodeError
        alloc = self._arena.find(pc)
        if alloc is None or pc + 4 > alloc.end:
            raise self._fault("the program counter left the code object", pc)
        try:
            inst = decode(self._arena.bytes, pc - self._arena.base, pc, self._wave64)
        except DecodeError as exc:
            raise self._fault(f"undecodable instruction: {exc}", pc) from None
        return inst, handler_for(inst)
