"""Integer building blocks shared by the VALU and SALU families (bit counts, reversal, fields).

Invariant: every function takes uint32 or uint64 arrays and is exact for every bit pattern;
counting functions return uint32 with 0xFFFFFFFF (-1) where the hardware says "no bit found".
"""
import numpy as np

U32 = np.uint32
U64 = np.uint64
NOT_FOUND = U32(0xFFFFFFFF)

# Byte -> byte with its 8 bits reversed.
_REV8 = np.array([int(f"{i:08b}"[::-1], 2) for i in range(256)], dtype=np.uint8)


def popcount(x):
    return np.bitwise_count(x).astype(U32)


def _high_bit_index(x):
    """Index of the highest set bit of nonzero uint32/uint64 lanes (garbage where x == 0).
    Split in 32-bit halves so the float64 exponent is exact for 64-bit inputs."""
    x = np.asarray(x)
    if x.dtype == U64:
        hi = (x >> U64(32)).astype(U32)
        lo = (x & U64(0xFFFFFFFF)).astype(U32)
        return np.where(hi != 0, _high_bit_index(hi) + 32, _high_bit_index(lo))
    _, e = np.frexp(x.astype(np.float64))
    return (e - 1).astype(np.int64)


def clz(x, width):
    """Leading zeros from the MSB; NOT_FOUND for zero (v_ffbh_u32 / s_flbit_i32_b32)."""
    return np.where(x == 0, NOT_FOUND, (width - 1 - _high_bit_index(x)).astype(U32))


def ctz(x):
    """Trailing zeros; NOT_FOUND for zero (v_ffbl_b32 / s_ff1_i32_b32)."""
    lowest = x & (~x + x.dtype.type(1))
    return np.where(x == 0, NOT_FOUND, _high_bit_index(lowest).astype(U32))


def cls(x, width):
    """Leading bits equal to the sign bit, i.e. the MSB-first index of the first bit that
    differs from the sign; NOT_FOUND for 0 and -1 (v_ffbh_i32 / s_flbit_i32)."""
    t = x.dtype.type
    sign = (x >> t(width - 1)) & t(1)
    flipped = np.where(sign == 1, ~x, x)
    return clz(flipped, width)


def brev32(x):
    b = np.asarray(x, dtype=U32).view(np.uint8).reshape(np.shape(x) + (4,))
    return _REV8[b[..., ::-1]].copy().view(U32).reshape(np.shape(x))


def brev64(x):
    b = np.asarray(x, dtype=U64).view(np.uint8).reshape(np.shape(x) + (8,))
    return _REV8[b[..., ::-1]].copy().view(U64).reshape(np.shape(x))


def low_mask(width, dtype):
    """(1 << width) - 1 per lane, all ones where width >= the type's bit count."""
    bits = np.dtype(dtype).itemsize * 8
    width = np.asarray(width).astype(np.int64)
    ones = np.dtype(dtype).type(~np.dtype(dtype).type(0))
    shift = np.minimum(width, bits - 1).astype(dtype)
    partial = (np.dtype(dtype).type(1) << shift) - np.dtype(dtype).type(1)
    return np.where(width >= bits, ones, partial).astype(dtype)


def sext(x, width, bits=32):
    """Sign-extend the low `width` bits (per-lane array, 0 < width <= bits); width 0 gives 0."""
    it = np.int32 if bits == 32 else np.int64
    ut = U32 if bits == 32 else U64
    width = np.asarray(width).astype(np.int64)
    shift = np.clip(bits - width, 0, bits - 1).astype(ut)
    v = ((np.asarray(x, dtype=ut) << shift).view(it) >> shift.astype(it)).astype(it)
    return np.where(width == 0, it(0), v).astype(it).view(ut)
