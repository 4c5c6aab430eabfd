"""A translation's shared object in this process: dlopen'ed, its helper table filled.

Holds these invariants:
- the object is loaded from an open descriptor (RTLD_LOCAL | RTLD_NOW), which is closed once
  it is loaded or refused: a process may load thousands of translations, more than its
  descriptor limit (often 1024). dlopen takes an object whose name matches one already loaded
  for that one, before it opens anything, and /proc/self/fd/N names another file once N is
  reused; so each object is loaded through a name of its own, a symbolic link to
  /proc/self/fd/N in a private folder made and removed around the load (nothing is left
  behind, whatever way the process ends). dlopen's other match, by device and inode, cannot
  confuse two objects: a loaded object's mapping keeps its file, and so its inode, alive;
- nothing of it is bound by name to the library: SoftGPU's helpers are not exported symbols,
  and the library may be loaded RTLD_LOCAL (Python, cffi), preloaded or linked. The
  translated code calls them through its table (runner_layout.HELPER_TABLE, in EXTERNALS
  order), which is filled here before the function's address is handed out (code that calls
  no helper has no table);
- loading imports no LLVM: ctypes alone.
"""
import ctypes
import itertools
import os
import tempfile

from core.isa.native.runner_layout import EXTERNALS, HELPER_TABLE, external_addresses

_loaded = []                # the handle of every object loaded: they live as long as the process
_names = itertools.count()  # with the pid, names no two loads of this process share


def load(fd, function):
    """The address of `function` in the shared object open as `fd` (closed on return)."""
    try:
        folder = tempfile.mkdtemp(prefix="softgpu-load-")
        try:
            name = os.path.join(folder, f"{os.getpid()}-{next(_names)}.so")
            os.symlink(f"/proc/self/fd/{fd}", name)
            try:
                handle = ctypes.CDLL(name, mode=os.RTLD_LOCAL | os.RTLD_NOW)
            finally:
                os.unlink(name)
        finally:
            os.rmdir(folder)
    finally:
        os.close(fd)
    _loaded.append(handle)
    try:
        table = (ctypes.c_void_p * len(EXTERNALS)).in_dll(handle, HELPER_TABLE)
    except ValueError:
        table = None        # code that calls no helper (an empty kernel) has no table
    if table is not None:
        addresses = external_addresses()
        for slot, name in enumerate(EXTERNALS):
            table[slot] = addresses[name]
    return ctypes.cast(getattr(handle, function), ctypes.c_void_p).value
