"""Integer building blocks shared by the VALU and SALU emitters (bit counts, reversal, fields),
in IR: the counterpart of core/isa/alu/intmath.py.

Invariant: every function takes i32 or i64 values of the kit's shape and is exact for every
bit pattern; counting functions return i32 with 0xFFFFFFFF (-1) where the hardware says "no
bit found".
"""
NOT_FOUND = 0xFFFFFFFF


def wide(k, x):
    """An unsigned operand as i64 (the numpy families' 64-bit intermediates)."""
    return k.zext(x, 64)


def signed(k, x):
    """A signed operand as i64."""
    return k.sext(x, 64)


def popcount(k, x):
    return k.zext(k.intrinsic("ctpop", [x]), 32)


def clz(k, x, width):
    """Leading zeros from bit width-1 (x has that many bits); NOT_FOUND for zero."""
    n = k.zext(k.intrinsic("ctlz", [x, k.flag(True)]), 32)
    return k.select(k.icmp("==", x, 0), k.i(NOT_FOUND), n)


def ctz(k, x):
    n = k.zext(k.intrinsic("cttz", [x, k.flag(True)]), 32)
    return k.select(k.icmp("==", x, 0), k.i(NOT_FOUND), n)


def cls(k, x, width):
    """MSB-first index of the first bit that differs from the sign; NOT_FOUND for 0 and -1."""
    flipped = k.select(k.scmp("<", x, 0), k.not_(x), x)
    return clz(k, flipped, width)


def brev(k, x):
    return k.intrinsic("bitreverse", [x])


def _count(k, n, bits):
    """Unsigned per-lane n as a `bits`-wide value, saturated at bits."""
    if k.width(n) > bits:
        n = k.umin(n, bits)
    return k.zext(n, bits)


def low_mask(k, width, bits):
    """(1 << width) - 1 per lane of unsigned `width` (any int type), all ones where width >= bits;
    the result has `bits` bits. (Shifts by >= bits are poison in LLVM: selected away.)"""
    w = _count(k, width, bits)
    return k.select(k.icmp(">=", w, bits), k.like(-1, w), k.sub(k.shl(k.like(1, w), w), 1))


def sext(k, x, width, bits=32):
    """Sign-extend the low `width` bits of x (bits wide); width is a per-lane unsigned value
    (0 gives 0) or a Python int."""
    if isinstance(width, int):
        return k.like(0, x) if width == 0 else k.ashr(k.shl(x, bits - width), bits - width)
    w = _count(k, width, bits)
    shift = k.select(k.icmp(">=", w, bits), k.like(0, w), k.sub(k.like(bits, w), w))
    v = k.ashr(k.shl(x, shift), shift)
    return k.select(k.icmp("==", w, 0), k.like(0, v), v)
