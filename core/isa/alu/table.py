"""The op registry and the generic modifier pipeline around every ALU function.

Invariants:
- one AluOp per mnemonic; registering a name twice is an error at import time;
- the family functions see sources already selected (op_sel), modified (abs, then neg) and,
  when MODE says so, denormal-flushed; they never see modifiers except `clamp` (integer
  saturation, only ops declared with int_clamp), `mode` (only ops declared uses_mode), and
  the target's 8-bit float flavour `fp8` and gfx12's `byte_sel` (ops declaring uses_fp8,
  byte_sel), and neg_lo as `signs`, which integer sources are signed (ops declaring
  neg_signs: gfx11's mixed-sign dot products);
- an op that reads its destination (v_fmac_f32, v_pk_fmac_f16, s_cmov_b32, s_addk_i32,
  s_bitset1_b32, ...) takes the old value as the source after the explicit ones and before
  implicit SCC/VCC ones: v_fmac_f32 v0, v1, v2 -> (v1, v2, v0); s_cmov_b32 s0, s1 ->
  (s1, s0, scc); s_addk_i32 s0, k -> (k, s0) with k already sign-extended;
- op_sel_hi=None means the encoding has no such field (VOP2 forms of packed ops); VOP3P
  forms pass the raw field (llvm prints it only when it differs from [1,1,1]);
- a float result that is NaN is, unless the op declares own_nans, the first NaN among its
  float sources in source order (S0, S1, S2, after modifiers), quieted and moved to the
  result's format (bits.quiet_nan_as), or the result format's default NaN when no source is
  NaN (inf - inf, 0 * inf, sqrt(-1), ...). IEEE 754 leaves the choice among NaN operands
  open and AMD does not document it; fixing it makes results independent of the order in
  which numpy (or an LLVM tier) happens to evaluate operands. NaNs are quieted with MODE.IEEE
  clear too (what the guide says IEEE=0 changes is min/max, which then pass sNaN). Ops with own_nans (min/max/
  med3 selection, div_scale/div_fixup, frexp_mant, moves) follow the ISA pseudocode;
- float results then get (RDNA ISA guides, "Output modifiers" and the MODE register):
  omod only when MODE.IEEE is clear and MODE flushes output denormals of the result type
  (the hardware ignores it otherwise): the result is scaled, then denormals and -0 become +0;
  without omod, denormal flushing when MODE's output-denormal bit for the type is clear
  (except ops declared keeps_output_denormals: min/max/med3 output a denormal whenever the
  input mode let one in); then clamp to [0, 1], where a NaN becomes +0 only when
  MODE.DX10_CLAMP is set and passes through otherwise (-0 stays -0).
"""
import dataclasses
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np

from core.isa.alu import bits as B

# MODE register fields (RDNA2 ISA guide, "MODE" hardware register).
MODE_DENORM_F32_SHIFT = 4
MODE_DENORM_F64F16_SHIFT = 6
MODE_DX10_CLAMP = 1 << 8
MODE_IEEE = 1 << 9
MODE_FP16_OVFL = 1 << 23       # an overflowing 16-bit (and 8-bit) float result clamps to its maximum
# Round to nearest even, f32 and f64/f16 denormals kept on input and output, DX10_CLAMP, IEEE.
DEFAULT_MODE = (3 << MODE_DENORM_F32_SHIFT) | (3 << MODE_DENORM_F64F16_SHIFT) | MODE_DX10_CLAMP | MODE_IEEE

FLOAT_TYPES = ("f16", "f32", "f64")
HALF_TYPES = ("b16", "u16", "i16", "f16")
_OMOD = {1: 2.0, 2: 4.0, 3: 0.5}

_REGISTRY: dict[str, "AluOp"] = {}


def _denorm_bits(mode, fmt_name):
    shift = MODE_DENORM_F32_SHIFT if fmt_name == "f32" else MODE_DENORM_F64F16_SHIFT
    return (mode >> shift) & 3


def flush_inputs(mode, fmt_name):
    """FP_DENORM bit 0 clear: input denormals are flushed."""
    return not _denorm_bits(mode, fmt_name) & 1


def flush_outputs(mode, fmt_name):
    """FP_DENORM bit 1 clear: output denormals are flushed."""
    return not _denorm_bits(mode, fmt_name) & 2


