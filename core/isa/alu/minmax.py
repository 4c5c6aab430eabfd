"""gfx11's paired min/max: v_maxmin_* = min(max(S0, S1), S2), v_minmax_* = max(min(S0, S1), S2).

Invariant: each is exactly the two gfx10 ops it names, applied in turn with the same MODE
(IEEE NaN rules and denormal flushing included), so it can never disagree with writing them
as two instructions.
"""
from core.isa.alu.table import lookup, op


def _pair(first, second):
    inner, outer = lookup(first), lookup(second)

    def fn(a, b, c, mode):
        return outer(inner(a, b, mode=mode)[0], c, mode=mode)[0]
    return fn


for _t in ("f16", "f32", "i32", "u32"):
    _sig = f"{_t} {_t} {_t} -> {_t}"
    op(_sig, f"v_maxmin_{_t}", uses_mode=True, ftz=False)(_pair(f"v_max_{_t}", f"v_min_{_t}"))
    op(_sig, f"v_minmax_{_t}", uses_mode=True, ftz=False)(_pair(f"v_min_{_t}", f"v_max_{_t}"))
