"""The library's embedding init code: start the glue, or fail every call cleanly.

If the runtime cannot even be imported (a broken Python environment, or a Python that lacks
SoftGPU's dependencies loading the library with ctypes), cffi would let every export return
0 — HSA_STATUS_SUCCESS — after printing a note. Instead each export then answers
HSA_STATUS_ERROR and the reason is printed once, naming what is missing and how to get it.
This module imports nothing that could fail in such an environment (no numpy, no core/).
"""
import sys

from _softgpu_hsa import ffi, lib

from softgpu_shim import exports_table
from core.hsa_abi import Status

# The runtime's third-party imports (import name, pip name), as pyproject.toml lists them.
DEPENDENCIES = (("numpy", "numpy"), ("elftools", "pyelftools"), ("msgpack", "msgpack"))


def start(root):
    """Install the exports; `root` is the directory the package was found in."""
    missing = _missing()
    if missing and sys.flags.no_site:
        # The embedded Python of a C program starts without site (embedding_paths.c): packages
        # that only a .pth file or sitecustomize puts on the path are found after site's work.
        import site
        site.main()
        missing = _missing()
    if missing:
        reason = (f"this Python ({sys.executable}, {sys.version.split()[0]}) cannot import "
                  f"{', '.join(missing)}, which SoftGPU's runtime (found in {root}) needs. Install "
                  f"them into this Python (python3 -m pip install {' '.join(missing)}), or load the "
                  f"library from the Python environment SoftGPU was installed into")
        sys.stderr.write(f"softgpu: {reason}; every HSA call will fail.\n")
        _fail_every_call(reason)
        return
    try:
        from softgpu_shim import glue
        glue.install()
    except BaseException:  # the ABI boundary, before there is a runtime to report through
        import traceback
        error = sys.exc_info()[1]
        sys.stderr.write("softgpu: the runtime failed to start; every call will fail:\n"
                         + traceback.format_exc())
        _fail_every_call(f"the runtime failed to import: {type(error).__name__}: {error}")


def _missing():
    """The pip names of the runtime's dependencies this Python cannot import. Asked of the
    import system's finders without importing the packages (numpy alone takes longer than
    hsa_init), and without importlib.util, whose imports hsa_init would pay."""
    return [pip for name, pip in DEPENDENCIES if name not in sys.modules and not _findable(name)]


def _findable(name):
    return any(getattr(finder, "find_spec", None) and finder.find_spec(name, None) is not None
               for finder in sys.meta_path)


def _fail_every_call(reason):
    lib.sg_runtime_failed(reason.encode(errors="replace"))
    for name in exports_table.python_exports():
        ffi.def_extern(name=name, error=int(Status.ERROR))(_failed)


def _failed(*args):
    return int(Status.ERROR)