def merge16(old, result, hi):
    """Write a 16-bit result into one half of a VGPR, keeping the other half (gfx10)."""
    old = np.asarray(old, dtype=np.uint32)
    result = np.asarray(result, dtype=np.uint32) & np.uint32(0xFFFF)
    if hi:
        return (old & np.uint32(0xFFFF)) | (result << np.uint32(16))
    return (old & np.uint32(0xFFFF0000)) | result


def _apply_input_mods(x, t, i, neg, abs_, mode, ftz):
    fmt = B.FORMATS[t]
    x = np.asarray(x, dtype=fmt.uint)
    if (abs_ >> i) & 1:
        x = x & ~fmt.sign
    if (neg >> i) & 1:
        x = x ^ fmt.sign
    if ftz and flush_inputs(mode, t):
        x = B.flush(x, fmt)
    return x


def _holds_nan(r, t, fmt):
    """Whether any lane of r is NaN, in one reduction (maximum propagates NaN): this is on
    the path of every float op; a compare and any() cost 2 us of a 6 us v_add_f32 on 16
    waves of 64 lanes, the reduction 1 us."""
    if r.size == 0:
        return False
    if t == "f16":
        return int(np.bitwise_and(r, 0x7FFF).max()) > 0x7C00
    return math.isnan(np.maximum.reduce(r.view(fmt.float), axis=None))


def canonical_nans(r, t, sources):
    """Result bits r of float type t with NaN lanes replaced by the first NaN of `sources`
    ((bits, type) in source order) quieted into t, or by t's default NaN."""
    fmt = B.FORMATS[t]
    r = np.asarray(r, dtype=fmt.uint)
    if not _holds_nan(r, t, fmt):
        return r
    nan = B.is_nan(r, fmt)
    fix = np.full(np.shape(r), fmt.default_nan, dtype=fmt.uint)
    for x, st in reversed(sources):
        sfmt = B.FORMATS[st]
        x = np.asarray(x, dtype=sfmt.uint)
        fix = np.where(B.is_nan(x, sfmt), B.quiet_nan_as(x, sfmt, fmt), fix)
    return np.where(nan, fix, r)


def _output_mods(x, t, clamp, omod, mode, flush):
    fmt = B.FORMATS[t]
    flushing = flush_outputs(mode, t)
    if omod and flushing and not mode & MODE_IEEE:
        x = B.flush(B.PACK[t](B.VIEW[t](x) * fmt.float(_OMOD[omod])), fmt)
        x = np.where((x & ~fmt.sign) == 0, fmt.uint(0), x)
    elif flush and flushing:
        x = B.flush(x, fmt)
    if clamp:
        v = B.VIEW[t](x)
        nan = np.isnan(v)
        clamped = B.PACK[t](np.clip(v, 0, 1).astype(v.dtype))
        x = np.where(nan & bool(mode & MODE_DX10_CLAMP), fmt.uint(0), np.where(nan, x, clamped))
    return x


