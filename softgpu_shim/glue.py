"""Glue between the exports and Python.

install() defines every Python-side export of the library. An export is either
implemented (a function in softgpu_shim.api registered with @export) or a
deliberate "unsupported" answer that returns HSA_STATUS_ERROR and records an
`unsupported` trace event. This module is the one place where exceptions become
hsa_status_t: nothing, not even an internal error, crosses the ABI.
"""
from _softgpu_hsa import ffi

from softgpu_shim import exports_table
from softgpu_shim.registry import IMPLEMENTATIONS, NEEDS_RUNTIME
from softgpu_shim.hsa_abi import Status
from core import runtime, trace
from core.errors import HsaError


def _entry(name, impl, needs_runtime):
    def entry(*args):
        try:
            if needs_runtime:
                runtime.require()
            status = impl(*args)
            return Status.SUCCESS if status is None else int(status)
        except HsaError as error:
            trace.error(name, error.status, str(error))
            return int(error.status)
        except BaseException as error:  # the ABI boundary: nothing may cross it
            trace.internal_error(name, error)
            return int(Status.ERROR)
    return entry


def _unsupported(name):
    def entry(*args):
        trace.unsupported(name)
        return Status.ERROR
    return entry


def install():
    import softgpu_shim.api  # noqa: F401  (registers every implementation)
    for name in exports_table.python_exports():
        impl = IMPLEMENTATIONS.get(name)
        entry = _unsupported(name) if impl is None else _entry(name, impl, NEEDS_RUNTIME[name])
        ffi.def_extern(name=name, error=int(Status.ERROR))(entry)


# Functions reached through an extension table rather than an export (the AMD loader's)
# get the same error mapping: softgpu_shim/api/system.py builds their C callbacks from these.
entry = _entry
unsupported_entry = _unsupported
