"""Bit-pattern views and IEEE classification shared by the ALU families.

Invariants:
- every helper takes and returns bit patterns of the operand's type as documented in
  core.isa.alu ('f16' in the low half of a uint32, 'f32' as uint32, 'f64' as uint64); float
  views are only ever made inside a helper, so NaN payloads are never touched by numpy
  conversions unless an op computes on them;
- a NaN changes format (quiet_nan_as) as the hardware's conversions move it: sign kept, the
  payload's high bits kept (truncated or zero-extended at the bottom), quiet bit set; the
  default NaN (an invalid operation's result) is negative and quiet: 0xFE00, 0xFFC00000,
  0xFFF8000000000000 (the RDNA ISA guides' functional examples for V_SQRT/V_LOG/V_RSQ/V_SIN/
  V_COS print 0xffc00000 and 0xfe00).
"""
from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class FloatFormat:
    bits: int
    mant_bits: int
    uint: type
    float: type

    @cached_property
    def sign(self):
        return self.uint(1 << (self.bits - 1))

    @cached_property
    def exp_mask(self):
        return self.uint(((1 << (self.bits - 1 - self.mant_bits)) - 1) << self.mant_bits)

    @cached_property
    def mant_mask(self):
        return self.uint((1 << self.mant_bits) - 1)

    @cached_property
    def quiet_bit(self):
        return self.uint(1 << (self.mant_bits - 1))

    @cached_property
    def bias(self):
        return (1 << (self.bits - 2 - self.mant_bits)) - 1

    @cached_property
    def default_nan(self):
        return self.uint(int(self.sign) | int(self.exp_mask) | int(self.quiet_bit))


# 'f16' operands live in the low half of a uint32, so their masks are uint32 too.
F16 = FloatFormat(16, 10, np.uint32, np.float16)
F32 = FloatFormat(32, 23, np.uint32, np.float32)
F64 = FloatFormat(64, 52, np.uint64, np.float64)
FORMATS = {"f16": F16, "f32": F32, "f64": F64}


def f16(x):
    """'f16' operand (low half of uint32) -> float16 values."""
    return (np.asarray(x) & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16)


def f32(x):
    return np.asarray(x, dtype=np.uint32).view(np.float32)


def f64(x):
    return np.asarray(x, dtype=np.uint64).view(np.float64)


def from_f16(v):
    """float16 values -> 'f16' operand (uint32, high half zero)."""
    return np.asarray(v, dtype=np.float16).view(np.uint16).astype(np.uint32)


def from_f32(v):
    return np.asarray(v, dtype=np.float32).view(np.uint32)


def from_f64(v):
    return np.asarray(v, dtype=np.float64).view(np.uint64)


VIEW = {"f16": f16, "f32": f32, "f64": f64}
PACK = {"f16": from_f16, "f32": from_f32, "f64": from_f64}


def is_nan(bits, fmt):
    # Exponent all ones and a nonzero mantissa: the magnitude bits exceed infinity's.
    return (bits & (fmt.exp_mask | fmt.mant_mask)) > fmt.exp_mask


def is_snan(bits, fmt):
    return is_nan(bits, fmt) & ((bits & fmt.quiet_bit) == 0)


def is_denorm(bits, fmt):
    return ((bits & fmt.exp_mask) == 0) & ((bits & fmt.mant_mask) != 0)


def quiet_nan_as(bits, fmt, to):
    """NaN bit patterns of format fmt as quiet NaNs of format `to` (other lanes: garbage)."""
    x = np.asarray(bits, dtype=fmt.uint).astype(np.uint64)
    sign = (x >> np.uint64(fmt.bits - 1)) & np.uint64(1)
    payload = x & np.uint64(int(fmt.mant_mask))
    shift = to.mant_bits - fmt.mant_bits
    payload = payload << np.uint64(shift) if shift >= 0 else payload >> np.uint64(-shift)
    out = (sign << np.uint64(to.bits - 1)) | np.uint64(int(to.exp_mask) | int(to.quiet_bit)) | payload
    return out.astype(to.uint)


def flush(bits, fmt):
    """Denormals -> zero of the same sign."""
    return np.where(is_denorm(bits, fmt), bits & fmt.sign, bits)


def sign_extend(x, width):
    """The low `width` bits of uint32 x as int32 (sign-extended)."""
    shift = 32 - width
    return (np.asarray(x).astype(np.uint32) << np.uint32(shift)).view(np.int32) >> np.int32(shift)
