"""VALU conversions between f16/f32/f64 and 8/16/32-bit integers, and packing conversions.

Invariants (RDNA2/CDNA ISA guides, "out-of-range floating point values (including infinity)
saturate. NAN is converted to 0"):
- float -> integer truncates toward zero (cvt_flr floors, cvt_rpi rounds half up), saturates
  to the integer range (+-inf included), and gives 0 for NaN of any sign or payload;
- integer -> float rounds to nearest even; v_cvt_f32_f64 too; v_cvt_f16_f32 rounds as
  MODE.FP_ROUND[3:2] says (the guide: "Output rounding based on DP rounding mode") and makes
  f16 denormals; v_cvt_pkrtz_f16_f32 rounds toward zero (finite values never become inf);
- a NaN keeps its sign and the high bits of its payload across a width change, quieted
  (table.canonical_nans; v_cvt_pkrtz_f16_f32 applies the same rule to each half);
- normalized packs (pknorm) clamp to [-1, 1] / [0, 1], round to nearest even, NaN -> 0;
- 8-bit floats (the target's flavour, core.isa.alu.fp8) widen to f32 exactly, their NaN codes
  the f32 default NaN; f32 narrows to them rounded to nearest even, overflowing to NaN (or
  E5M2's infinity) unless MODE.FP16_OVFL clamps finite values.
"""
import numpy as np

from core.isa.alu import bits as B
from core.isa.alu import rounding as R
from core.isa.alu import mx
from core.isa.alu.fp8 import f32_bits as fp8_f32_bits, fp8_values, from_f32 as fp8_from_f32
from core.isa.alu.table import MODE_FP16_OVFL, canonical_nans, op

U32 = np.uint32


def _to_int(v, lo, hi, rounding):
    """Float values -> saturated integer in [lo, hi] as int64; NaN -> 0."""
    v = np.asarray(v).astype(np.float64)
    r = rounding(v)
    r = np.where(np.isnan(r), 0, np.clip(r, lo, hi))
    return r.astype(np.int64)


def _as_u32(i):
    return (np.asarray(i, dtype=np.int64) & 0xFFFFFFFF).astype(U32)


def _as_u16(i):
    return (np.asarray(i, dtype=np.int64) & 0xFFFF).astype(U32)


_I32 = (-2**31, 2**31 - 1)
_U32 = (0, 2**32 - 1)
_I16 = (-2**15, 2**15 - 1)
_U16 = (0, 2**16 - 1)


def _f2i(t, bounds, rounding=np.trunc, pack=_as_u32):
    return lambda a: pack(_to_int(B.VIEW[t](a), *bounds, rounding))


op("f32 -> i32", "v_cvt_i32_f32")(_f2i("f32", _I32))
op("f32 -> u32", "v_cvt_u32_f32")(_f2i("f32", _U32))
op("f64 -> i32", "v_cvt_i32_f64")(_f2i("f64", _I32))
op("f64 -> u32", "v_cvt_u32_f64")(_f2i("f64", _U32))
op("f16 -> i16", "v_cvt_i16_f16")(_f2i("f16", _I16, pack=_as_u16))
op("f16 -> u16", "v_cvt_u16_f16")(_f2i("f16", _U16, pack=_as_u16))
op("f32 -> i32", "v_cvt_flr_i32_f32")(_f2i("f32", _I32, np.floor))
# floor(S0 + 0.5) with the add in f32, as the guide writes it: 2^23 + 1 rounds to 2^23 + 2.
op("f32 -> i32", "v_cvt_rpi_i32_f32")(
    _f2i("f32", _I32, lambda v: np.floor((v.astype(np.float32) + np.float32(0.5)).astype(np.float64))))

op("i32 -> f32", "v_cvt_f32_i32")(lambda a: B.from_f32(np.asarray(a, U32).view(np.int32).astype(np.float32)))
op("u32 -> f32", "v_cvt_f32_u32")(lambda a: B.from_f32(np.asarray(a, U32).astype(np.float32)))
op("i32 -> f64", "v_cvt_f64_i32")(lambda a: B.from_f64(np.asarray(a, U32).view(np.int32).astype(np.float64)))
op("u32 -> f64", "v_cvt_f64_u32")(lambda a: B.from_f64(np.asarray(a, U32).astype(np.float64)))
op("i16 -> f16", "v_cvt_f16_i16")(lambda a: B.from_f16(B.sign_extend(a, 16).astype(np.float16)))
op("u16 -> f16", "v_cvt_f16_u16")(lambda a: B.from_f16(np.asarray(a, U32).astype(np.float16)))

