"""gfx12's scalar float ops: the SALU float arithmetic and conversions (SOP1/SOP2 s_add_f32,
s_cvt_f32_i32, ...) and the v_s_* transcendentals (VOP3 words with an SGPR result), each the
VALU op of the same operation computed on one value per wave.

Invariant: each registers the very function, types and flags of its VALU twin (SCALAR_TWINS),
so MODE's rounding, denormals and NaN rules act on it exactly as on the vector op and the two
cannot drift apart; the native emitters register the same pairs. The f16 forms, which write
half an SGPR, and the s_cmp_*_f32/f16 compares are not here (they fault as unimplemented).
"""
from core.isa.alu import conversion, floating, transcendental  # noqa: F401 (twins first)
from core.isa.alu.table import alias

SCALAR_TWINS = {
    **{f"s_{name}_f32": f"v_{name}_f32" for name in ("add", "sub", "mul", "fmac", "ceil", "floor",
                                                      "trunc", "rndne")},
    "s_min_num_f32": "v_min_f32", "s_max_num_f32": "v_max_f32",
    **{f"s_cvt_{to}_{of}": f"v_cvt_{to}_{of}" for to, of in (("f32", "i32"), ("f32", "u32"),
                                                             ("i32", "f32"), ("u32", "f32"))},
    **{f"v_s_{name}_f32": f"v_{name}_f32" for name in ("exp", "log", "rcp", "rsq", "sqrt")},
}
for _name, _twin in SCALAR_TWINS.items():
    alias(_name, _twin)
