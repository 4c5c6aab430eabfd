"""VALU conversions in IR: the emitters of core/isa/alu/conversion.py, in its order.

Invariants (as the numpy family's):
- float -> integer rounds (trunc, floor, or f32 add of 0.5 then floor), saturates to the
  integer range and gives 0 for NaN, computed on the f64 value as numpy does;
- integer -> float rounds to nearest even, v_cvt_f32_f64 too; v_cvt_f16_f32 rounds as
  MODE.FP_ROUND[3:2] says (rounding.narrow), v_cvt_pkrtz_f16_f32 toward zero; float -> float
  NaNs are made canonical by the pipeline (pkrtz quiets each half's itself);
- normalized packs clamp to [-1, 1] / [0, 1], scale and round to nearest even, NaN -> 0;
- 8-bit floats widen to f32 from their fields, bit for bit the numpy table's values, and f32
  narrows to them by numpy's integer steps.
"""
from core.isa.alu.fp8 import FORMATS as FP8_FORMATS, MAX_CODE as FP8_MAX, special_codes as FP8_SPECIAL
from core.isa.alu.mx import SMALL_FORMATS as MX_FORMATS
from core.isa.alu.table import MODE_FP16_OVFL
from core.isa.native.alu import bits as B
from core.isa.native.alu import rounding as R
from core.isa.native.alu.table import emits

_I32 = (-2**31, 2**31 - 1)
_U32 = (0, 2**32 - 1)
_I16 = (-2**15, 2**15 - 1)
_U16 = (0, 2**16 - 1)


def _f64_value(k, x, t):
    return k.view(B.widen(k, x, t, "f64"), "f64") if t != "f64" else k.view(x, "f64")


def to_int(k, v, lo, hi, rounding="trunc"):
    """An f64 value -> its rounding, saturated to [lo, hi], as i64; NaN -> 0."""
    r = k.intrinsic(rounding, [v]) if rounding else v
    lo_v, hi_v = k.f(float(lo), "f64"), k.f(float(hi), "f64")
    r = k.select(k.b.fcmp_ordered("<", r, lo_v), lo_v, k.select(k.b.fcmp_ordered(">", r, hi_v), hi_v, r))
    i = k.b.fptosi(r, k.ity(64))
    return k.select(k.b.fcmp_unordered("uno", v, v), k.like(0, i), i)


def _f2i(t, bounds, rounding="trunc", bits=32):
    def f2i(k, a):
        i = to_int(k, _f64_value(k, a, t), *bounds, rounding)
        return k.trunc(i, 32) if bits == 32 else k.and_(k.trunc(i, 32), 0xFFFF)
    return f2i


emits("v_cvt_i32_f32")(_f2i("f32", _I32))
emits("v_cvt_u32_f32")(_f2i("f32", _U32))
emits("v_cvt_i32_f64")(_f2i("f64", _I32))
emits("v_cvt_u32_f64")(_f2i("f64", _U32))
emits("v_cvt_i16_f16")(_f2i("f16", _I16, bits=16))
emits("v_cvt_u16_f16")(_f2i("f16", _U16, bits=16))
emits("v_cvt_flr_i32_f32")(_f2i("f32", _I32, "floor"))


@emits("v_cvt_rpi_i32_f32")
def _cvt_rpi(k, a):
    # floor(S0 + 0.5) with the add in f32, as the guide writes it: 2^23 + 1 rounds to 2^23 + 2.
    s = k.b.fadd(k.view(a, "f32"), k.f(0.5, "f32"))
    return k.trunc(to_int(k, k.b.fpext(s, k.fty("f64")), *_I32, "floor"), 32)


def _int_to_float(k, i, t, signed):
    conv = k.b.sitofp if signed else k.b.uitofp
    if t == "f16":    # 16-bit integers are exact in f32: one rounding, to f16
        return B.narrow(k, k.bits(conv(i, k.fty("f32")), "f32"), "f32", "f16")
    return k.bits(conv(i, k.fty(t)), t)


emits("v_cvt_f32_i32")(lambda k, a: _int_to_float(k, a, "f32", True))
emits("v_cvt_f32_u32")(lambda k, a: _int_to_float(k, a, "f32", False))
emits("v_cvt_f64_i32")(lambda k, a: _int_to_float(k, a, "f64", True))
emits("v_cvt_f64_u32")(lambda k, a: _int_to_float(k, a, "f64", False))
emits("v_cvt_f16_i16")(lambda k, a: _int_to_float(k, k.sext(k.trunc(a, 16), 32), "f16", True))
emits("v_cvt_f16_u16")(lambda k, a: _int_to_float(k, a, "f16", False))

