"""The LLVM IR types and constants that the translator and every emitter build with.

Holds this invariant: one object per type, so IR built by different emitters compares and
prints alike; the module depends on llvmlite alone, so any emitter may import it.
"""
import llvmlite.ir as ir

I1, I8, I16, I32, I64 = ir.IntType(1), ir.IntType(8), ir.IntType(16), ir.IntType(32), ir.IntType(64)
PTR = ir.PointerType()


def const(type_, value):
    return ir.Constant(type_, value)
