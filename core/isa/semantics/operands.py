"""Operand types and constant operands: which ALU operand types are 64-bit and which 16-bit,
the bit pattern an inline constant or literal stands for under each type, and the values of
the aperture source registers.

Guarantees:
- constant_bits is the pattern hardware feeds the ALU: inline integers truncated to the
  type's width, inline floats converted to the type's format (1/(2*pi) as f16 is 0x3118),
  64-bit integer types reading float constants as their f64 pattern, and a 32-bit literal
  of an f64 operand its high dword;
- APERTURES gives, per aperture source register (src_shared_base/limit,
  src_private_base/limit), the high dword a 32-bit read returns and the low dword a 64-bit
  read adds.
"""
import numpy as np

from core.isa.apertures import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI

WIDE_TYPES = ("b64", "u64", "i64", "f64")
HALF_TYPES = ("b16", "u16", "i16", "f16")

APERTURES = {235: (SHARED_APERTURE_HI, 0), 236: (SHARED_APERTURE_HI, 0xFFFFFFFF),
             237: (PRIVATE_APERTURE_HI, 0), 238: (PRIVATE_APERTURE_HI, 0xFFFFFFFF)}


def constant_bits(op, type_):
    """Bit pattern of an inline constant or literal, as the operand's type reads it."""
    if op.kind == "inline_int":
        if type_ in WIDE_TYPES:
            return int(op.value) & 0xFFFFFFFFFFFFFFFF
        if type_ in HALF_TYPES:
            return int(op.value) & 0xFFFF
        return int(op.value) & 0xFFFFFFFF
    if op.kind == "inline_float":
        value = float(op.value)
        if type_ == "f64":
            return int(np.array(value, np.float64).view(np.uint64))
        if type_ in HALF_TYPES or type_ == "pk16":
            if value == 0.15915494309189532:
                return 0x3118          # the f16 encoding hardware uses for 1/(2*pi)
            return int(np.array(value, np.float16).view(np.uint16))
        if type_ in WIDE_TYPES:
            # 64-bit integer operands read float constants as the f64 pattern too.
            return int(np.array(value, np.float64).view(np.uint64))
        return int(np.array(value, np.float32).view(np.uint32))
    if op.kind == "literal":
        value = int(op.value) & 0xFFFFFFFF
        if type_ == "f64":
            return value << 32          # a 32-bit literal is the high half of an f64
        return value
    raise ValueError(op.kind)
