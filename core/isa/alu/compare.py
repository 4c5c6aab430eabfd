"""VOPC comparisons: every condition for f16/f32/f64, i16/u16/i32/u32/i64/u64, and class tests.

Invariants:
- results are per-lane bool masks ('mask'); v_cmpx_* compute the same mask and the executor
  also writes it to EXEC (AluOp.writes_exec);
- float conditions are IEEE: lt/eq/le/gt/lg/ge/o are false on NaN, their n-forms and u are
  true on NaN; f is always false, tru always true; -0 == +0;
- class tests read bit k of the mask for: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
  5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf; they see denormals as denormals whatever
  MODE says (that is how code detects them).
"""
import numpy as np

from core.isa.alu import bits as B
from core.isa.alu.table import op

_FLOAT_CONDS = {
    "f": lambda a, b: np.zeros(np.broadcast(a, b).shape, dtype=bool),
    "lt": np.less, "eq": np.equal, "le": np.less_equal, "gt": np.greater,
    "lg": lambda a, b: (a < b) | (a > b),
    "ge": np.greater_equal,
    "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "u": lambda a, b: np.isnan(a) | np.isnan(b),
    "nge": lambda a, b: ~(a >= b), "nlg": lambda a, b: ~((a < b) | (a > b)),
    "ngt": lambda a, b: ~(a > b), "nle": lambda a, b: ~(a <= b),
    "neq": lambda a, b: ~(a == b), "nlt": lambda a, b: ~(a < b),
    "tru": lambda a, b: np.ones(np.broadcast(a, b).shape, dtype=bool),
}

_INT_CONDS = {
    "f": _FLOAT_CONDS["f"], "lt": np.less, "eq": np.equal, "le": np.less_equal,
    "gt": np.greater, "ne": np.not_equal, "ge": np.greater_equal, "t": _FLOAT_CONDS["tru"],
}

_INT_VIEWS = {
    "i16": lambda x: B.sign_extend(x, 16),
    "u16": lambda x: np.asarray(x, np.uint32) & np.uint32(0xFFFF),
    "i32": lambda x: np.asarray(x, np.uint32).view(np.int32),
    "u32": lambda x: np.asarray(x, np.uint32),
    "i64": lambda x: np.asarray(x, np.uint64).view(np.int64),
    "u64": lambda x: np.asarray(x, np.uint64),
}


def _register(names, sig, fn, **flags):
    for name in names:
        op(sig, name, **flags)(fn)


for _t in ("f16", "f32", "f64"):
    for _cond, _f in _FLOAT_CONDS.items():
        _register((f"v_cmp_{_cond}_{_t}", f"v_cmpx_{_cond}_{_t}"), f"{_t} {_t} -> mask",
                  lambda a, b, f=_f, t=_t: f(B.VIEW[t](a), B.VIEW[t](b)))

for _t, _view in _INT_VIEWS.items():
    for _cond, _f in _INT_CONDS.items():     # the 16-bit f and t compares: gfx9 only
        _register((f"v_cmp_{_cond}_{_t}", f"v_cmpx_{_cond}_{_t}"), f"{_t} {_t} -> mask",
                  lambda a, b, f=_f, v=_view: f(v(a), v(b)))


def _class(t):
    fmt = B.FORMATS[t]

    def cls(a, mask):
        x = np.asarray(a, dtype=fmt.uint)
        mask = np.asarray(mask, dtype=np.uint32)
        neg = (x & fmt.sign) != 0
        exp = x & fmt.exp_mask
        mant = x & fmt.mant_mask
        inf = (exp == fmt.exp_mask) & (mant == 0)
        zero = (exp == 0) & (mant == 0)
        denorm = (exp == 0) & (mant != 0)
        normal = (exp != 0) & (exp != fmt.exp_mask)
        kinds = [B.is_snan(x, fmt), B.is_nan(x, fmt) & ~B.is_snan(x, fmt),
                 inf & neg, normal & neg, denorm & neg, zero & neg,
                 zero & ~neg, denorm & ~neg, normal & ~neg, inf & ~neg]
        hit = np.zeros(np.broadcast(x, mask).shape, dtype=bool)
        for k, kind in enumerate(kinds):  # ten fixed classes, not a lane loop
            hit |= kind & (((mask >> np.uint32(k)) & np.uint32(1)) != 0)
        return hit
    return cls


for _t in ("f16", "f32", "f64"):
    _register((f"v_cmp_class_{_t}", f"v_cmpx_class_{_t}"), f"{_t} u32 -> mask", _class(_t), ftz=False)
