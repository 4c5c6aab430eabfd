"""VOPC comparisons in IR: every condition for f16/f32/f64, i16/u16/i32/u32/i64/u64, and class
tests (core/isa/alu/compare.py's emitters).

Invariants (as the numpy family's):
- results are i1 per lane; float conditions are IEEE fcmp predicates: the ordered ones are
  false on NaN, their n-forms and u true; -0 == +0; f16 compares widen exactly to f32;
- class tests read bit k of the mask for: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
  5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf, on the bit pattern (denormals are denormals
  whatever MODE says).
"""
from core.isa.native.alu import bits as B
from core.isa.native.alu.table import emits

# condition -> (ordered?, llvmlite predicate), or a constant for f / tru.
_FLOAT_CONDS = {
    "f": False, "lt": (True, "<"), "eq": (True, "=="), "le": (True, "<="), "gt": (True, ">"),
    "lg": (True, "!="), "ge": (True, ">="), "o": (True, "ord"), "u": (False, "uno"),
    "nge": (False, "<"), "nlg": (False, "=="), "ngt": (False, "<="), "nle": (False, ">"),
    "neq": (False, "!="), "nlt": (False, ">="), "tru": True,
}

_INT_CONDS = {"f": False, "lt": "<", "eq": "==", "le": "<=", "gt": ">", "ne": "!=", "ge": ">=", "t": True}

# type -> (signed compare?, view of the operand)
_INT_VIEWS = {
    "i16": (True, lambda k, x: k.sext(k.trunc(x, 16), 32)),
    "u16": (False, lambda k, x: k.and_(x, 0xFFFF)),
    "i32": (True, lambda k, x: x), "u32": (False, lambda k, x: x),
    "i64": (True, lambda k, x: x), "u64": (False, lambda k, x: x),
}


def _constant(k, value):
    return k.true() if value else k.false()


def _float_cond(t, cond):
    def cmp(k, a, b):
        if isinstance(cond, bool):
            return _constant(k, cond)
        ordered, predicate = cond
        va, vb = k.view(a, t), k.view(b, t)
        if t == "f16":
            va, vb = k.b.fpext(va, k.fty("f32")), k.b.fpext(vb, k.fty("f32"))
        return (k.b.fcmp_ordered if ordered else k.b.fcmp_unordered)(predicate, va, vb)
    return cmp


def _int_cond(t, cond):
    signed, view = _INT_VIEWS[t]

    def cmp(k, a, b):
        if isinstance(cond, bool):
            return _constant(k, cond)
        return (k.scmp if signed else k.icmp)(cond, view(k, a), view(k, b))
    return cmp


for _t in ("f16", "f32", "f64"):
    for _cond, _c in _FLOAT_CONDS.items():
        emits(f"v_cmp_{_cond}_{_t}", f"v_cmpx_{_cond}_{_t}")(_float_cond(_t, _c))

for _t in _INT_VIEWS:
    for _cond, _c in _INT_CONDS.items():     # the 16-bit f and t compares: gfx9 only
        emits(f"v_cmp_{_cond}_{_t}", f"v_cmpx_{_cond}_{_t}")(_int_cond(_t, _c))


def _class(t):
    f = B.FMT[t]

    def cls(k, a, mask):
        neg = B.sign_set(k, a, t)
        pos = k.b.not_(neg)
        exp = k.and_(a, f.exp_mask)
        mant_zero = k.icmp("==", k.and_(a, f.mant_mask), 0)
        exp_zero, exp_max = k.icmp("==", exp, 0), k.icmp("==", exp, f.exp_mask)
        inf = k.b.and_(exp_max, mant_zero)
        zero = k.b.and_(exp_zero, mant_zero)
        denorm = k.b.and_(exp_zero, k.b.not_(mant_zero))
        normal = k.b.not_(k.b.or_(exp_zero, exp_max))
        snan = B.is_snan(k, a, t)
        kinds = [snan, k.b.and_(B.is_nan(k, a, t), k.b.not_(snan)),
                 k.b.and_(inf, neg), k.b.and_(normal, neg), k.b.and_(denorm, neg), k.b.and_(zero, neg),
                 k.b.and_(zero, pos), k.b.and_(denorm, pos), k.b.and_(normal, pos), k.b.and_(inf, pos)]
        hit = k.false()
        for bit, kind in enumerate(kinds):  # ten fixed classes
            wanted = k.icmp("!=", k.and_(mask, 1 << bit), 0)
            hit = k.b.or_(hit, k.b.and_(kind, wanted))
        return hit
    return cls


for _t in ("f16", "f32", "f64"):
    emits(f"v_cmp_class_{_t}", f"v_cmpx_class_{_t}")(_class(_t))