op("f32 -> f64", "v_cvt_f64_f32")(lambda a: B.from_f64(B.f32(a).astype(np.float64)))
op("f64 -> f32", "v_cvt_f32_f64")(lambda a: B.from_f32(B.f64(a).astype(np.float32)))
op("f16 -> f32", "v_cvt_f32_f16")(lambda a: B.from_f32(B.f16(a).astype(np.float32)))
@op("f32 -> f16", "v_cvt_f16_f32", uses_mode=True)
def _cvt_f16_f32(a, mode):
    rm = (mode >> R.round_shift("f16")) & 3
    v = B.f32(a)
    return B.from_f16(R.narrow(v, np.float16, rm) if rm else v.astype(np.float16))


for _k in range(4):
    op("u32 -> f32", f"v_cvt_f32_ubyte{_k}")(
        lambda a, k=_k: B.from_f32(((np.asarray(a, U32) >> U32(8 * k)) & U32(0xFF)).astype(np.float32)))

op("u32 -> f32", "v_cvt_off_f32_i4")(
    lambda a: B.from_f32((B.sign_extend(np.asarray(a, U32) & U32(0xF), 4) / 16).astype(np.float32)))


def _f16_toward_zero(a):
    """f32 bit patterns -> f16 bit patterns rounded toward zero, NaNs quieted."""
    a = np.asarray(a, dtype=U32)
    half = B.from_f16(R.narrow(B.f32(a), np.float16, R.TOWARD_ZERO))
    return np.where(B.is_nan(a, B.F32), B.quiet_nan_as(a, B.F32, B.F16), half)


@op("f32 f32 -> b32", "v_cvt_pkrtz_f16_f32")
def _pkrtz(a, b):
    return _f16_toward_zero(a) | (_f16_toward_zero(b) << U32(16))


def _f16_by_mode(a, mode):
    """f32 bit patterns -> f16 bit patterns rounded as MODE says, NaNs quieted."""
    a = np.asarray(a, dtype=U32)
    return np.where(B.is_nan(a, B.F32), B.quiet_nan_as(a, B.F32, B.F16), _cvt_f16_f32(a, mode))


def bf16_nearest_even(a):
    """f32 bit patterns -> bf16 bit patterns (their high half), rounded to nearest even; a NaN
    keeps its sign and high payload, quieted."""
    a = np.asarray(a, dtype=U32)
    rounded = (a + U32(0x7FFF) + (a >> U32(16) & U32(1))) >> U32(16)
    return np.where(B.is_nan(a, B.F32), a >> U32(16) | U32(0x40), rounded)


# gfx950: two f32 values into one register's halves (S0 low, S1 high).
op("f32 f32 -> b32", "v_cvt_pk_f16_f32", uses_mode=True)(
    lambda a, b, mode: _f16_by_mode(a, mode) | (_f16_by_mode(b, mode) << U32(16)))
op("f32 f32 -> b32", "v_cvt_pk_bf16_f32")(
    lambda a, b: bf16_nearest_even(a) | (bf16_nearest_even(b) << U32(16)))
# gfx950: bf16 (the low half) to f32 is exact: the bits move up.
op("b32 -> b32", "v_cvt_f32_bf16")(lambda a: np.asarray(a, dtype=U32) << U32(16))


# gfx942, gfx950, gfx12: an 8-bit float (the target's flavour) to f32, exact. The byte is the
# source's low one (SDWA's src0_sel brings another there), or on gfx12 the one byte_sel names;
# the packed forms convert the low word's two bytes (op_sel, a .h operand or SDWA's WORD_1
# bring the high word) into a register pair, low byte first.
def _fp8_to_f32(kind):
    def convert(a, fp8, byte_sel):
        return fp8_f32_bits(fp8, kind)[np.asarray(a, U32) >> U32(8 * byte_sel) & U32(0xFF)]
    return convert


