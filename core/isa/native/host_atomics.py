"""Host atomics for the interpreter's atomics inside callouts: while a native dispatch's waves
stand at a callout on one thread, translated atomics (LLVM atomicrmw / cmpxchg) on other
threads may hit the same words, so the interpreter's read-modify-write of device memory there
stores through a compare-and-swap on the host (runner.c's sg_native_compare_exchange).

Holds these invariants:
- a word is stored only where it still holds the value the new one was computed from, so no
  translated atomic between the read and the store is lost (core.isa.interp.atomics.apply_shared
  retries from the word found);
- the compare-and-swap is sequentially consistent, as the translator's atomics are.
"""
import numpy as np

from core.native import ffi, lib


def compare_exchange(memory, words, expected, desired):
    """core.isa.interp.atomics.apply_shared's compare_exchange over `memory` (a numpy view of
    host memory as 4- or 8-byte words): a bool array of the words swapped; `expected` (a
    contiguous array of memory's dtype) receives the words found where not."""
    size = memory.dtype.itemsize
    addresses = np.uint64(memory.ctypes.data) + words.astype(np.uint64) * np.uint64(size)
    desired = np.ascontiguousarray(desired, memory.dtype)
    swapped = np.zeros(words.size, np.uint8)
    lib.sg_native_compare_exchange(ffi.from_buffer("uint64_t[]", addresses), ffi.from_buffer(expected),
                                   ffi.from_buffer(desired), ffi.from_buffer(swapped), words.size, size)
    return swapped.astype(bool)
