"""A translation's shared object in this process: dlopen'ed, its helper table filled.

Holds these invariants:
- the object is loaded from an open descriptor (/proc/self/fd/N, RTLD_LOCAL | RTLD_NOW) that
  stays open, like the object itself, for the life of the process: dlopen matches an object
  already loaded by its name before anything else, and a descriptor number reused for
  another translation would be taken for the first one;
- nothing of it is bound by name to the library: SoftGPU's helpers are not exported symbols,
  and the library may be loaded RTLD_LOCAL (Python, cffi), preloaded or linked. The
  translated code calls them through its table (runner_layout.HELPER_TABLE, in EXTERNALS
  order), which is filled here before the function's address is handed out (code that calls
  no helper has no table);
- loading imports no LLVM: ctypes alone.
"""
import ctypes
import os

from core.isa.native.runner_layout import EXTERNALS, HELPER_TABLE, external_addresses

_loaded = []        # (descriptor, handle) of every object loaded: they live as long as the process


def load(fd, function):
    """The address of `function` in the shared object open as `fd` (which this keeps)."""
    handle = ctypes.CDLL(f"/proc/self/fd/{fd}", mode=os.RTLD_LOCAL | os.RTLD_NOW)
    _loaded.append((fd, handle))     # only once loaded: a descriptor dlopen refused is reusable
    try:
        table = (ctypes.c_void_p * len(EXTERNALS)).in_dll(handle, HELPER_TABLE)
    except ValueError:
        table = None        # code that calls no helper (an empty kernel) has no table
    if table is not None:
        addresses = external_addresses()
        for slot, name in enumerate(EXTERNALS):
            table[slot] = addresses[name]
    return ctypes.cast(getattr(handle, function), ctypes.c_void_p).value