def _pk_fp8_to_f32(kind):
    def convert(a, fp8):
        table, a = fp8_f32_bits(fp8, kind), np.asarray(a, U32)
        low, high = table[a & U32(0xFF)], table[a >> U32(8) & U32(0xFF)]
        return low.astype(np.uint64) | high.astype(np.uint64) << np.uint64(32)
    return convert


# ... and two f32 values to two 8-bit floats in one half of the destination (op_sel[3] names
# which; the other keeps its bits), S0 in the low byte: rounded to nearest even, an overflow
# NaN (infinity in OCP's E5M2) unless MODE.FP16_OVFL clamps it (core.isa.alu.fp8).
def _f32_to_pk_fp8(kind):
    def convert(a, b, fp8, mode):
        saturate = bool(mode & MODE_FP16_OVFL)
        return fp8_from_f32(a, fp8, kind, saturate) | fp8_from_f32(b, fp8, kind, saturate) << U32(8)
    return convert


# gfx950's scaled form divides each value by S2 first (MLIR's scaling_truncf, which lowers to
# it): exact for the power-of-two scales of MX formats and Triton's 1.0; another scale's
# quotient is rounded to f32 before the conversion rounds it again.
def _f32_to_pk_fp8_scaled(kind):
    convert = _f32_to_pk_fp8(kind)

    def scaled(a, b, scale, fp8, mode):
        s = B.f32(scale).astype(np.float64)
        return convert(*(B.from_f32((B.f32(x).astype(np.float64) / s).astype(np.float32)) for x in (a, b)),
                       fp8, mode)
    return scaled


for _kind in ("fp8", "bf8"):
    op("b32 -> f32", f"v_cvt_f32_{_kind}", uses_fp8=True, byte_sel=True)(_fp8_to_f32(_kind))
    op("b16 -> b64", f"v_cvt_pk_f32_{_kind}", uses_fp8=True)(_pk_fp8_to_f32(_kind))
    op("f32 f32 -> b16", f"v_cvt_pk_{_kind}_f32", uses_fp8=True, uses_mode=True)(_f32_to_pk_fp8(_kind))
    op("f32 f32 f32 -> b16", f"v_cvt_scalef32_pk_{_kind}_f32", uses_fp8=True, uses_mode=True)(
        _f32_to_pk_fp8_scaled(_kind))


# gfx950: 8-bit floats (a word op_sel[0] names, or a byte) and fp4 (a byte, low nibble first)
# times the f32 scale S1, to f32, f16 or bf16; a byte is op_sel[1:0] (llvm PR 151286: llvm
# before it, clang-21.1 among them, encodes a builtin's bytes 1 and 2 the other way). What
# Triton's tl.dot_scaled upcasts with. Exact for the power-of-two scales MX formats have;
# another scale's product is rounded to f32 first (nearest even), then to a 16-bit result.
def _times_scale(values, scale):
    """float64 values x f32 `scale` (bit patterns) -> f32 bit patterns; a NaN product is the
    scale quieted if it is a NaN, else the default NaN (an 8-bit NaN has no payload)."""
    product = B.from_f32((values * B.f32(scale).astype(np.float64)).astype(np.float32))
    return canonical_nans(product, "f32", [(scale, "f32")])


def _to_16(bits, to, mode):
    return bf16_nearest_even(bits) if to == "bf16" else _f16_by_mode(bits, mode)


def _scaled_pair(values_of, to):
    """A pair of small floats (values_of(a, fp8, byte_sel) -> (low, high) float64) to two f32
    (a 64-bit result, low first) or two 16-bit halves (low in the low half)."""
    def convert(a, scale, fp8, mode=None, byte_sel=0):
        low, high = (_times_scale(v, scale) for v in values_of(np.asarray(a, U32), fp8, byte_sel))
        if to == "f32":
            return low.astype(np.uint64) | high.astype(np.uint64) << np.uint64(32)
        return _to_16(low, to, mode) | _to_16(high, to, mode) << U32(16)
    return convert


