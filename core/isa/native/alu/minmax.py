"""gfx11's paired min/max in IR (core/isa/alu/minmax.py's emitters): v_maxmin_* =
min(max(S0, S1), S2), v_minmax_* = max(min(S0, S1), S2).

Invariant: each is the emitters of the two ops it names, each run through its whole pipeline
(table.Emitter.emit: MODE's input flushing, IEEE NaN selection, no output flushing) with
the same MODE, exactly as numpy calls the two AluOps; so it can never disagree with the two
instructions, nor with numpy's composition.
"""
# The pairs run floating's and integer's emitters: importing them registers those first.
from core.isa.native.alu import floating, integer  # noqa: F401
from core.isa.native.alu.table import emits, emitter


def _pair(first, second):
    inner, outer = emitter(first), emitter(second)

    def fn(k, a, b, c, mode):
        (m,) = inner.emit(k.b, [a, b], mode=mode)
        return outer.emit(k.b, [m, c], mode=mode)[0]
    return fn


for _t in ("f16", "f32", "i32", "u32"):
    emits(f"v_maxmin_{_t}")(_pair(f"v_max_{_t}", f"v_min_{_t}"))
    emits(f"v_minmax_{_t}")(_pair(f"v_min_{_t}", f"v_max_{_t}"))
