"""The emitter registry and the modifier pipeline around every ALU body, in IR: the numpy
pipeline of core/isa/alu/table.py step for step (op_sel halves, abs then neg, denormal
flushing per MODE, the body, canonical NaNs, omod and output flushing as MODE allows them,
clamp; packed halves; fma_mix sources).

Invariants:
- an Emitter answers every metadata question (src_types, dst_types, reads_dst, int_clamp,
  own_nans, writes_exec, ...) with its numpy op's answer: it holds that op and delegates;
- bodies are registered by mnemonic with the numpy body's signature plus the Kit first:
  body(k, *sources, [clamp=], [mode=], [fp8=], [byte_sel=], [signs=]) -> one value or a tuple in
  dst_types order. They see
  sources already selected, modified and flushed, as the numpy bodies do; a body of an op
  without own_nans only has to get NaN-ness right, the pipeline makes the NaN's bits;
- `mode` is a compile-time int, so every MODE test here is Python, not IR: code for the
  default mode contains no flushing at all;
- results come back in the numpy representation of their type (16-bit results in the low
  half with the high half zero), as one tuple, values shaped like the sources (scalar sources
  of a vector op are broadcast first).
"""
from core.isa import alu
from core.isa.alu.table import (DEFAULT_MODE, FLOAT_TYPES, HALF_TYPES, MODE_DX10_CLAMP, MODE_IEEE, _OMOD,
                                flush_inputs, flush_outputs)
from core.isa.native.alu import bits as B
from core.isa.native.alu.kit import Kit, lanes_of

_BODIES = {}


def register(name, body):
    if name in _BODIES:
        raise ValueError(f"ALU emitter {name} registered twice")
    alu.lookup(name)   # an emitter always mirrors a numpy op
    _BODIES[name] = body
    return body


def emits(*names):
    """Decorator: register one body under one or more mnemonics."""
    def deco(body):
        for name in names:
            register(name, body)
        return body
    return deco


def body_of(name):
    return _BODIES[name]


def _input_mods(k, x, t, i, neg, abs_, mode, ftz):
    f = B.FMT[t]
    if (abs_ >> i) & 1:
        x = k.and_(x, ~f.sign)
    if (neg >> i) & 1:
        x = k.xor(x, f.sign)
    if ftz and flush_inputs(mode, t):
        x = B.flush(k, x, t)
    return x


def _scale(k, x, t, factor):
    """x * factor (2, 4 or 0.5) in t, as numpy multiplies (f16 through f32, rounded once); a
    NaN x comes back quieted."""
    if t == "f16":
        wide = k.b.fmul(k.view(B.widen(k, x, "f16", "f32"), "f32"), k.f(factor, "f32"))
        r = B.narrow(k, k.bits(wide, "f32"), "f32", "f16")
    else:
        r = k.bits(k.b.fmul(k.view(x, t), k.f(factor, t)), t)
    return B.quiet_or(k, t, r, x)


def _output_mods(k, x, t, clamp, omod, mode, flush):
    """numpy's _output_mods: omod only with IEEE clear and output denormals flushed (then
    denormals and -0 become +0), else output flushing; then clamp to [0, 1], a NaN becoming
    +0 only with DX10_CLAMP."""
    flushing = flush_outputs(mode, t)
    if omod and flushing and not mode & MODE_IEEE:
        x = B.flush(k, _scale(k, x, t, _OMOD[omod]), t)
        x = k.select(k.icmp("==", k.and_(x, B.FMT[t].magnitude), 0), k.like(0, x), x)
    elif flush and flushing:
        x = B.flush(k, x, t)
    if clamp:
        v = k.view(x, t)
        one = k.bits(k.f(1.0, t), t)
        low = k.b.fcmp_ordered("<", v, k.f(0.0, t))
        high = k.b.fcmp_ordered(">", v, k.f(1.0, t))
        clamped = k.select(low, k.like(0, x), k.select(high, one, x))
        nan = k.like(0, x) if mode & MODE_DX10_CLAMP else x
        x = k.select(B.is_nan(k, x, t), nan, clamped)
    return x


def _half(k, x, hi):
    return k.lshr(x, 16) if hi else k.and_(x, 0xFFFF)


