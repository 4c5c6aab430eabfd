"""Vector types for the translator's IR, whose constants print in LLVM's short forms.

Holds this invariant: a constant of a Vector prints the value llvmlite's VectorType prints,
only shorter where every lane holds the same value (`zeroinitializer`, `undef`,
`splat (T v)`, which LLVM 19 and later parse). Splat constants of 32 or 64 lanes were most
of the module's text (double_transcendental -O0: 7.5 MB, 3.2 MB with the short forms).
"""
import llvmlite.ir as ir


class Vector(ir.VectorType):
    """An <count x element> type (equal to the llvmlite VectorType of the same shape)."""

    def format_constant(self, value):
        refs = [x.get_reference() for x in value]
        first = refs[0]
        if refs.count(first) < len(refs):
            return super().format_constant(value)
        if first == "undef":
            return "undef"
        if first == "0" and isinstance(self.element, ir.IntType):
            return "zeroinitializer"
        return f"splat ({self.element} {first})"
