"""The ALU library: what every gfx1030 arithmetic instruction computes, on whole numpy arrays.

The executor looks an op up once per decoded instruction and calls it for a whole wave batch:

    op = alu.lookup("v_add_co_u32")          # base llvm mnemonic, no _e32/_e64/_dpp/_sdwa
    d, carry = op(a, b, clamp=False)         # always a tuple, one array per op.dst_types

Invariants:
- ops are pure functions of bit patterns; they never loop over lanes in Python and never
  mutate their inputs. Sources broadcast against each other (a scalar operand may arrive
  shaped [waves, 1] next to [waves, lanes] vectors); results have the broadcast shape;
- every registered op is complete: `coverage()` is exactly the set `lookup` answers;
- floating point is IEEE round-to-nearest-even (MODE.FP_ROUND other than 0 is not modelled);
  denormals follow MODE.FP_DENORM (flushed on input and output when the mode says so);
  NaN results are quiet; min/max follow gfx10 IEEE mode (a quiet NaN operand yields the other
  operand, a signalling NaN yields a quiet NaN, -0 < +0).

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
Sources are listed in assembly order, implicit ones (VCC/SCC inputs of e32/SOP forms) last.

Modifiers are the op's business, passed as the encoding's fields (bit i = source i):
    op(*srcs, neg=0, abs=0, clamp=False, omod=0, op_sel=0, op_sel_hi=0, neg_hi=0, mode=MODE)
- neg/abs apply to float sources (abs first); for VOP3P ops `neg` is neg_lo;
- op_sel on 16-bit VOP3 ops picks each source's high half (bit 3, the destination half, is
  left to the executor's merge16); VOP3P ops use op_sel/op_sel_hi/neg/neg_hi per half and
  return both halves packed;
- omod (1: *2, 2: *4, 3: /2) then clamp apply to float results; `clamp` on integer ops
  saturates (v_add_nc_u32, v_add_co_u32, v_sub_*, v_mad_u32_u24, v_cvt_pk_*, ...);
- mode is the MODE register value (denormal and IEEE bits); DEFAULT_MODE is what a
  gfx10 compute kernel starts with when its descriptor asks for denormals.

Transcendentals (rcp, rsq, sqrt, exp = 2^x, log = log2, sin/cos of revolutions) are ~1 ulp
approximations on hardware; here they are correctly rounded (numpy, computed in f64), with
hardware's special cases (f32 rcp/rsq/log/exp flush denormals like the hardware unit).
"""
from core.isa.alu.table import AluOp, DEFAULT_MODE, coverage, lookup, merge16
from core.isa.alu import (  # noqa: F401,E402  (importing a family registers its ops)
    integer, floating, transcendental, conversion, compare, scalar, packed,
)

__all__ = ["AluOp", "DEFAULT_MODE", "coverage", "lookup", "merge16"]
