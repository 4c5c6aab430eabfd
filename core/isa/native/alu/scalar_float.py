"""gfx12's scalar float ops in IR (the emitters of core/isa/alu/scalar_float.py): each the very
body of its VALU twin, so both tiers compute them as they compute the vector ops."""
from core.isa.alu.scalar_float import SCALAR_COMPARES, SCALAR_TWINS
# The twins' bodies come from these families: importing them registers those first.
from core.isa.native.alu import compare, conversion, floating, transcendental  # noqa: F401
from core.isa.native.alu.table import body_of, emits

for _name, _twin in {**SCALAR_TWINS, **SCALAR_COMPARES}.items():
    emits(_name)(body_of(_twin))
