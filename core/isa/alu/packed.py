"""VOP3P packed 16-bit ops (v_pk_*), mixed-precision fma (v_fma_mix*) and dot products.

Invariants:
- a v_pk_* op is its scalar 16-bit op applied to two halves: the low result from the
  sources' halves picked by op_sel (neg_lo applied), the high result from those picked by
  op_sel_hi (neg_hi applied); the pipeline in table.py does the picking, so each packed op
  here is the same function as its scalar counterpart;
- v_fma_mix*: one exact fma of the (converted) sources, rounded once to f32 or f16;
- dot products accumulate exactly and round once (float) or wrap/saturate (integer, with
  clamp) — hardware accumulates without intermediate rounding too; the iu forms (gfx11+)
  take each source's signedness from neg_lo (bit 0 for src0, bit 1 for src1); a NaN v_dot2_f32_f16
  result is the first NaN of a.lo, b.lo, a.hi, b.hi, c (halves widened, quieted).
"""
import numpy as np

from core.isa.alu import bits as B
from core.isa.alu.fused import fma_narrow
from core.isa.alu.table import canonical_nans, lookup, op, register

U32 = np.uint32

_PACKED = {  # v_pk_* name -> scalar op whose function each half runs
    "v_pk_add_f16": "v_add_f16", "v_pk_mul_f16": "v_mul_f16", "v_pk_fma_f16": "v_fma_f16",
    "v_pk_fmac_f16": "v_fma_f16", "v_pk_min_f16": "v_min_f16", "v_pk_max_f16": "v_max_f16",
    "v_pk_add_u16": "v_add_nc_u16", "v_pk_sub_u16": "v_sub_nc_u16",
    "v_pk_add_i16": "v_add_nc_i16", "v_pk_sub_i16": "v_sub_nc_i16",
    "v_pk_mul_lo_u16": "v_mul_lo_u16", "v_pk_mad_u16": "v_mad_u16", "v_pk_mad_i16": "v_mad_i16",
    "v_pk_lshlrev_b16": "v_lshlrev_b16", "v_pk_lshrrev_b16": "v_lshrrev_b16",
    "v_pk_ashrrev_i16": "v_ashrrev_i16",
    "v_pk_min_u16": "v_min_u16", "v_pk_max_u16": "v_max_u16",
    "v_pk_min_i16": "v_min_i16", "v_pk_max_i16": "v_max_i16",
    # gfx12 and gfx950: IEEE 754-2019's selections
    "v_pk_minimum_f16": "v_minimum_f16", "v_pk_maximum_f16": "v_maximum_f16",
    "v_pk_minimum3_f16": "v_minimum3_f16", "v_pk_maximum3_f16": "v_maximum3_f16",
}

for _name, _scalar in _PACKED.items():
    _s = lookup(_scalar)
    _n = len(_s.src_types)
    register(_name, _s.fn, " ".join(["pk16"] * _n) + " -> pk16", packed=True,
             elem_types=_s.src_types, int_clamp=_s.int_clamp, uses_mode=_s.uses_mode,
             own_nans=_s.own_nans, keeps_output_denormals=_s.keeps_output_denormals,
             reads_dst=_name == "v_pk_fmac_f16")


def _mix(dtype):
    def fma_mix(a, b, c):
        return B.PACK["f32" if dtype is np.float32 else "f16"](
            fma_narrow(B.f32(a), B.f32(b), B.f32(c), dtype))
    return fma_mix


op("f32 f32 f32 -> f32", "v_fma_mix_f32", mix=True)(_mix(np.float32))
op("f32 f32 f32 -> f16", "v_fma_mixlo_f16", mix=True)(_mix(np.float16))
op("f32 f32 f32 -> f16", "v_fma_mixhi_f16", mix=True, dst_hi=True)(_mix(np.float16))


def _fields(x, width, signed):
    x = np.asarray(x, dtype=U32).astype(np.int64)
    out = []
    for k in range(32 // width):  # fixed 2/4/8 fields
        f = (x >> (width * k)) & ((1 << width) - 1)
        out.append(np.where(f >= 1 << (width - 1), f - (1 << width), f) if signed else f)
    return out


def _int_dot(width, signed):
    lo, hi = (-2**31, 2**31 - 1) if signed else (0, 2**32 - 1)

    def dot(a, b, c, clamp=False, signs=None):
        # signs (gfx11's iu forms): neg_lo bit 0 makes a's fields signed, bit 1 b's; the
        # accumulator and the result are signed
        sa, sb = (signed, signed) if signs is None else (bool(signs & 1), bool(signs & 2))
        acc = np.asarray(c, U32).view(np.int32).astype(np.int64) if signed else np.asarray(c, U32).astype(np.int64)
        for fa, fb in zip(_fields(a, width, sa), _fields(b, width, sb)):
            acc = acc + fa * fb
        return (np.clip(acc, lo, hi) if clamp else acc).astype(np.int64).astype(np.uint64).astype(U32)
    return dot


for _w, _n in ((16, 2), (8, 4), (4, 8)):
    op("b32 b32 i32 -> i32", f"v_dot{_n}_i32_i{_w}", int_clamp=True)(_int_dot(_w, True))
    op("b32 b32 u32 -> u32", f"v_dot{_n}_u32_u{_w}", int_clamp=True)(_int_dot(_w, False))
for _w, _n in ((16, 2), (8, 4), (4, 8)):       # accumulating into D (v_dot2c, v_dot8c: gfx9)
    op("b32 b32 i32 -> i32", f"v_dot{_n}c_i32_i{_w}", int_clamp=True, reads_dst=True)(_int_dot(_w, True))
for _w, _n in ((8, 4), (4, 8)):                # gfx11+: each source's sign from neg_lo
    op("b32 b32 i32 -> i32", f"v_dot{_n}_i32_iu{_w}", int_clamp=True, neg_signs=True)(_int_dot(_w, True))


def _dot2_f16(a, b, c):
    a, b = np.asarray(a, U32), np.asarray(b, U32)
    lo = B.f16(a).astype(np.float64) * B.f16(b).astype(np.float64)
    hi = B.f16(a >> U32(16)).astype(np.float64) * B.f16(b >> U32(16)).astype(np.float64)
    # Each f16 product is exact in f64; their sum rounds in f64 only when the two are more
    # than 2^31 apart in magnitude, far below f32's precision.
    r = B.from_f32(fma_narrow(np.float64(1.0), lo + hi, B.f32(c), np.float32))
    # A NaN result is the first NaN of a.lo, b.lo, a.hi, b.hi, c (the order of evaluation).
    halves = [(a & U32(0xFFFF), "f16"), (b & U32(0xFFFF), "f16"), (a >> U32(16), "f16"),
              (b >> U32(16), "f16"), (c, "f32")]
    return canonical_nans(r, "f32", halves)


op("b32 b32 f32 -> f32", "v_dot2_f32_f16", own_nans=True)(_dot2_f16)
op("b32 b32 f32 -> f32", "v_dot2c_f32_f16", reads_dst=True, own_nans=True)(_dot2_f16)
