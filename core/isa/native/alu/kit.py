"""Shape-generic LLVM IR building blocks for the ALU emitters.

Invariants:
- every helper works the same on a scalar and on an <L x T> vector: types and constants take
  the kit's lane count (None for scalars), so an emitter is written once for both shapes;
- values use the numpy ALU's representations: i32 for 32- and 16-bit operands (16-bit ones in
  the low half), i64 for 64-bit ones, i1 for masks and SCC. Float views exist only between
  a `view` and a `bits` (bitcasts, never value conversions), so NaN payloads survive them;
- an int where a value is expected is a constant of the other operand's type;
- intrinsics are declared once per module under LLVM's mangled names;
- `unlikely` is the one place that adds basic blocks: the builder ends at the block where its
  results are available;
- `shared` builds a body once per module, as an internal function the call sites call (cold
  and never inlined: for rare paths only, so the common path keeps its registers).
"""
from llvmlite import ir
from llvmlite.ir.types import _BaseFloatType

from core.isa.native.ir_vector import Vector


class X86FP80Type(_BaseFloatType):
    """x87 80-bit extended precision: the numpy ALU's long double (used without constants)."""
    null = "0xK00000000000000000000"
    intrinsic_name = "f80"

    def __str__(self):
        return "x86_fp80"


X86FP80Type._create_instance()

FLOAT_IR = {"f16": ir.HalfType(), "f32": ir.FloatType(), "f64": ir.DoubleType(), "f80": X86FP80Type()}
FLOAT_BITS = {"f16": 16, "f32": 32, "f64": 64}


def _mangle(ty):
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{_mangle(ty.element)}"
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    return ty.intrinsic_name


def lanes_of(value):
    return value.type.count if isinstance(value.type, ir.VectorType) else None