emits("v_cvt_f64_f32")(lambda k, a: B.widen(k, a, "f32", "f64"))
emits("v_cvt_f32_f64")(lambda k, a: B.narrow(k, a, "f64", "f32"))
emits("v_cvt_f32_f16")(lambda k, a: B.widen(k, a, "f16", "f32"))
@emits("v_cvt_f16_f32")
def _cvt_f16_f32(k, a, mode):
    rm = (mode >> R.round_shift("f16")) & 3
    return R.narrow(k, a, "f32", "f16", rm) if rm else B.narrow(k, a, "f32", "f16")

for _k in range(4):
    emits(f"v_cvt_f32_ubyte{_k}")(
        lambda k, a, n=_k: _int_to_float(k, k.and_(k.lshr(a, 8 * n), 0xFF), "f32", False))

emits("v_cvt_off_f32_i4")(lambda k, a: k.bits(k.b.fmul(k.b.sitofp(k.ashr(k.shl(a, 28), 28), k.fty("f32")),
                                                      k.f(1 / 16, "f32")), "f32"))


def _f16_toward_zero(k, x):
    """f32 bits -> f16 bits rounded toward zero, NaNs quieted."""
    half = R.narrow(k, x, "f32", "f16", R.TOWARD_ZERO)
    return k.select(B.is_nan(k, x, "f32"), B.quiet_nan_as(k, x, "f32", "f16"), half)


@emits("v_cvt_pkrtz_f16_f32")
def _pkrtz(k, a, b):
    return k.or_(_f16_toward_zero(k, a), k.shl(_f16_toward_zero(k, b), 16))


def _f16_by_mode(k, x, mode):
    return k.select(B.is_nan(k, x, "f32"), B.quiet_nan_as(k, x, "f32", "f16"), _cvt_f16_f32(k, x, mode))


def bf16_nearest_even(k, x):
    rounded = k.lshr(k.add(k.add(x, 0x7FFF), k.and_(k.lshr(x, 16), 1)), 16)
    return k.select(B.is_nan(k, x, "f32"), k.or_(k.lshr(x, 16), 0x40), rounded)


emits("v_cvt_pk_f16_f32")(
    lambda k, a, b, mode: k.or_(_f16_by_mode(k, a, mode), k.shl(_f16_by_mode(k, b, mode), 16)))
emits("v_cvt_pk_bf16_f32")(
    lambda k, a, b: k.or_(bf16_nearest_even(k, a), k.shl(bf16_nearest_even(k, b), 16)))
emits("v_cvt_f32_bf16")(lambda k, a: k.shl(a, 16))


def _minifloat_f32_bits(k, code, exponent_bits, mantissa_bits, bias):
    """A small float's code -> (its f32 bits, its exponent field, its mantissa field), the
    top exponent read as normal numbers (core.isa.alu.fp8.minifloat_values), exact in f32."""
    sign = k.shl(k.lshr(code, exponent_bits + mantissa_bits), 31)
    exponent = k.and_(k.lshr(code, mantissa_bits), (1 << exponent_bits) - 1)
    mantissa = k.and_(code, (1 << mantissa_bits) - 1)
    normal = k.or_(k.shl(k.add(exponent, 127 - bias), 23), k.shl(mantissa, 23 - mantissa_bits))
    # subnormal: 0.m x 2^(1-bias), exact in f32
    tiny = k.bits(k.b.fmul(k.b.uitofp(mantissa, k.fty("f32")),
                           k.f(2.0 ** (1 - bias - mantissa_bits), "f32")), "f32")
    return k.or_(sign, k.select(k.icmp("==", exponent, 0), tiny, normal)), exponent, mantissa


def _fp8_f32_bits(k, code, fp8, kind):
    """An 8-bit float's code (0-255 per lane) -> its f32 bits, built from its fields as
    core.isa.alu.fp8 defines them; NaN codes give the f32 default NaN."""
    exponent_bits = FP8_FORMATS[fp8, kind][0]
    value, exponent, mantissa = _minifloat_f32_bits(k, code, *FP8_FORMATS[fp8, kind])
    sign = k.shl(k.lshr(code, 7), 31)
    if fp8 == "fnuz":
        nan = k.icmp("==", code, 0x80)
    elif kind == "fp8":
        nan = k.icmp("==", k.and_(code, 0x7F), 0x7F)
    else:
        top = k.icmp("==", exponent, (1 << exponent_bits) - 1)
        value = k.select(top, k.or_(sign, 0x7F800000), value)
        nan = k.b.and_(top, k.icmp("!=", mantissa, 0))
    return k.select(nan, B.default_nan(k, code, "f32"), value)


