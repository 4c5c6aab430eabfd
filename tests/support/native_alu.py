"""Run the native ALU emitters on numpy arrays: each (op, modifiers, MODE, shape) becomes a tiny
JIT-compiled loop, so the ALU's tests can call an emitter exactly as they call a numpy op.

    op = native_op("v_add_f32", lanes=32)       # None when the op has no emitter
    d, = op(a, b, neg=0b01, mode=mode)          # the numpy op's call, results as it returns them

Invariants:
- the function JIT'd for an op is the emitter's IR inside a loop over the arrays, optimized
  at -O2 for the host CPU, as the translator compiles kernels (LLVM's optimizations are part
  of what must stay bit-exact);
- `lanes` picks the shape the emitter sees: None for scalars (one element per iteration) or
  32/64 for wave vectors; arrays are broadcast, flattened and padded to whole vectors, and
  results come back shaped and typed as the numpy op returns them (bool for mask/scc);
- one LLVM engine per process; `compile_all` puts many functions in one module (compile
  once per test session), `native_op` compiles what it is asked on first use and keeps it.
"""
import ctypes
from functools import lru_cache

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir

from core.isa.alu.table import DEFAULT_MODE, FLOAT_TYPES, MODE_DX10_CLAMP, MODE_FP16_OVFL, MODE_IEEE
from core.isa.native.alu import emitter

_DTYPES = {**{t: np.uint32 for t in ("b32", "u32", "i32", "f32", "b16", "u16", "i16", "f16", "pk16", "lane")},
           **{t: np.uint64 for t in ("b64", "u64", "i64", "f64")},
           "mask": np.uint8, "scc": np.uint8}


def _ir_type(t):
    return ir.IntType(8 * np.dtype(_DTYPES[t]).itemsize)


class _Engine:
    def __init__(self):
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        self.tm = target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                               features=llvm.get_host_cpu_features().flatten(), opt=2)
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), self.tm)
        self.count = 0

    def compile(self, module):
        mod = llvm.parse_assembly(str(module))
        mod.verify()
        # -O2, without touching the harness's own element loop: vectorizing or unrolling it
        # would test LLVM's vectorizer instead of the scalar code, at several times the
        # compile time.
        pto = llvm.create_pipeline_tuning_options(speed_level=2)
        pto.loop_vectorization = pto.loop_unrolling = pto.loop_interleaving = False
        pb = llvm.create_pass_builder(self.tm, pto)
        pb.getModulePassManager().run(mod, pb)
        self.engine.add_module(mod)
        self.engine.finalize_object()
        return self.engine.get_function_address


@lru_cache(maxsize=None)
def _engine():
    return _Engine()


def _build(module, fname, em, lanes, mods):
    """void fname(i64 n, src pointers..., dst pointers...): results of n elements."""
    i64 = ir.IntType(64)
    srcs, dsts = em.src_types, em.dst_types
    ptrs = [ir.PointerType(_ir_type(t)) for t in srcs + dsts]
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i64] + ptrs), fname)
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    step = lanes or 1
    b.cbranch(b.icmp_unsigned(">", fn.args[0], ir.Constant(i64, 0)), loop, done)
    b.position_at_end(loop)
    idx = b.phi(i64)
    idx.add_incoming(ir.Constant(i64, 0), entry)

    def address(arg, t):
        elem = _ir_type(t)
        p = b.gep(arg, [idx])
        return b.bitcast(p, ir.PointerType(elem if lanes is None else ir.VectorType(elem, lanes)))

    values = []
    for arg, t in zip(fn.args[1:], srcs):
        v = b.load(address(arg, t), align=1)
        if t in ("mask", "scc"):
            v = b.icmp_unsigned("!=", v, ir.Constant(v.type, 0))
        values.append(v)
    results = em.emit(b, values, **mods)
    for arg, t, r in zip(fn.args[1 + len(srcs):], dsts, results):
        if t in ("mask", "scc"):
            r = b.zext(r, ir.IntType(8) if lanes is None else ir.VectorType(ir.IntType(8), lanes))
        b.store(r, address(arg, t), align=1)
    nxt = b.add(idx, ir.Constant(i64, step))
    idx.add_incoming(nxt, b.block)
    b.cbranch(b.icmp_unsigned("<", nxt, fn.args[0]), loop, done)
    b.position_at_end(done)
    b.ret_void()


