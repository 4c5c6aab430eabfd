"""Unfused multiply-adds, gfx90a's f64 fmac and gfx9's "legacy" 16-bit names in IR (the emitters
of core/isa/alu/unfused.py), each composed of emitters that already exist.

Invariants (as the numpy family's):
- v_mad/v_mac/v_madak/v_madmk (f16, f32) are floating.nearest_bits' multiply, then its add:
  two roundings to nearest even whatever MODE.FP_ROUND says, and the product is neither
  flushed nor clamped in between (numpy's `a * b + c` on values); the pipeline flushes the
  sources and the result as MODE says;
- v_mad_legacy_f32 is S2 + 0.0 where floating.legacy_zero finds a zero factor (so -0 becomes
  +0 and inf or NaN factors are ignored), the unfused mad elsewhere; its NaN result is the
  pipeline's first NaN source, as numpy's;
- v_fmac_f64 and the legacy aliases register the very bodies of the ops numpy registers
  their functions from (v_fma_f64 and unfused.LEGACY_ALIASES), so they cannot drift apart.
"""
from core.isa.alu.unfused import LEGACY_ALIASES
# The aliases reuse integer's and floating's bodies: importing them registers those first.
from core.isa.native.alu import integer  # noqa: F401
from core.isa.native.alu.floating import legacy_zero, nearest_bits
from core.isa.native.alu.table import body_of, emits


def _unfused(t):
    def mad(k, a, b, c):
        return nearest_bits(k, t, "add", nearest_bits(k, t, "mul", a, b), c)
    return mad


for _t in ("f16", "f32"):
    emits(f"v_mad_{_t}", f"v_madak_{_t}", f"v_madmk_{_t}", f"v_mac_{_t}")(_unfused(_t))


@emits("v_mad_legacy_f32")
def _mad_legacy(k, a, b, c):
    plus_zero = nearest_bits(k, "f32", "add", c, k.like(0, c))
    return k.select(legacy_zero(k, a, b), plus_zero, _unfused("f32")(k, a, b, c))


emits("v_fmac_f64")(body_of("v_fma_f64"))
for _legacy, _base in LEGACY_ALIASES.items():
    emits(_legacy)(body_of(_base))
