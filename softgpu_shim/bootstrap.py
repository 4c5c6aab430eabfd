"""The library's embedding init code: start the glue, or fail every call cleanly.

If the runtime cannot even be imported (a broken Python environment), cffi would let
every export return 0 — HSA_STATUS_SUCCESS — after printing a note. Instead each
export then answers HSA_STATUS_ERROR and the reason is printed once. This module
imports nothing that could fail in such an environment (no numpy, no core/).
"""
import sys

from _softgpu_hsa import ffi

from softgpu_shim import exports_table
from softgpu_shim.hsa_abi import Status


def start():
    try:
        from softgpu_shim import glue
        glue.install()
    except BaseException:  # the ABI boundary, before there is a runtime to report through
        import traceback
        sys.stderr.write("softgpu: the runtime failed to start; every call will fail:\n"
                         + traceback.format_exc())
        for name in exports_table.python_exports():
            ffi.def_extern(name=name, error=int(Status.ERROR))(_failed)


def _failed(*args):
    return int(Status.ERROR)