class Emitter:
    """One instruction's IR: the numpy op's metadata and a body run inside the pipeline."""

    def __init__(self, op, body):
        self.op = op
        self.body = body

    def __getattr__(self, name):
        if name in ("op", "body"):       # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self.op, name)

    def __repr__(self):
        return f"Emitter({self.op.name})"

    def emit(self, builder, srcs, *, neg=0, abs=0, clamp=False, omod=0, op_sel=0, op_sel_hi=None,
             neg_hi=0, mode=DEFAULT_MODE, fp8="", byte_sel=0):
        op = self.op
        if len(srcs) != len(op.src_types):
            raise TypeError(f"{op.name} takes {len(op.src_types)} sources, got {len(srcs)}")
        shapes = {lanes_of(s) for s in srcs} - {None}
        if len(shapes) > 1:
            raise TypeError(f"{op.name}: sources of {sorted(shapes)} lanes")
        k = Kit(builder, shapes.pop() if shapes else None)
        srcs = [k.broadcast(s) for s in srcs]
        if op.packed:
            op_sel_hi = 0b111 if op_sel_hi is None else op_sel_hi
            return (self._packed(k, srcs, neg, clamp, op_sel, op_sel_hi, neg_hi, mode),)
        if op.mix:
            srcs = self._mix_sources(k, srcs, neg, op_sel, op_sel_hi or 0, neg_hi, mode)
            neg = abs = op_sel = 0
        vals = list(srcs)
        for i, t in enumerate(op.src_types):
            if t in HALF_TYPES:
                vals[i] = _half(k, vals[i], (op_sel >> i) & 1)
            if t in FLOAT_TYPES:
                vals[i] = _input_mods(k, vals[i], t, i, neg, abs, mode, op.ftz)
        out = self.body(k, *vals, **self._kwargs(clamp, mode, fp8, byte_sel, neg, op_sel))
        out = out if isinstance(out, tuple) else (out,)
        t0 = op.dst_types[0]
        if t0 in FLOAT_TYPES:
            floats = [(vals[i], t) for i, t in enumerate(op.src_types) if t in FLOAT_TYPES]
            first = out[0] if op.own_nans else B.canonical_nans(k, t0, out[0], floats)
            flush = op.ftz and not op.keeps_output_denormals
            first = _output_mods(k, first, t0, clamp and not op.int_clamp, omod, mode, flush)
            out = (first,) + out[1:]
        return out

    def _kwargs(self, clamp, mode, fp8="", byte_sel=0, neg=0, op_sel=0):
        kw = {}
        if self.op.int_clamp:
            kw["clamp"] = clamp
        if self.op.uses_mode:
            kw["mode"] = mode
        if self.op.uses_fp8:
            kw["fp8"] = fp8
        if self.op.byte_sel:
            kw["byte_sel"] = byte_sel
        elif self.op.op_sel_byte:
            kw["byte_sel"] = op_sel & 3
        if self.op.neg_signs:
            kw["signs"] = neg
        return kw

    def _packed(self, k, srcs, neg, clamp, op_sel, op_sel_hi, neg_hi, mode):
        op = self.op
        halves = []
        for sel, negs in ((op_sel, neg), (op_sel_hi, neg_hi)):
            vals = []
            for i, (x, t) in enumerate(zip(srcs, op.elem_types)):
                x = _half(k, x, (sel >> i) & 1)
                if t in FLOAT_TYPES:
                    x = _input_mods(k, x, t, i, negs, 0, mode, op.ftz)
                vals.append(x)
            r = self.body(k, *vals, **self._kwargs(clamp, mode))
            t0 = op.elem_types[0]
            if t0 in FLOAT_TYPES:
                if not op.own_nans:
                    floats = [(x, t) for x, t in zip(vals, op.elem_types) if t in FLOAT_TYPES]
                    r = B.canonical_nans(k, t0, r, floats)
                r = _output_mods(k, r, t0, clamp and not op.int_clamp, 0, mode,
                                 op.ftz and not op.keeps_output_denormals)
            halves.append(k.and_(r, 0xFFFF))
        return k.or_(halves[0], k.shl(halves[1], 16))

    def _mix_sources(self, k, srcs, neg, op_sel, op_sel_hi, neg_hi, mode):
        """v_fma_mix*: source i is f16 (the half op_sel picks) when op_sel_hi bit i is set,
        else f32; neg_hi is abs. Returns f32 bit patterns with modifiers applied."""
        out = []
        for i, x in enumerate(srcs):
            if (op_sel_hi >> i) & 1:
                half = _input_mods(k, _half(k, x, (op_sel >> i) & 1), "f16", i, 0, 0, mode, self.op.ftz)
                x = B.widen(k, half, "f16", "f32")
            else:
                x = _input_mods(k, x, "f32", 0, 0, 0, mode, self.op.ftz)
            out.append(_input_mods(k, x, "f32", i, neg, neg_hi, mode, False))
        return out


def emitter(mnemonic):
    """The Emitter for a base mnemonic, or None when the op has no native emitter (yet)."""
    body = _BODIES.get(mnemonic)
    return None if body is None else Emitter(alu.lookup(mnemonic), body)


def coverage():
    """The mnemonics that have emitters (a subset of core.isa.alu.coverage())."""
    return frozenset(_BODIES)
