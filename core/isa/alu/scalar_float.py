"""gfx12's scalar float ops: the SALU float arithmetic and conversions (SOP1/SOP2 s_add_f32,
s_cvt_f32_i32, ...) and the v_s_* transcendentals (VOP3 words with an SGPR result), each the
VALU op of the same operation computed on one value per wave.

Invariant: each registers the very function, types and flags of its VALU twin (SCALAR_TWINS),
so MODE's rounding, denormals and NaN rules act on it exactly as on the vector op and the two
cannot drift apart; the native emitters register the same pairs. The float compares
(SCALAR_COMPARES) are their v_cmp twins with the result in SCC. s_cvt_hi_f32_f16 is
v_cvt_f32_f16 on the high half (the twin with op_sel, which SALU words lack): input denormals
flush as MODE says for f16, a NaN comes out quieted with its sign and payload.
"""
import numpy as np

from core.isa.alu import bits as B
from core.isa.alu import compare, conversion, floating, transcendental  # noqa: F401 (twins first)
from core.isa.alu.table import alias, flush_inputs, op

SCALAR_TWINS = {
    **{f"s_{name}_f32": f"v_{name}_f32" for name in ("add", "sub", "mul", "fmac", "fmaak", "fmamk",
                                                      "ceil", "floor", "trunc", "rndne")},
    "s_min_num_f32": "v_min_f32", "s_max_num_f32": "v_max_f32",
    **{f"s_cvt_{to}_{of}": f"v_cvt_{to}_{of}" for to, of in (("f32", "i32"), ("f32", "u32"),
                                                             ("i32", "f32"), ("u32", "f32"),
                                                             ("f32", "f16"))},
    "s_cvt_pk_rtz_f16_f32": "v_cvt_pkrtz_f16_f32",
    # The f16 forms read their SGPRs' low halves and write the high halves 0 (the RDNA4 ISA
    # guide, "SALU floating point"), as the ALU's 16-bit results are.
    **{f"s_{name}_f16": f"v_{name}_f16" for name in ("add", "sub", "mul", "fmac", "ceil", "floor",
                                                      "trunc", "rndne")},
    "s_min_num_f16": "v_min_f16", "s_max_num_f16": "v_max_f16", "s_cvt_f16_f32": "v_cvt_f16_f32",
    **{f"s_{name}_{t}": f"v_{name}_{t}" for name in ("minimum", "maximum") for t in ("f16", "f32")},
    **{f"v_s_{name}_{t}": f"v_{name}_{t}" for name in ("exp", "log", "rcp", "rsq", "sqrt")
       for t in ("f16", "f32")},
}
SCALAR_COMPARES = {f"s_cmp_{cond}_{t}": f"v_cmp_{cond}_{t}" for t in ("f16", "f32")
                   for cond in ("lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt",
                                "nle", "neq", "nlt")}
for _name, _twin in SCALAR_TWINS.items():
    alias(_name, _twin)
for _name, _twin in SCALAR_COMPARES.items():
    alias(_name, _twin, results=("scc",))


@op("b32 -> f32", "s_cvt_hi_f32_f16", uses_mode=True, own_nans=True)
def _cvt_hi_f32_f16(a, mode):
    half = np.asarray(a, np.uint32) >> np.uint32(16)
    if flush_inputs(mode, "f16"):
        half = B.flush(half, B.F16)
    return np.where(B.is_nan(half, B.F16), B.quiet_nan_as(half, B.F16, B.F32),
                    B.from_f32(B.f16(half).astype(np.float32)))
