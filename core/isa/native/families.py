"""The translator's table: translator functions by mnemonic and by encoding family, which the
emitter modules fill as they are imported (core/isa/native/routing.py imports them all and
decides which function takes an instruction).
"""
from core.isa.handler_tables import registrar

HANDLERS = {}
FAMILIES = {}

handles = registrar(HANDLERS)         # @handles("v_add_f32", ...): by mnemonic
family = registrar(FAMILIES)          # @family("VOP2", ...): by encoding family