_DEFAULTS = {"neg": 0, "abs": 0, "clamp": False, "omod": 0, "op_sel": 0, "op_sel_hi": None, "neg_hi": 0,
             "mode": DEFAULT_MODE, "fp8": "", "byte_sel": 0}
_ROUND, _DENORMS = 0xF, 0xF << 4


def _key(em, mods):
    """The compiled function's identity: the modifiers and MODE bits that can change what
    the op computes (core/isa/alu/table.py's pipeline reads no others), so variants that
    differ only elsewhere share one function."""
    unknown = set(mods) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"unknown modifiers {sorted(unknown)}")
    mods = {k: v for k, v in mods.items() if v != _DEFAULTS[k]}
    floats = any(t in FLOAT_TYPES for t in em.src_types + em.dst_types + em.elem_types) or em.mix
    float_dst = em.dst_types[0] in FLOAT_TYPES and not em.packed
    if "mode" in mods:
        relevant = (_DENORMS if floats else 0) | (_ROUND | MODE_IEEE | MODE_FP16_OVFL if em.uses_mode else 0)
        relevant |= MODE_IEEE if mods.get("omod") and float_dst else 0
        relevant |= MODE_DX10_CLAMP if mods.get("clamp") else 0
        mode = (mods["mode"] & relevant) | (DEFAULT_MODE & ~relevant)
        mods["mode"] = mode
        if mode == DEFAULT_MODE:
            del mods["mode"]
    if not float_dst:
        mods.pop("omod", None)
    return tuple(sorted(mods.items()))


class NativeOp:
    """An emitter made callable like its numpy op, for one shape."""

    def __init__(self, em, lanes):
        self.em = em
        self.lanes = lanes
        self._compiled = {}

    def __getattr__(self, name):
        return getattr(self.em, name)

    def prepare(self, module, **mods):
        """Add this op's function for `mods` to module (see compile_all)."""
        key = _key(self.em, mods)
        if key in self._compiled:
            return None
        fname = f"{self.em.name}_{len(self._compiled)}_{self.lanes or 0}_{id(self)}"
        _build(module, fname, self.em, self.lanes, dict(key))
        self._compiled[key] = fname
        return key, fname

    def _function(self, key):
        entry = self._compiled.get(key)
        if not isinstance(entry, str):
            return entry
        raise LookupError("prepared but not compiled")

    def __call__(self, *srcs, **mods):
        if len(srcs) != len(self.em.src_types):
            raise TypeError(f"{self.em.name} takes {len(self.em.src_types)} sources, got {len(srcs)}")
        key = _key(self.em, mods)
        if key not in self._compiled:
            compile_all([(self, mods)])
        fn = self._compiled[key]
        shape = np.broadcast_shapes(*(np.shape(s) for s in srcs))
        n = int(np.prod(shape, dtype=np.int64))
        step = self.lanes or 1
        padded = -(-n // step) * step
        args = []
        for s, t in zip(srcs, self.em.src_types):
            flat = np.zeros(padded, dtype=_DTYPES[t])
            flat[:n] = np.broadcast_to(np.asarray(s), shape).reshape(-1).astype(_DTYPES[t])
            args.append(flat)
        outs = [np.zeros(padded, dtype=_DTYPES[t]) for t in self.em.dst_types]
        fn(padded, *(a.ctypes.data for a in args + outs))
        return tuple((o[:n].astype(bool) if t in ("mask", "scc") else o[:n]).reshape(shape)
                     for o, t in zip(outs, self.em.dst_types))


def compile_all(requests):
    """Compile [(NativeOp, mods), ...] in one module (skipping those already compiled)."""
    module = ir.Module("alu_ops")
    module.triple = llvm.get_process_triple()
    built = []
    for op, mods in requests:
        entry = op.prepare(module, **mods)
        if entry:
            built.append((op, *entry))
    if not built:
        return
    address = _engine().compile(module)
    for op, key, fname in built:
        nargs = 1 + len(op.em.src_types) + len(op.em.dst_types)
        proto = ctypes.CFUNCTYPE(None, ctypes.c_int64, *([ctypes.c_void_p] * (nargs - 1)))
        op._compiled[key] = proto(address(fname))


@lru_cache(maxsize=None)
def native_op(name, lanes):
    """The NativeOp of mnemonic `name` for vectors of `lanes` (None: scalars), or None when the
    op has no emitter."""
    em = emitter(name)
    return None if em is None else NativeOp(em, lanes)
