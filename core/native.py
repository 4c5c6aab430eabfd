"""The C side of the library (softgpu_shim/native.h), as `ffi` and `lib`.

Inside the library the embedded module provides them. A plain Python process (the
engine's and loader's own tests) loads the built library and calls one export that
needs no session (hsa_status_string): that starts the library's embedded module in
this very interpreter, so both sides share one signal table and one clock. (The
sg_* functions are not exported symbols: the version script exports only ROCr's.)
"""
try:
    from _softgpu_hsa import ffi, lib  # noqa: F401  (running inside the library)
except ImportError:
    import ctypes

    from core import settings
    from core.location import library_path
    _library = ctypes.CDLL(settings.get("SOFTGPU_LIBRARY") or library_path())
    # The call only starts the embedded module; the glue answers it without binding the
    # exports, which would import core/ modules that are importing this one right now.
    BOOTSTRAPPING = True
    _library.hsa_status_string(0, ctypes.byref(ctypes.c_char_p()))
    BOOTSTRAPPING = False
    from _softgpu_hsa import ffi, lib  # noqa: F401,E402
