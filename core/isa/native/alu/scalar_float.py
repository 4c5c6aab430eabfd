"""gfx12's scalar float ops in IR (the emitters of core/isa/alu/scalar_float.py): each the very
body of its VALU twin, so both tiers compute them as they compute the vector ops; and
s_cvt_hi_f32_f16, the numpy op's steps in IR."""
from core.isa.alu.scalar_float import SCALAR_COMPARES, SCALAR_TWINS
from core.isa.alu.table import flush_inputs
# The twins' bodies come from these families: importing them registers those first.
from core.isa.native.alu import compare, conversion, floating, transcendental  # noqa: F401
from core.isa.native.alu import bits as B
from core.isa.native.alu.table import body_of, emits

for _name, _twin in {**SCALAR_TWINS, **SCALAR_COMPARES}.items():
    emits(_name)(body_of(_twin))


@emits("s_cvt_hi_f32_f16")
def _cvt_hi_f32_f16(k, a, mode):
    half = k.lshr(a, 16)
    if flush_inputs(mode, "f16"):
        half = B.flush(k, half, "f16")
    return k.select(B.is_nan(k, half, "f16"), B.quiet_nan_as(k, half, "f16", "f32"),
                    B.widen(k, half, "f16", "f32"))