class Kit:
    """An IRBuilder and a shape (lanes: None for scalars, else the vector length)."""

    def __init__(self, builder, lanes):
        self.b = builder
        self.lanes = lanes

    # --- types and constants -------------------------------------------------------------

    def shaped(self, elem):
        return elem if self.lanes is None else Vector(elem, self.lanes)

    def ity(self, bits):
        return self.shaped(ir.IntType(bits))

    def fty(self, t):
        return self.shaped(FLOAT_IR[t])

    def i(self, value, bits=32):
        """Integer constant (two's complement of negative values)."""
        return ir.Constant(self.ity(bits), value & ((1 << bits) - 1))

    def f(self, value, t):
        return ir.Constant(self.fty(t), value)

    @staticmethod
    def flag(value):
        """A scalar i1 constant (intrinsic flags such as ctlz's is_zero_poison)."""
        return ir.Constant(ir.IntType(1), int(value))

    def true(self):
        return self.i(1, 1)

    def false(self):
        return self.i(0, 1)

    def like(self, x, other):
        """x, or if x is an int, the constant x of other's type (two's complement)."""
        if not isinstance(x, int):
            return x
        return ir.Constant(other.type, x & ((1 << self.width(other)) - 1))

    def _pair(self, a, b):
        return self.like(a, b), self.like(b, a)

    def broadcast(self, x):
        """A scalar source as a vector of the kit's shape (vectors pass through)."""
        if self.lanes is None or isinstance(x.type, ir.VectorType):
            return x
        vec = Vector(x.type, self.lanes)
        one = self.b.insert_element(ir.Constant(vec, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
        return self.b.shuffle_vector(one, ir.Constant(vec, ir.Undefined),
                                     ir.Constant(Vector(ir.IntType(32), self.lanes), 0))

    # --- integer arithmetic and logic (ints are constants of the other operand's type) ---------

    def add(self, a, b):
        return self.b.add(*self._pair(a, b))

    def sub(self, a, b):
        return self.b.sub(*self._pair(a, b))

    def mul(self, a, b):
        return self.b.mul(*self._pair(a, b))

    def and_(self, a, b):
        return self.b.and_(*self._pair(a, b))

    def or_(self, a, b):
        return self.b.or_(*self._pair(a, b))

    def xor(self, a, b):
        return self.b.xor(*self._pair(a, b))

    def not_(self, a):
        return self.b.not_(a)

    def shl(self, a, b):
        return self.b.shl(*self._pair(a, b))

    def lshr(self, a, b):
        return self.b.lshr(*self._pair(a, b))

    def ashr(self, a, b):
        return self.b.ashr(*self._pair(a, b))

    def icmp(self, op, a, b):
        """Unsigned comparison ('<', '<=', '==', '!=', '>', '>=')."""
        return self.b.icmp_unsigned(op, *self._pair(a, b))

    def scmp(self, op, a, b):
        return self.b.icmp_signed(op, *self._pair(a, b))

    def select(self, cond, a, b):
        if isinstance(cond, bool):
            return a if cond else b
        a, b = self._pair(a, b)
        return self.b.select(cond, a, b)

    def umin(self, a, b):
        return self.select(self.icmp("<=", a, b), a, b)

    def umax(self, a, b):
        return self.select(self.icmp(">=", a, b), a, b)

    def smin(self, a, b):
        return self.select(self.scmp("<=", a, b), a, b)

    def smax(self, a, b):
        return self.select(self.scmp(">=", a, b), a, b)

    def width(self, x):
        t = x.type.element if isinstance(x.type, ir.VectorType) else x.type
        return t.width

    def zext(self, x, bits):
        w = self.width(x)
        return x if w == bits else (self.b.zext(x, self.ity(bits)) if w < bits else self.b.trunc(x, self.ity(bits)))

    def sext(self, x, bits):
        w = self.width(x)
        return x if w == bits else (self.b.sext(x, self.ity(bits)) if w < bits else self.b.trunc(x, self.ity(bits)))

    def trunc(self, x, bits):
        return self.zext(x, bits)

    # --- float views ----------------------------------------------------------------------

    def view(self, x, t):
        """Bit pattern (i32 with f16 in the low half, i32, i64) -> float value of type t."""
        if t == "f16":
            x = self.trunc(x, 16)
        return self.b.bitcast(x, self.fty(t))

    def bits(self, v, t):
        """Float value of type t -> its bit pattern in the operand representation."""
        x = self.b.bitcast(v, self.ity(FLOAT_BITS[t]))
        return self.zext(x, 32) if t == "f16" else x

    # --- intrinsics, reductions and cold paths ----------------------------------------------

    def intrinsic(self, name, args, ret=None, overloads=None):
        """Call llvm.<name> mangled on `overloads` (default: the first argument's type)."""
        overloads = [args[0].type] if overloads is None else overloads
        full = ".".join(["llvm." + name] + [_mangle(t) for t in overloads])
        ret = args[0].type if ret is None else ret
        return self.call_function(full, ret, args)

    def call_function(self, name, ret, args):
        module = self.b.module
        fn = module.globals.get(name)
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(ret, [a.type for a in args]), name)
        return self.b.call(fn, args)

    def shared(self, name, body, args):
        """body(kit, *args) -> a value of args[0]'s type, as the module's function `name`
        (made on the first call, for these argument types) called here."""
        module = self.b.module
        name = ".".join([name] + [_mangle(a.type) for a in args])
        fn = module.globals.get(name)
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(args[0].type, [a.type for a in args]), name)
            fn.linkage = "internal"
            fn.attributes.add("cold")
            fn.attributes.add("noinline")
            builder = ir.IRBuilder(fn.append_basic_block("body"))
            builder.ret(body(Kit(builder, self.lanes), *fn.args))
        return self.b.call(fn, args)

    def lanewise(self, fn, args, ret):
        """fn (scalar values -> scalar value of element type ret) applied per lane: once for
        scalars, once per lane of vectors (for what has no vector form)."""
        if self.lanes is None:
            return fn(*args)
        out = ir.Constant(Vector(ret, self.lanes), ir.Undefined)
        for lane in range(self.lanes):
            idx = ir.Constant(ir.IntType(32), lane)
            out = self.b.insert_element(out, fn(*(self.b.extract_element(a, idx) for a in args)), idx)
        return out

    def call_scalar(self, name, args):
        """A scalar library function (same type in and out) applied per lane (libm has no
        vector variants)."""
        elem = args[0].type.element if self.lanes else args[0].type
        return self.lanewise(lambda *xs: self.call_function(name, elem, list(xs)), args, elem)

    def any(self, cond):
        """Scalar i1: some lane of cond is set."""
        if self.lanes is None:
            return cond
        return self.intrinsic("vector.reduce.or", [cond], ret=ir.IntType(1))

    def unlikely(self, cond, fast, slow):
        """fast (a value or tuple) where no lane of cond is set; otherwise slow(), computed in a
        cold block for every lane (slow selects by cond itself). The fast path costs one
        test of cond: NaN inputs and other rare cases should not tax every lane-instruction."""
        single = not isinstance(fast, tuple)
        fast = (fast,) if single else fast
        before = self.b.block
        with self.b.if_then(self.any(cond), likely=False):
            slow_vals = slow()
            slow_vals = (slow_vals,) if single else slow_vals
            slow_block = self.b.block
        merged = []
        for f, s in zip(fast, slow_vals):
            phi = self.b.phi(f.type)
            phi.add_incoming(f, before)
            phi.add_incoming(s, slow_block)
            merged.append(phi)
        return merged[0] if single else tuple(merged)