@dataclass(frozen=True)
class AluOp:
    """One instruction's semantics. `fn` takes the sources (after modifiers) and returns one
    array or a tuple in dst_types order; calling the AluOp runs the whole pipeline."""
    name: str
    fn: Callable
    src_types: tuple
    dst_types: tuple
    int_clamp: bool = False     # `clamp` saturates inside fn instead of clamping to [0, 1]
    uses_mode: bool = False     # fn takes mode= (IEEE bit, FP_ROUND, denormals of its own)
    ftz: bool = True            # MODE's denormal flushing applies to float operands
    packed: bool = False        # VOP3P: fn works on 16-bit halves of 'pk16' operands
    elem_types: tuple = ()      # packed: the half types fn sees, e.g. ('f16', 'f16', 'f16')
    dst_hi: bool = False        # 16-bit result goes to the high half (v_fma_mixhi_f16)
    reads_dst: bool = False     # the destination's old value is a source (see module doc)
    mix: bool = False           # v_fma_mix*: f16/f32 sources chosen by op_sel_hi
    own_nans: bool = False      # fn's NaN results are final (see the module doc)
    keeps_output_denormals: bool = False    # no output flushing (min/max/med3)
    uses_fp8: bool = False      # fn takes fp8= the target's 8-bit float flavour (core.isa.alu.fp8)
    byte_sel: bool = False      # fn takes byte_sel= the source byte gfx12's VOP3 form names
    op_sel_byte: bool = False   # fn takes byte_sel= op_sel[1:0]: the source byte gfx950's scaled conversions name
    neg_signs: bool = False     # fn takes signs= VOP3P's neg_lo bits: which sources are signed

    @property
    def writes_exec(self):
        """v_cmpx_* (the mask also goes to EXEC) and s_*_saveexec / s_*_wrexec (dst[1] is
        the new EXEC)."""
        return self.name.startswith("v_cmpx_") or self.name.endswith(("_saveexec_b32", "_saveexec_b64",
                                                                       "_wrexec_b32", "_wrexec_b64"))

    @property
    def reads_scc(self):
        return "scc" in self.src_types

    @property
    def writes_scc(self):
        return "scc" in self.dst_types

    @property
    def reads_mask(self):
        return "mask" in self.src_types

    @property
    def writes_mask(self):
        return "mask" in self.dst_types

    @cached_property
    def _plan(self):
        """Per-op constants of the hot path: which sources are 16-bit / float, and whether
        numpy's float warnings need silencing (NaN casts, inf - inf are expected here)."""
        halves = tuple(i for i, t in enumerate(self.src_types) if t in HALF_TYPES)
        floats = tuple((i, t) for i, t in enumerate(self.src_types) if t in FLOAT_TYPES)
        float_dst = self.dst_types[0] in FLOAT_TYPES
        quiet = bool(floats) or float_dst or self.packed or self.mix
        return halves, floats, float_dst, quiet

    def __call__(self, *srcs, neg=0, abs=0, clamp=False, omod=0, op_sel=0, op_sel_hi=None,
                 neg_hi=0, mode=DEFAULT_MODE, fp8="", byte_sel=0):
        if len(srcs) != len(self.src_types):
            raise TypeError(f"{self.name} takes {len(self.src_types)} sources, got {len(srcs)}")
        facts = (fp8, byte_sel)
        if self._plan[3]:
            with np.errstate(all="ignore"):
                out = self._run(srcs, neg, abs, clamp, omod, op_sel, op_sel_hi, neg_hi, mode, facts)
        else:
            out = self._run(srcs, neg, abs, clamp, omod, op_sel, op_sel_hi, neg_hi, mode, facts)
        shapes = [np.shape(x) for x in srcs]
        shape = shapes[0] if shapes.count(shapes[0]) == len(shapes) else np.broadcast_shapes(*shapes)
        return tuple(r if np.shape(r) == shape else np.array(np.broadcast_to(r, shape)) for r in out)

    def _run(self, srcs, neg, abs, clamp, omod, op_sel, op_sel_hi, neg_hi, mode, facts):
        if self.packed:
            # Not encoded (VOP2 v_pk_fmac_f16): high halves come from high halves.
            op_sel_hi = 0b111 if op_sel_hi is None else op_sel_hi
            return (self._run_packed(srcs, neg, clamp, op_sel, op_sel_hi, neg_hi, mode),)
        if self.mix:
            srcs = self._mix_sources(srcs, neg, op_sel, op_sel_hi or 0, neg_hi, mode)
            neg = abs = op_sel = 0
        halves, floats, float_dst, _ = self._plan
        vals = list(srcs)
        for i in halves:
            x = np.asarray(vals[i], dtype=np.uint32)
            vals[i] = (x >> np.uint32(16)) if (op_sel >> i) & 1 else x & np.uint32(0xFFFF)
        for i, t in floats:
            if neg or abs or (self.ftz and flush_inputs(mode, t)):
                vals[i] = _apply_input_mods(vals[i], t, i, neg, abs, mode, self.ftz)
        kw = {}
        if self.int_clamp:
            kw["clamp"] = clamp
        if self.uses_mode:
            kw["mode"] = mode
        if self.uses_fp8:
            kw["fp8"] = facts[0]
        if self.byte_sel:
            kw["byte_sel"] = facts[1]
        elif self.op_sel_byte:
            kw["byte_sel"] = op_sel & 3
        if self.neg_signs:
            kw["signs"] = neg
        out = self.fn(*vals, **kw)
        out = out if isinstance(out, tuple) else (out,)
        if float_dst:
            t = self.dst_types[0]
            first = out[0] if self.own_nans else canonical_nans(out[0], t, [(vals[i], st) for i, st in floats])
            flush = self.ftz and not self.keeps_output_denormals
            if omod or clamp and not self.int_clamp or flush and flush_outputs(mode, t):
                first = _output_mods(first, t, clamp and not self.int_clamp, omod, mode, flush)
            out = (first,) + out[1:]
        return out

    def _run_packed(self, srcs, neg, clamp, op_sel, op_sel_hi, neg_hi, mode):
        halves = []
        for sel, negs in ((op_sel, neg), (op_sel_hi, neg_hi)):
            vals = []
            for i, (x, t) in enumerate(zip(srcs, self.elem_types)):
                x = np.asarray(x, dtype=np.uint32)
                x = (x >> np.uint32(16)) if (sel >> i) & 1 else x & np.uint32(0xFFFF)
                if t in FLOAT_TYPES:
                    x = _apply_input_mods(x, t, i, negs, 0, mode, self.ftz)
                vals.append(x)
            kw = {"clamp": clamp} if self.int_clamp else {}
            if self.uses_mode:
                kw["mode"] = mode
            r = self.fn(*vals, **kw)
            t0 = self.elem_types[0]
            if t0 in FLOAT_TYPES:
                if not self.own_nans:
                    r = canonical_nans(r, t0, [(x, t) for x, t in zip(vals, self.elem_types) if t in FLOAT_TYPES])
                r = _output_mods(r, t0, clamp and not self.int_clamp, 0, mode,
                                 self.ftz and not self.keeps_output_denormals)
            halves.append(np.asarray(r, dtype=np.uint32) & np.uint32(0xFFFF))
        return halves[0] | (halves[1] << np.uint32(16))

    def _mix_sources(self, srcs, neg, op_sel, op_sel_hi, neg_hi, mode):
        """v_fma_mix*: source i is f16 (the half op_sel picks) when op_sel_hi bit i is set,
        else f32; neg_hi is abs. Returns f32 bit patterns with modifiers applied."""
        out = []
        for i, x in enumerate(srcs):
            x = np.asarray(x, dtype=np.uint32)
            if (op_sel_hi >> i) & 1:
                half = (x >> np.uint32(16)) if (op_sel >> i) & 1 else x & np.uint32(0xFFFF)
                half = _apply_input_mods(half, "f16", i, 0, 0, mode, self.ftz)
                x = B.from_f32(B.f16(half).astype(np.float32))
            else:
                x = _apply_input_mods(x, "f32", 0, 0, 0, mode, self.ftz)
            out.append(_apply_input_mods(x, "f32", i, neg, neg_hi, mode, False))
        return out


