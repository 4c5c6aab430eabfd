"""LLVM IR emitters for the ALU: what core.isa.alu computes on numpy arrays, as llvmlite IR for
the native tier, bit for bit.

    from core.isa.native.alu import emitter
    em = emitter("v_add_co_u32")                 # None when the op has no emitter yet
    em.src_types, em.dst_types, em.reads_dst     # the numpy op's own metadata
    d, carry = em.emit(builder, [a, b], clamp=False, mode=mode)

Invariants:
- an emitter computes exactly what its numpy op (core.isa.alu.lookup(mnemonic)) returns, on
  every input: NaN payloads, signed zeros, denormals per MODE, rounding per FP_ROUND;
  tests/isa run the ALU's tests against both, and a bit-exactness test per family compares
  them over special-value grids in every MODE and with every modifier;
- values use the numpy representation per operand type: i32 for 32- and 16-bit types (16-bit
  ones in the low half; results with the high half zero), i64 for 64-bit types, i32 for
  'pk16', i1 for 'mask' and 'scc', i32 lane index for 'lane'; each source is a scalar or an
  <L x iN> vector (all vector sources of one call have the same L; scalars among vectors
  are broadcast), and results have the sources' shape;
- the modifiers are the numpy op's keyword arguments; `mode` (the MODE register) is a
  compile-time int, so code is specialised for it;
- emit may add basic blocks (a cold path for NaN lanes): the caller continues at the builder's
  current block, where the results are available.

The families mirror core/isa/alu module for module (integer, floating, transcendental,
conversion, compare, scalar, packed, unfused, minmax); table.py holds the pipeline, kit.py the
shape-generic IR helpers, bits.py float classification and NaN rules, fused.py exact fma
helpers.
"""
from core.isa.native.alu.table import coverage, emitter
# Importing a family registers its emitters (packed, unfused and minmax reuse the bodies of
# the families before them: they come last).
from core.isa.native.alu import (  # noqa: F401,E402
    integer, floating, transcendental, conversion, compare, scalar, packed, unfused, minmax,
    scalar_float,
)

__all__ = ["coverage", "emitter"]
