"""The 8-bit floats of AMD's matrix and conversion instructions, by the target's flavour:
"fnuz" (gfx942: E4M3FNUZ and E5M2FNUZ, biases 8 and 16, 0x80 the only NaN, no infinities or
-0) and "ocp" (gfx950, gfx12: OCP's E4M3FN and E5M2, biases 7 and 15; E4M3FN's all-ones
exponent and mantissa is NaN and it has no infinities, E5M2's all-ones exponent is infinity
with mantissa 0, else NaN). `fp8` names E4M3, `bf8` E5M2.

Guarantees: fp8_values gives each of the 256 codes its exact value (normal 1.m x 2^(e-bias),
subnormal 0.m x 2^(1-bias)); f32_bits gives the same values as f32 bit patterns, every one
exact, with NaN codes the f32 default NaN (an 8-bit NaN carries no payload to keep);
from_f32 rounds f32 values to the nearest code, ties to even, the way AMD's conversions do
without saturation (LLVM's and RCCL's account of gfx942/gfx950: an overflow is NaN, or
infinity in E5M2), and with MODE's FP16_OVFL set clamps a finite overflow to the largest
finite value (what hipBLASLt sets on gfx12), keeping infinities; FNUZ has no -0, so a
negative value that rounds to zero is 0x00.
"""
from functools import lru_cache

import numpy as np

from core.isa.alu import bits as B

# (exponent bits, mantissa bits, bias) of each 8-bit float, by flavour and kind.
FORMATS = {("fnuz", "fp8"): (4, 3, 8), ("fnuz", "bf8"): (5, 2, 16),
           ("ocp", "fp8"): (4, 3, 7), ("ocp", "bf8"): (5, 2, 15)}


def minifloat_values(exponent_bits, mantissa_bits, bias):
    """Every code's value (float64) of a sign-exponent-mantissa float with these fields, its
    top exponent read as normal numbers (the caller marks its infinities and NaNs)."""
    code = np.arange(1 << (1 + exponent_bits + mantissa_bits))
    exponent = code >> mantissa_bits & ((1 << exponent_bits) - 1)
    fraction = (code & ((1 << mantissa_bits) - 1)) / float(1 << mantissa_bits)
    magnitude = np.where(exponent == 0, fraction * 2.0 ** (1 - bias),
                         (1 + fraction) * 2.0 ** (exponent - bias))
    return np.where(code >> (exponent_bits + mantissa_bits) & 1, -magnitude, magnitude)


@lru_cache(maxsize=None)
def fp8_values(flavour, kind):
    """The 256 values of an 8-bit float as float64, indexed by code."""
    exponent_bits, mantissa_bits, bias = FORMATS[flavour, kind]
    values = minifloat_values(exponent_bits, mantissa_bits, bias)
    code = np.arange(256)
    exponent = code >> mantissa_bits & ((1 << exponent_bits) - 1)
    fraction = (code & ((1 << mantissa_bits) - 1)) / float(1 << mantissa_bits)
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


# The largest finite code of each format (the sign bit clear).
MAX_CODE = {("fnuz", "fp8"): 0x7F, ("fnuz", "bf8"): 0x7F, ("ocp", "fp8"): 0x7E, ("ocp", "bf8"): 0x7B}


def special_codes(flavour, kind):
    """(NaN, infinity, overflow) codes without the sign: what a NaN, an infinite and a too
    large finite f32 become without saturation."""
    if flavour == "fnuz":
        return 0x80, 0x80, 0x80
    if kind == "fp8":
        return 0x7F, 0x7F, 0x7F
    return 0x7E, 0x7C, 0x7C


def from_f32(bits, flavour, kind, saturate):
    """f32 bit patterns -> 8-bit codes (np.uint32), rounded to nearest even."""
    _, mantissa_bits, bias = FORMATS[flavour, kind]
    x = np.asarray(bits, np.uint32).astype(np.int64)
    sign = x >> 31 << 7
    biased, fraction = x >> 23 & 0xFF, x & 0x7FFFFF
    significand = np.where(biased == 0, fraction, fraction | 1 << 23)
    exponent = np.where(biased == 0, -126, biased - 127)
    lowest = 1 - bias                   # the smallest normal exponent
    # Keep the significand's bits down to the code's last place: 2^(max(e, lowest) - M).
    shift = np.minimum(23 - mantissa_bits + np.maximum(lowest - exponent, 0), 40)
    quanta, rest, half = significand >> shift, significand & ((1 << shift) - 1), 1 << (shift - 1)
    quanta = quanta + ((rest > half) | ((rest == half) & (quanta & 1 == 1)))
    # A normal value's quanta hold the implicit one, which becomes the exponent's first step.
    code = (np.maximum(exponent - lowest, 0) << mantissa_bits) + quanta
    nan, inf, overflow = special_codes(flavour, kind)
    top = MAX_CODE[flavour, kind]
    finite = np.where(code > top, top if saturate else overflow, code)
    if flavour == "fnuz":
        finite = np.where(finite == 0, 0, finite | sign)     # no -0: 0x80 is the NaN
        sign = np.zeros_like(sign)
    else:
        finite = finite | sign
    special = np.where(fraction != 0, nan, inf) | sign
    return np.where(biased == 0xFF, special, finite).astype(np.uint32)