def _fp8_to_f32(kind):
    return lambda k, a, fp8, byte_sel: _fp8_f32_bits(k, k.and_(k.lshr(a, 8 * byte_sel), 0xFF), fp8, kind)


def _pk_fp8_to_f32(kind):
    def convert(k, a, fp8):
        low = _fp8_f32_bits(k, k.and_(a, 0xFF), fp8, kind)
        high = _fp8_f32_bits(k, k.and_(k.lshr(a, 8), 0xFF), fp8, kind)
        return k.or_(k.zext(low, 64), k.shl(k.zext(high, 64), 32))
    return convert


def _fp8_from_f32(k, x, fp8, kind, saturate):
    """f32 bits -> an 8-bit float's code, core.isa.alu.fp8.from_f32's steps (shifts stop at
    31, where the significand has gone as it has at numpy's 40)."""
    _, mantissa_bits, bias = FP8_FORMATS[fp8, kind]
    sign = k.shl(k.lshr(x, 31), 7)
    biased, fraction = k.and_(k.lshr(x, 23), 0xFF), k.and_(x, 0x7FFFFF)
    subnormal = k.icmp("==", biased, 0)
    significand = k.select(subnormal, fraction, k.or_(fraction, 1 << 23))
    exponent = k.select(subnormal, k.i(-126), k.sub(biased, 127))
    lowest = 1 - bias
    shift = k.umin(k.add(k.smax(k.sub(lowest, exponent), 0), 23 - mantissa_bits), k.i(31))
    quanta = k.lshr(significand, shift)
    rest, half = k.and_(significand, k.sub(k.shl(1, shift), 1)), k.shl(1, k.sub(shift, 1))
    up = k.b.or_(k.icmp(">", rest, half),
                 k.b.and_(k.icmp("==", rest, half), k.icmp("!=", k.and_(quanta, 1), 0)))
    quanta = k.add(quanta, k.zext(up, 32))
    code = k.add(k.shl(k.smax(k.sub(exponent, lowest), 0), mantissa_bits), quanta)
    nan, inf, overflow = FP8_SPECIAL(fp8, kind)
    top = FP8_MAX[fp8, kind]
    finite = k.select(k.icmp(">", code, top), k.i(top if saturate else overflow), code)
    if fp8 == "fnuz":
        finite = k.select(k.icmp("==", finite, 0), k.i(0), k.or_(finite, sign))
        sign = k.i(0)
    else:
        finite = k.or_(finite, sign)
    special = k.or_(k.select(k.icmp("!=", fraction, 0), k.i(nan), k.i(inf)), sign)
    return k.select(k.icmp("==", biased, 0xFF), special, finite)


def _f32_to_pk_fp8(kind):
    def convert(k, a, b, fp8, mode):
        saturate = bool(mode & MODE_FP16_OVFL)
        low, high = (_fp8_from_f32(k, x, fp8, kind, saturate) for x in (a, b))
        return k.or_(low, k.shl(high, 8))
    return convert


def _f32_to_pk_fp8_scaled(kind):
    convert = _f32_to_pk_fp8(kind)

    def scaled(k, a, b, scale, fp8, mode):
        quotients = (B.narrow(k, k.bits(k.b.fdiv(_f64_value(k, x, "f32"), _f64_value(k, scale, "f32")), "f64"),
                              "f64", "f32") for x in (a, b))
        return convert(k, *quotients, fp8, mode)
    return scaled


for _kind in ("fp8", "bf8"):
    emits(f"v_cvt_f32_{_kind}")(_fp8_to_f32(_kind))
    emits(f"v_cvt_pk_f32_{_kind}")(_pk_fp8_to_f32(_kind))
    emits(f"v_cvt_pk_{_kind}_f32")(_f32_to_pk_fp8(_kind))
    emits(f"v_cvt_scalef32_pk_{_kind}_f32")(_f32_to_pk_fp8_scaled(_kind))


# gfx950's scaled conversions up from the 8-bit floats and fp4 (core.isa.alu.conversion): each
# value exact in f32, times the scale in double (exact), rounded to f32, then to a 16-bit type.
def _fp4_f32_bits(k, code):
    """An fp4 (E2M1) code -> its value's f32 bits, exact (it has no infinity or NaN)."""
    return _minifloat_f32_bits(k, code, *MX_FORMATS["fp4"])[0]


def _times_scale(k, bits, scale):
    product = k.b.fmul(_f64_value(k, bits, "f32"), _f64_value(k, scale, "f32"))
    return B.canonical_nans(k, "f32", B.narrow(k, k.bits(product, "f64"), "f64", "f32"), [(scale, "f32")])


