"""Dynamic relocations of AMDGPU code objects, applied to the loaded image in device memory.

Holds these invariants:
- each relocation writes exactly its width (4 or 8 bytes) at its place, little-endian,
  with the value AMDGPUUsage defines for its type (S symbol address, A addend,
  P address of the place, B load base of the code object);
- a relocation whose symbol cannot be resolved raises VariableUndefined, as ROCr does,
  and an unknown type never reaches here (the parser refuses it as InvalidCodeObject).
"""
import numpy as np

from core.errors import VariableUndefined

R_AMDGPU_NONE = 0
R_AMDGPU_ABS32_LO = 1
R_AMDGPU_ABS32_HI = 2
R_AMDGPU_ABS64 = 3
R_AMDGPU_REL32 = 4
R_AMDGPU_REL64 = 5
R_AMDGPU_ABS32 = 6
R_AMDGPU_REL32_LO = 10
R_AMDGPU_REL32_HI = 11
R_AMDGPU_RELATIVE64 = 13

MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1

# type -> (bytes written, value from S, A, P, B)
_FORMULAS = {
    R_AMDGPU_ABS32_LO: (4, lambda S, A, P, B: (S + A) & MASK32),
    R_AMDGPU_ABS32_HI: (4, lambda S, A, P, B: ((S + A) >> 32) & MASK32),
    R_AMDGPU_ABS64: (8, lambda S, A, P, B: (S + A) & MASK64),
    R_AMDGPU_REL32: (4, lambda S, A, P, B: (S + A - P) & MASK32),
    R_AMDGPU_REL64: (8, lambda S, A, P, B: (S + A - P) & MASK64),
    R_AMDGPU_ABS32: (4, lambda S, A, P, B: (S + A) & MASK32),
    R_AMDGPU_REL32_LO: (4, lambda S, A, P, B: (S + A - P) & MASK32),
    R_AMDGPU_REL32_HI: (4, lambda S, A, P, B: ((S + A - P) >> 32) & MASK32),
    R_AMDGPU_RELATIVE64: (8, lambda S, A, P, B: (B + A) & MASK64),
}
WIDTH = {kind: width for kind, (width, _) in _FORMULAS.items()}
NAMES = {R_AMDGPU_ABS32_LO: "R_AMDGPU_ABS32_LO", R_AMDGPU_ABS32_HI: "R_AMDGPU_ABS32_HI",
         R_AMDGPU_ABS64: "R_AMDGPU_ABS64", R_AMDGPU_REL32: "R_AMDGPU_REL32",
         R_AMDGPU_REL64: "R_AMDGPU_REL64", R_AMDGPU_ABS32: "R_AMDGPU_ABS32",
         R_AMDGPU_REL32_LO: "R_AMDGPU_REL32_LO", R_AMDGPU_REL32_HI: "R_AMDGPU_REL32_HI",
         R_AMDGPU_RELATIVE64: "R_AMDGPU_RELATIVE64"}
# Types that need no symbol: the load base is all they use.
_BASE_ONLY = {R_AMDGPU_RELATIVE64}


def value(relocation, symbol_address, place, load_base):
    """The bytes a relocation writes (little-endian), given its resolved inputs."""
    width, formula = _FORMULAS[relocation.type]
    return formula(symbol_address, relocation.addend, place, load_base).to_bytes(width, "little")


def apply(code_object, image, load_base, resolve):
    """Patch `image` (writable bytes of the loaded span, starting at vaddr code_object.load_start).

    load_base: device address of virtual address 0; resolve(symbol) -> device address of a
    symbol (raises VariableUndefined when nothing defines it).
    """
    for relocation in code_object.relocations:
        if relocation.type in _BASE_ONLY or relocation.symbol == 0:
            symbol_address = 0
        else:
            symbol_address = resolve(code_object.symbols[relocation.symbol])
        data = value(relocation, symbol_address, load_base + relocation.offset, load_base)
        start = relocation.offset - code_object.load_start
        image[start:start + len(data)] = np.frombuffer(data, dtype=np.uint8)


def unresolved(symbol):
    return VariableUndefined(f"symbol {symbol.name!r} is undefined: define it with "
                             f"hsa_executable_(agent_)global_variable_define before loading")
