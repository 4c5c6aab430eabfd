"""The element formats of gfx950's f8f6f4 MFMA and its block scales (OCP Microscaling, MX).

Guarantees:
- `F8F6F4` is the instruction's format code (CBSZ for A, BLGP for B) -> (name, bits per
  element): 0 fp8 (E4M3), 1 bf8 (E5M2), 2 fp6 (E2M3), 3 bf6 (E3M2), 4 fp4 (E2M1); a lane
  holds 32 elements, so its operand is `bits` registers (llvm prints v[0:7], v[0:5], v[0:3]);
- `unpack` reads a lane's registers as one little-endian bit string: element j is bits
  [j * bits, (j + 1) * bits), so two fp4 elements share a byte, low nibble first, as LLVM
  packs <32 x i4> and <32 x i6> vectors into registers;
- `values` gives each code of the 6- and 4-bit formats its exact value (they have no
  infinity or NaN: their top exponent holds normal numbers); the 8-bit ones are
  core.isa.alu.fp8's, in the target's flavour;
- `scale_values` gives each E8M0 scale code its value 2^(code - 127); 0xFF is NaN (MX's rule:
  a block with a NaN scale is NaN).
"""
from functools import lru_cache

import numpy as np

from core.isa.alu.fp8 import fp8_values, minifloat_values

F8F6F4 = {0: ("fp8", 8), 1: ("bf8", 8), 2: ("fp6", 6), 3: ("bf6", 6), 4: ("fp4", 4)}
ELEMENTS_PER_LANE = 32
# (exponent bits, mantissa bits, bias) of the small formats.
SMALL_FORMATS = {"fp6": (2, 3, 1), "bf6": (3, 2, 3), "fp4": (2, 1, 1)}
SCALE_BIAS = 127
SCALE_NAN = 0xFF


def registers(code):
    """Registers per lane of an operand in format `code`, or None for a code with no format."""
    found = F8F6F4.get(code)
    return None if found is None else found[1] * ELEMENTS_PER_LANE // 32


@lru_cache(maxsize=None)
def values(name, flavour="ocp"):
    """Every code's value (float64, indexed by code) of format `name`."""
    if name in ("fp8", "bf8"):
        return fp8_values(flavour, name)
    result = minifloat_values(*SMALL_FORMATS[name])
    result.setflags(write=False)
    return result


def unpack(regs, bits):
    """uint32 registers [..., r] -> the codes of their 32 * r / bits elements [..., e]."""
    regs = np.ascontiguousarray(regs, np.uint32)
    if bits == 8:
        return regs.view(np.uint8).reshape(regs.shape[:-1] + (-1,)).astype(np.int64)
    stream = np.unpackbits(regs.view(np.uint8), axis=-1, bitorder="little")
    stream = stream.reshape(regs.shape[:-1] + (-1, bits)).astype(np.int64)
    return (stream << np.arange(bits)).sum(axis=-1)


@lru_cache(maxsize=None)
def scale_values():
    """The 256 E8M0 scales as float64, indexed by code."""
    result = np.ldexp(1.0, np.arange(256) - SCALE_BIAS)
    result[SCALE_NAN] = np.nan
    result.setflags(write=False)
    return result
