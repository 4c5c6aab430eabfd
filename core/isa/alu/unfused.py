"""Multiply-adds that are not one fused operation, gfx90a's f64 fmac, and gfx9's "legacy"
16-bit ops: the ops gfx9 has that gfx10.3 dropped or never had.

Invariants:
- v_mad_f32/v_mac_f32/v_madak/v_madmk (and their f16 forms) round the product, then the sum,
  each to nearest even (the ISA: "same result as ADD after MUL_IEEE"); denormals are
  flushed as MODE says, like every float op (llvm emits them only when f32 denormals are
  off: with denormals on it uses v_fma/v_fmac);
- v_mad_legacy_f32 is the DX9 form: a zero factor gives +0 * anything = 0;
- v_fmac_f64 is v_fma_f64 accumulating into its destination (gfx90a), with v_fma_f64's
  rounding in every MODE;
- v_mad_legacy_f16/u16/i16, v_fma_legacy_f16 and v_div_fixup_legacy_f16 compute what their
  names without "legacy" do; they differ in the register write only (gfx8's: the high half
  zeroed, core.isa.targets' high16_kept), so they are the same ALU ops under gfx9's names.
"""

import numpy as np

from core.isa.alu import bits as B
from core.isa.alu.table import alias, lookup, op, register


def _unfused(t):
    kind = B.VIEW[t]

    def mad(a, b, c):
        with np.errstate(all="ignore"):
            return B.PACK[t](kind(a) * kind(b) + kind(c))
    return mad


for _t in ("f16", "f32"):
    _sig = f"{_t} {_t} {_t} -> {_t}"
    op(_sig, f"v_mad_{_t}", f"v_madak_{_t}", f"v_madmk_{_t}")(_unfused(_t))
    op(_sig, f"v_mac_{_t}", reads_dst=True)(_unfused(_t))


@op("f32 f32 f32 -> f32", "v_mad_legacy_f32")
def _mad_legacy(a, b, c):
    zero = (B.VIEW["f32"](a) == 0) | (B.VIEW["f32"](b) == 0)
    return np.where(zero, B.PACK["f32"](B.VIEW["f32"](c) + np.float32(0)), _unfused("f32")(a, b, c))


register("v_fmac_f64", lookup("v_fma_f64").fn, "f64 f64 f64 -> f64", reads_dst=True,
         uses_mode=True)


# gfx9 name -> the op it computes (the native emitters register the same pairs).
LEGACY_ALIASES = {"v_mad_legacy_f16": "v_mad_f16", "v_mad_legacy_u16": "v_mad_u16",
                  "v_mad_legacy_i16": "v_mad_i16", "v_fma_legacy_f16": "v_fma_f16",
                  "v_div_fixup_legacy_f16": "v_div_fixup_f16"}
for _legacy, _base in LEGACY_ALIASES.items():
    alias(_legacy, _base)