def _scaled_pair(decode, to):
    """decode(k, a, fp8, byte_sel) -> (low, high) f32 bits; each times the scale, as two f32
    (one 64-bit value, low first) or two 16-bit halves."""
    def convert(k, a, scale, fp8, mode=None, byte_sel=0):
        low, high = (_times_scale(k, x, scale) for x in decode(k, a, fp8, byte_sel))
        if to == "f32":
            return k.or_(k.zext(low, 64), k.shl(k.zext(high, 64), 32))
        half = (lambda x: bf16_nearest_even(k, x)) if to == "bf16" else (lambda x: _f16_by_mode(k, x, mode))
        return k.or_(half(low), k.shl(half(high), 16))
    return convert


def _fp8_pair(kind):
    return lambda k, a, fp8, _byte_sel: (_fp8_f32_bits(k, k.and_(a, 0xFF), fp8, kind),
                                         _fp8_f32_bits(k, k.and_(k.lshr(a, 8), 0xFF), fp8, kind))


def _fp4_pair(k, a, _fp8, byte_sel):
    byte = k.lshr(a, 8 * byte_sel)
    return _fp4_f32_bits(k, k.and_(byte, 0xF)), _fp4_f32_bits(k, k.and_(k.lshr(byte, 4), 0xF))


for _kind in ("fp8", "bf8"):
    emits(f"v_cvt_scalef32_f32_{_kind}")(
        lambda k, a, scale, fp8, byte_sel, kind=_kind: _times_scale(
            k, _fp8_f32_bits(k, k.and_(k.lshr(a, 8 * byte_sel), 0xFF), fp8, kind), scale))
    emits(f"v_cvt_scalef32_pk_f32_{_kind}")(_scaled_pair(_fp8_pair(_kind), "f32"))
    emits(f"v_cvt_scalef32_pk_f16_{_kind}")(_scaled_pair(_fp8_pair(_kind), "f16"))
    emits(f"v_cvt_scalef32_pk_bf16_{_kind}")(_scaled_pair(_fp8_pair(_kind), "bf16"))
emits("v_cvt_scalef32_pk_f32_fp4")(_scaled_pair(_fp4_pair, "f32"))
emits("v_cvt_scalef32_pk_f16_fp4")(_scaled_pair(_fp4_pair, "f16"))
emits("v_cvt_scalef32_pk_bf16_fp4")(_scaled_pair(_fp4_pair, "bf16"))


def _norm(lo, scale):
    def pack(k, v):
        """An f64 value -> rint(clip(v, lo, 1) * scale) as a 16-bit field; NaN -> 0."""
        lo_v, one = k.f(float(lo), "f64"), k.f(1.0, "f64")
        c = k.select(k.b.fcmp_ordered("<", v, lo_v), lo_v, k.select(k.b.fcmp_ordered(">", v, one), one, v))
        i = k.b.fptosi(k.intrinsic("roundeven", [k.b.fmul(c, k.f(float(scale), "f64"))]), k.ity(32))
        return k.select(k.b.fcmp_unordered("uno", v, v), k.like(0, i), k.and_(i, 0xFFFF))
    return pack


for _t in ("f32", "f16"):
    for _name, _pack in (("i16", _norm(-1, 32767)), ("u16", _norm(0, 65535))):
        emits(f"v_cvt_pknorm_{_name}_{_t}")(
            lambda k, a, b, t=_t, p=_pack: k.or_(p(k, _f64_value(k, a, t)), k.shl(p(k, _f64_value(k, b, t)), 16)))

for _name, _bounds in (("i16", _I16), ("u16", _U16)):
    emits(f"v_cvt_pk_{_name}_f32")(
        lambda k, a, b, bounds=_bounds: k.or_(_f2i("f32", bounds, bits=16)(k, a),
                                               k.shl(_f2i("f32", bounds, bits=16)(k, b), 16)))

emits("v_cvt_norm_i16_f16")(lambda k, a: _norm(-1, 32767)(k, _f64_value(k, a, "f16")))
emits("v_cvt_norm_u16_f16")(lambda k, a: _norm(0, 65535)(k, _f64_value(k, a, "f16")))


@emits("v_cvt_pk_u8_f32")
def _pk_u8(k, a, sel, old):
    byte = k.trunc(to_int(k, _f64_value(k, a, "f32"), 0, 255, "roundeven"), 32)
    shift = k.mul(k.and_(sel, 3), 8)
    return k.or_(k.and_(old, k.not_(k.shl(k.like(0xFF, shift), shift))), k.shl(byte, shift))


emits("v_pack_b32_f16")(lambda k, a, b: k.or_(k.and_(a, 0xFFFF), k.shl(k.and_(b, 0xFFFF), 16)))
