"""The ALU library: what every gfx1030 arithmetic instruction computes, on whole numpy arrays.

The executor looks an op up once per decoded instruction and calls it for a whole wave batch:

    op = alu.lookup("v_add_co_u32")          # base llvm mnemonic, no _e32/_e64/_dpp/_sdwa
    d, carry = op(a, b, clamp=False)         # always a tuple, one array per op.dst_types

Invariants:
- ops are pure functions of bit patterns; they never loop over lanes in Python and never
  mutate their inputs. Sources broadcast against each other (a scalar operand may arrive
  shaped [waves, 1] next to [waves, lanes] vectors); results have the broadcast shape;
- every registered op is complete: `coverage()` is exactly the set `lookup` answers;
- floating point is IEEE round-to-nearest-even, except that add/sub/subrev/mul/fma (and
  fmac/fmaak/fmamk, v_pk_add/mul/fma/fmac_f16), fract and v_cvt_f16_f32 round toward +inf,
  -inf or zero when MODE.FP_ROUND says so (bits [1:0] for f32 results, [3:2] for f64/f16;
  rounding.py); denormals follow MODE.FP_DENORM (flushed on input and output when the mode
  says so; min/max/med3 never flush their output);
- special values follow the RDNA ISA guides (pseudocode, notes, functional examples) and IEEE
  754 where the guide says "IEEE rules": rounding ops keep the sign of zero (trunc/ceil/
  rndne of a small negative are -0); a NaN result is the first NaN source quieted (sign and
  payload kept, moved across widths), else the default NaN 0xffc00000 / 0xfe00 /
  0xfff8000000000000 (table.py, bits.py); float -> int saturates and maps NaN to 0; min/max/
  med3 select as their pseudocode says in either MODE.IEEE setting (conversion.py,
  floating.py, transcendental.py say which op does what).

Operand types (`op.src_types`, `op.dst_types`) say how each array is represented:
- 'b32' 'u32' 'i32' 'f32': np.uint32 bit patterns;
- 'b16' 'u16' 'i16' 'f16': np.uint32 holding the value in the low 16 bits. Results have the
  high 16 bits zero; gfx10 16-bit VALU ops preserve the other half of the destination VGPR,
  so the executor merges with `merge16(old, result, hi)` (hi = VOP3 op_sel bit 3 / SDWA);
- 'b64' 'u64' 'i64' 'f64': np.uint64 bit patterns (register pairs, low dword first);
- 'pk16': np.uint32 holding two 16-bit halves (VOP3P sources and results);
- 'mask': np.bool_ per lane: compare results, carry-in/out, v_cndmask's selector,
  v_div_scale's VCC output, v_div_fmas's VCC input. The executor turns SGPR lane masks into
  these and back; which SGPR (implicit VCC in e32 forms, sdst/src2 in VOP3) is the executor's;
- 'scc': np.bool_ per wave (SALU carry-in, SCC results, s_cselect's selector);
- 'lane': np.uint32 lane index within the wave (v_mbcnt_*), supplied by the executor.
Sources are listed in assembly order, then the destination's old value for ops that read it
(`op.reads_dst`: v_fmac_f32, v_pk_fmac_f16, v_dot2c/4c, s_cmov_b32, s_addk_i32, s_bitset*),
then implicit ones (VCC/SCC inputs of e32/SOP forms). EXEC-writing ops (`op.writes_exec`):
v_cmpx_* return the mask that also goes to EXEC; s_*_saveexec_bN take (S0, EXEC) and return
(sdst = old EXEC, new EXEC, SCC); s_andn{1,2}_wrexec_bN return (sdst = new EXEC, new EXEC, SCC).

Modifiers are the op's business, passed as the encoding's fields (bit i = source i):
    op(*srcs, neg=0, abs=0, clamp=False, omod=0, op_sel=0, op_sel_hi=None, neg_hi=0, mode=MODE)
- neg/abs apply to float sources (abs first); for VOP3P ops `neg` is neg_lo;
- op_sel on 16-bit VOP3 ops picks each source's high half (bit 3, the destination half, is
  left to the executor's merge16, as is `op.dst_hi` for v_fma_mixhi_f16); VOP3P ops use
  op_sel/op_sel_hi/neg/neg_hi per half and return both halves packed (op_sel_hi=None: the
  form has no such field, e.g. VOP2 v_pk_fmac_f16, and behaves as [1,1,1]); v_fma_mix* take
  op_sel_hi as "this source is f16" and neg_hi as abs (`op.mix`);
- omod (1: *2, 2: *4, 3: /2) then clamp apply to float results: omod only with MODE.IEEE
  clear and output denormals flushed (the hardware ignores it otherwise; it makes -0 +0);
  clamp to [0, 1] turns NaN into 0 only with MODE.DX10_CLAMP set (table.py);
  `clamp` on integer ops (`op.int_clamp`) saturates instead (v_add_nc_u32, v_add_co_u32,
  v_sub_*, v_add_nc_i16, v_mad_u32_u24, v_pk_add_u16, integer dots, ...);
- mode is the MODE register value: FP_ROUND bits [3:0] (f32 in [1:0], f64/f16 in [3:2];
  0 nearest even, 1 +inf, 2 -inf, 3 toward zero), FP_DENORM bits [7:4] (f32 in [5:4], f64/f16 in [7:6];
  bit 0 of a pair keeps input denormals, bit 1 output ones), DX10_CLAMP bit 8, IEEE bit 9.
  DEFAULT_MODE keeps all denormals with DX10_CLAMP and IEEE set, as clang's gfx10 kernels do.

Accuracy: +, -, *, fma (f16/f32/f64, exact single rounding), conversions, rcp and sqrt are
correctly rounded; exp = 2^x, log = log2, rsq and sin/cos (of revolutions) are within 1 ulp.
Hardware's own transcendentals are ~1 ulp approximations (v_rcp_f64/v_sqrt_f64 only ~2^-29
relative), so results here can be more exact than a real GPU's, never less. Special values
follow the ISA guide (f32 rcp/rsq/sqrt/log/exp flush denormals whatever MODE says).
Not modelled: directed rounding of the other ops (conversions other than v_cvt_f16_f32,
div_fmas, legacy mul/fma, ldexp, fma_mix, transcendentals round to nearest whatever FP_ROUND
says), exception flags and traps (MODE.EXCP_EN), v_mullit_f32,
v_mqsad_u32_u8 (a 128-bit result), interpolation ops. Lane-crossing ops (readlane, permlane, DPP) are the
executor's.
"""
from core.isa.alu.table import AluOp, DEFAULT_MODE, coverage, lookup, merge16
from core.isa.alu import (  # noqa: F401,E402  (importing a family registers its ops)
    integer, floating, transcendental, conversion, compare, scalar, packed, unfused, minmax,
    scalar_float,
)

__all__ = ["AluOp", "DEFAULT_MODE", "coverage", "lookup", "merge16"]
