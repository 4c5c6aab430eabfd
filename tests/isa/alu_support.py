"""Helpers for the ALU tests: run an op on bit patterns, make and read float bit patterns,
and the C library's fma as the reference for fused multiply-add.

The ALU's tests run against both implementations: `run` calls the numpy op, or, while the
`alu_impl` fixture (tests/isa/conftest.py) selects "native", the op's LLVM emitter JIT-compiled
over the same arrays (wave32 vectors for VALU ops, scalars for SALU ops); a test of an op
without an emitter is skipped there."""
import ctypes
import ctypes.util
from functools import cache

import numpy as np
import pytest
from hypothesis import strategies as st

from core.isa import alu
from tests.support.native_alu import compile_all, native_op

_IMPLEMENTATION = ["numpy"]


def use(implementation):
    """Select "numpy" or "native" for `lookup`, `run` and `one`."""
    assert implementation in ("numpy", "native")
    _IMPLEMENTATION[0] = implementation
    if implementation == "native":
        _compile_common_forms()


def _native(name):
    return native_op(name, None if name.startswith("s_") else 32)


def target_facts(op):
    """The target facts an op takes besides its sources (core/isa/alu/table.py): the 8-bit
    float flavour of uses_fp8 ops, OCP's here (tests/isa/test_fp8_conversions.py runs both)."""
    return {"fp8": "ocp"} if op.uses_fp8 else {}


class _WithFacts:
    """An op called with its target facts filled in, otherwise the op itself."""

    def __init__(self, op):
        self._op = op

    def __getattr__(self, name):
        return getattr(self._op, name)

    def __call__(self, *srcs, **mods):
        return self._op(*srcs, **{**target_facts(self._op), **mods})


@cache
def _compile_common_forms():
    """Every op's plain form (and integer clamp) in one batch, before any test runs:
    hypothesis times each example, and a first call that compiled would miss its deadline."""
    requests = []
    for name in sorted(alu.coverage()):
        op = _native(name)
        if op is not None:
            facts = target_facts(op)
            requests += [(op, facts)] + ([(op, {"clamp": True, **facts})] if op.int_clamp else [])
    compile_all(requests)


def lookup(name):
    """The op under test, called like core.isa.alu.lookup(name)'s."""
    op = alu.lookup(name) if _IMPLEMENTATION[0] == "numpy" else _native(name)
    if op is None:
        pytest.skip(f"{name} has no native emitter")
    return _WithFacts(op) if op.uses_fp8 else op


_libm = ctypes.CDLL(ctypes.util.find_library("m"))
_libm.fma.restype = ctypes.c_double
_libm.fma.argtypes = [ctypes.c_double] * 3
_libm.fmaf.restype = ctypes.c_float
_libm.fmaf.argtypes = [ctypes.c_float] * 3


def run(name, *srcs, **mods):
    """All results of op `name` on the given sources."""
    return lookup(name)(*srcs, **mods)


def one(name, *srcs, **mods):
    return run(name, *srcs, **mods)[0]


def f32(*values):
    return np.array(values, dtype=np.float32).view(np.uint32)


def f64(*values):
    return np.array(values, dtype=np.float64).view(np.uint64)


def f16(*values):
    return np.array(values, dtype=np.float16).view(np.uint16).astype(np.uint32)


def as_f32(b):
    return np.asarray(b, dtype=np.uint32).view(np.float32)


def as_f64(b):
    return np.asarray(b, dtype=np.uint64).view(np.float64)


def as_f16(b):
    return (np.asarray(b, dtype=np.uint32) & 0xFFFF).astype(np.uint16).view(np.float16)


def u32(*values):
    return np.array([v & 0xFFFFFFFF for v in values], dtype=np.uint32)


def u64(*values):
    return np.array([v & 0xFFFFFFFFFFFFFFFF for v in values], dtype=np.uint64)


def libm_fma_f64(a, b, c):
    return np.array([_libm.fma(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())])


def libm_fma_f32(a, b, c):
    return np.array([_libm.fmaf(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())],
                    dtype=np.float32)


def same_bits_or_both_nan(got, want):
    """Elementwise: identical values (signed zeros distinct) or both NaN."""
    got, want = np.asarray(got), np.asarray(want)
    both_nan = np.isnan(got) & np.isnan(want)
    return both_nan | (got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}"))


word32 = st.integers(0, 2**32 - 1)
word64 = st.integers(0, 2**64 - 1)
# Integers that hit the edges: 0, 1, INT_MIN, INT_MAX, all ones, and everything else.
edgy32 = st.one_of(st.sampled_from([0, 1, 2, 31, 32, 33, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFF,
                                    0x800000]), word32)


def s32(x):
    x = int(x) & 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def s16(x):
    x = int(x) & 0xFFFF
    return x - (1 << 16) if x >> 15 else x
