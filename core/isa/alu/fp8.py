"""The 8-bit floats of AMD's matrix and conversion instructions, by the target's flavour:
"fnuz" (gfx942: E4M3FNUZ and E5M2FNUZ, biases 8 and 16, 0x80 the only NaN, no infinities or
-0) and "ocp" (gfx950, gfx12: OCP's E4M3FN and E5M2, biases 7 and 15; E4M3FN's all-ones
exponent and mantissa is NaN and it has no infinities, E5M2's all-ones exponent is infinity
with mantissa 0, else NaN). `fp8` names E4M3, `bf8` E5M2.

Guarantees: fp8_values gives each of the 256 codes its exact value (normal 1.m x 2^(e-bias),
subnormal 0.m x 2^(1-bias)); f32_bits gives the same values as f32 bit patterns, every one
exact, with NaN codes the f32 default NaN (an 8-bit NaN carries no payload to keep).
"""
from functools import lru_cache

import numpy as np

from core.isa.alu import bits as B

# (exponent bits, mantissa bits, bias) of each 8-bit float, by flavour and kind.
FORMATS = {("fnuz", "fp8"): (4, 3, 8), ("fnuz", "bf8"): (5, 2, 16),
           ("ocp", "fp8"): (4, 3, 7), ("ocp", "bf8"): (5, 2, 15)}


@lru_cache(maxsize=None)
def fp8_values(flavour, kind):
    """The 256 values of an 8-bit float as float64, indexed by code."""
    exponent_bits, mantissa_bits, bias = FORMATS[flavour, kind]
    code = np.arange(256)
    exponent = code >> mantissa_bits & ((1 << exponent_bits) - 1)
    fraction = (code & ((1 << mantissa_bits) - 1)) / float(1 << mantissa_bits)
    magnitude = np.where(exponent == 0, fraction * 2.0 ** (1 - bias),
                         (1 + fraction) * 2.0 ** (exponent - bias))
    values = np.where(code & 0x80, -magnitude, magnitude)
    top = exponent == (1 << exponent_bits) - 1
    if flavour == "fnuz":
        values[0x80] = np.nan
    elif kind == "fp8":
        values[top & (fraction == 1 - 1.0 / (1 << mantissa_bits))] = np.nan
    else:
        values[top] = np.where(fraction[top] == 0, np.copysign(np.inf, values[top]), np.nan)
    values.setflags(write=False)
    return values


@lru_cache(maxsize=None)
def f32_bits(flavour, kind):
    """The 256 values as f32 bit patterns (np.uint32), NaN codes as the f32 default NaN."""
    values = fp8_values(flavour, kind)
    with np.errstate(invalid="ignore"):
        bits = values.astype(np.float32).view(np.uint32).copy()
    bits[np.isnan(values)] = B.F32.default_nan
    bits.setflags(write=False)
    return bits
