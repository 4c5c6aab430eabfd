"""The C side of the library (softgpu_shim/native.h), as `ffi` and `lib`.

Inside the library the embedded module provides them. A plain Python process (the
engine's and loader's own tests) opens the built library instead, so both see one
signal table and one clock.
"""
import os

try:
    from _softgpu_hsa import ffi, lib  # noqa: F401  (running inside the library)
except ImportError:
    import cffi

    _ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ffi = cffi.FFI()
    with open(os.path.join(_ROOT, "softgpu_shim", "native.h")) as _f:
        ffi.cdef(_f.read())
    lib = ffi.dlopen(os.environ.get("SOFTGPU_LIBRARY",
                                    os.path.join(_ROOT, "build", "lib", "libhsa-runtime64.so.1")))