def register(name, fn, sig, **flags):
    """Register fn under name; sig is 'src src ... -> dst ...' in operand types."""
    if name in _REGISTRY:
        raise ValueError(f"ALU op {name} registered twice")
    src, dst = (tuple(s.split()) for s in sig.split("->"))
    _REGISTRY[name] = AluOp(name, fn, src, dst, **flags)
    return fn


def op(sig, *names, **flags):
    """Decorator: register one function under one or more mnemonics with a signature."""
    def deco(fn):
        for name in names:
            register(name, fn, sig, **flags)
        return fn
    return deco


def alias(name, base, results=None):
    """Register `name` as the ALU op `base`: its function, types and flags (`results`, when
    given, the types its results go to instead: a compare's 'scc' for its 'mask')."""
    original = lookup(base)
    flags = {f.name: getattr(original, f.name) for f in dataclasses.fields(original)
             if f.init and f.name not in ("name", "fn", "src_types", "dst_types")}
    dst = results or original.dst_types
    register(name, original.fn, f"{' '.join(original.src_types)} -> {' '.join(dst)}", **flags)


def lookup(mnemonic):
    """The AluOp for a base mnemonic (no _e32/_e64/_dpp/_sdwa suffix); KeyError if not ALU."""
    return _REGISTRY[mnemonic]


def coverage():
    """The set of mnemonics this library implements (for `softgpu isa-report`)."""
    return frozenset(_REGISTRY)
