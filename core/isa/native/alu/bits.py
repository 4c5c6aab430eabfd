"""Float classification, denormal flushing and NaN rules on bit patterns, in IR (the
emitters' counterpart of core/isa/alu/bits.py and of table.canonical_nans).

Invariants:
- every test masks the format's own bits, so an f16 pattern may carry anything in its high
  half (as the numpy helpers allow);
- a NaN result is made here, never left to LLVM (which may commute a commutative fadd/fmul
  and folds constants with its own NaNs): canonical_nans gives a NaN lane the first NaN
  source quieted into the result's format (quiet_nan_as: sign and the payload's high bits
  kept) or the default NaN (sign and quiet bit set: 0xfe00, 0xffc00000,
  0xfff8000000000000), as the numpy pipeline does; bodies only need NaN-ness right;
- conversions between formats keep NaN-ness (the bits of a NaN are canonical_nans' business).
"""
from dataclasses import dataclass

from core.isa.alu.bits import FORMATS


@dataclass(frozen=True)
class Fmt:
    bits: int
    sign: int
    exp_mask: int
    mant_mask: int
    quiet_bit: int
    bias: int
    mant_bits: int

    @property
    def magnitude(self):
        return self.exp_mask | self.mant_mask

    @property
    def default_nan(self):
        return self.sign | self.exp_mask | self.quiet_bit


FMT = {t: Fmt(f.bits, int(f.sign), int(f.exp_mask), int(f.mant_mask), int(f.quiet_bit), f.bias, f.mant_bits)
       for t, f in FORMATS.items()}


def is_nan(k, x, t):
    f = FMT[t]
    return k.icmp(">", k.and_(x, f.magnitude), f.exp_mask)


def is_snan(k, x, t):
    return k.b.and_(is_nan(k, x, t), k.icmp("==", k.and_(x, FMT[t].quiet_bit), 0))


def is_inf(k, x, t):
    f = FMT[t]
    return k.icmp("==", k.and_(x, f.magnitude), f.exp_mask)


def is_zero(k, x, t):
    return k.icmp("==", k.and_(x, FMT[t].magnitude), 0)


def is_denorm(k, x, t):
    f = FMT[t]
    return k.b.and_(k.icmp("==", k.and_(x, f.exp_mask), 0), k.icmp("!=", k.and_(x, f.mant_mask), 0))


def sign_set(k, x, t):
    return k.icmp("!=", k.and_(x, FMT[t].sign), 0)


def flush(k, x, t):
    """Denormals -> zero of the same sign."""
    return k.select(is_denorm(k, x, t), k.and_(x, FMT[t].sign), x)


def quiet(k, x, t):
    return k.or_(x, FMT[t].quiet_bit)


def default_nan(k, like, t):
    return k.like(FMT[t].default_nan, like)


def quiet_nan_as(k, x, src, dst):
    """NaN patterns of format src as quiet NaNs of format dst (other lanes: garbage)."""
    fs, fd = FMT[src], FMT[dst]
    width = 64 if 64 in (fs.bits, fd.bits) else 32
    x = k.zext(x, width)
    sign = k.and_(k.lshr(x, fs.bits - 1), 1)
    payload = k.and_(x, fs.mant_mask)
    shift = fd.mant_bits - fs.mant_bits
    payload = k.shl(payload, shift) if shift >= 0 else k.lshr(payload, -shift)
    out = k.or_(k.or_(k.shl(sign, fd.bits - 1), fd.exp_mask | fd.quiet_bit), payload)
    return k.zext(out, 64 if dst == "f64" else 32)


def any_nan_test(k, r, t):
    """The per-lane NaN test of the fast path: one unordered compare of the value (f16 as
    bits: a half compare would convert first)."""
    if t == "f16":
        return is_nan(k, r, t)
    v = k.view(r, t)
    return k.b.fcmp_unordered("uno", v, v)


def canonical_nans(k, t, r, sources):
    """Result bits r of float type t with NaN lanes replaced by the first NaN of `sources`
    ((bits, type) in source order) quieted into t, or by t's default NaN. The replacement is
    one shared function per source types (a NaN lane is rare; inline, it was a third of
    double_transcendental -O0's IR)."""
    types = [st for _, st in sources]

    def fix(k, r, *xs):
        acc = default_nan(k, r, t)
        for x, st in reversed(list(zip(xs, types))):
            acc = k.select(is_nan(k, x, st), quiet_nan_as(k, x, st, t), acc)
        return k.select(is_nan(k, r, t), acc, r)
    args = [r] + [x for x, _ in sources]
    return k.unlikely(any_nan_test(k, r, t), r,
                      lambda: k.shared("_".join(["sg_nans", t] + types), fix, args))


def quiet_or(k, t, r, x):
    """r, or x quieted where x is NaN (ops whose one NaN source passes through)."""
    return k.select(is_nan(k, x, t), quiet(k, x, t), r)


# --- conversions between float formats --------------------------------------------------------
# Values convert exactly (widening) or round to nearest even (narrowing); a NaN stays a NaN,
# its bits are the pipeline's business (canonical_nans).

def widen(k, x, src, dst):
    """A float of format src as format dst (wider: exact)."""
    return k.bits(k.b.fpext(k.view(x, src), k.fty(dst)), dst)


def narrow(k, x, src, dst):
    """A float of format src rounded to format dst (nearest even)."""
    if (src, dst) == ("f64", "f16"):
        return narrow(k, odd_f32(k, x), "f32", "f16")
    return k.bits(k.b.fptrunc(k.view(x, src), k.fty(dst)), dst)


def odd_f32(k, x):
    """An f64 pattern rounded to odd at f32 precision, as f32 bits (NaNs as fptrunc makes
    them). Rounding that once more to f16 gives the correctly rounded f16 (24 >= 11 + 2 bits)
    without LLVM's f64 -> f16 conversion, a library call on x86 before AVX512-FP16."""
    v = k.view(x, "f64")
    r = k.b.fptrunc(v, k.fty("f32"))
    back = k.b.fpext(r, k.fty("f64"))
    rb = k.bits(r, "f32")
    # Stepping the magnitude down where nearest rounded away gives truncation (overflow: the
    # largest finite); forcing the last bit of an inexact result then makes it odd.
    away = k.b.fcmp_ordered(">", k.intrinsic("fabs", [back]), k.intrinsic("fabs", [v]))
    truncated = k.select(away, k.sub(rb, 1), rb)
    return k.select(k.b.fcmp_ordered("!=", back, v), k.or_(truncated, 1), rb)