def _fp8_pair(kind):
    def values_of(word, fp8, _byte_sel):
        table = fp8_values(fp8, kind)
        return table[word & U32(0xFF)], table[word >> U32(8) & U32(0xFF)]
    return values_of


def _fp4_pair(byte, _fp8, byte_sel):
    byte = byte >> U32(8 * byte_sel)
    table = mx.values("fp4")
    return table[byte & U32(0xF)], table[byte >> U32(4) & U32(0xF)]


for _kind in ("fp8", "bf8"):
    op("b32 f32 -> f32", f"v_cvt_scalef32_f32_{_kind}", uses_fp8=True, op_sel_byte=True)(
        lambda a, scale, fp8, byte_sel, kind=_kind: _times_scale(
            fp8_values(fp8, kind)[np.asarray(a, U32) >> U32(8 * byte_sel) & U32(0xFF)], scale))
    op("b16 f32 -> b64", f"v_cvt_scalef32_pk_f32_{_kind}", uses_fp8=True)(_scaled_pair(_fp8_pair(_kind), "f32"))
    op("b16 f32 -> b32", f"v_cvt_scalef32_pk_f16_{_kind}", uses_fp8=True, uses_mode=True)(
        _scaled_pair(_fp8_pair(_kind), "f16"))
    op("b16 f32 -> b32", f"v_cvt_scalef32_pk_bf16_{_kind}", uses_fp8=True)(_scaled_pair(_fp8_pair(_kind), "bf16"))
op("b32 f32 -> b64", "v_cvt_scalef32_pk_f32_fp4", uses_fp8=True, op_sel_byte=True)(_scaled_pair(_fp4_pair, "f32"))
op("b32 f32 -> b32", "v_cvt_scalef32_pk_f16_fp4", uses_fp8=True, uses_mode=True, op_sel_byte=True)(
    _scaled_pair(_fp4_pair, "f16"))
op("b32 f32 -> b32", "v_cvt_scalef32_pk_bf16_fp4", uses_fp8=True, op_sel_byte=True)(
    _scaled_pair(_fp4_pair, "bf16"))


def _norm(lo, scale):
    def pack(v):
        v = np.asarray(v).astype(np.float64)
        return _as_u16(np.where(np.isnan(v), 0, np.rint(np.clip(v, lo, 1) * scale)).astype(np.int64))
    return pack


for _t in ("f32", "f16"):
    for _name, _pack in (("i16", _norm(-1, 32767)), ("u16", _norm(0, 65535))):
        op(f"{_t} {_t} -> b32", f"v_cvt_pknorm_{_name}_{_t}")(
            lambda a, b, t=_t, p=_pack: p(B.VIEW[t](a)) | (p(B.VIEW[t](b)) << U32(16)))


# gfx11, gfx12: two f32 values to 16-bit integers as v_cvt_i16_f16 converts (truncated,
# saturated, NaN -> 0), S0 into the low half.
for _name, _bounds in (("i16", _I16), ("u16", _U16)):
    op("f32 f32 -> b32", f"v_cvt_pk_{_name}_f32")(
        lambda a, b, bounds=_bounds: _as_u16(_to_int(B.f32(a), *bounds, np.trunc))
        | (_as_u16(_to_int(B.f32(b), *bounds, np.trunc)) << U32(16)))


op("f16 -> i16", "v_cvt_norm_i16_f16")(lambda a: _norm(-1, 32767)(B.f16(a)))
op("f16 -> u16", "v_cvt_norm_u16_f16")(lambda a: _norm(0, 65535)(B.f16(a)))


@op("f32 u32 u32 -> b32", "v_cvt_pk_u8_f32")
def _pk_u8(a, sel, old):
    byte = _to_int(B.f32(a), 0, 255, np.rint).astype(U32)
    shift = (np.asarray(sel, U32) & U32(3)) * U32(8)
    return (np.asarray(old, U32) & ~(U32(0xFF) << shift)) | (byte << shift)


@op("f16 f16 -> b32", "v_pack_b32_f16", ftz=False)
def _pack_f16(a, b):
    return (np.asarray(a, U32) & U32(0xFFFF)) | ((np.asarray(b, U32) & U32(0xFFFF)) << U32(16))
