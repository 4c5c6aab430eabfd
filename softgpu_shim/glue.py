"""Glue between the exports and Python.

install() defines every Python-side export of the library. An export is either
implemented (a function in softgpu_shim.api registered with @export, bound on its first
call with only its own module imported) or a deliberate "unsupported" answer that
returns HSA_STATUS_ERROR and records an `unsupported` trace event. This module is the one place where exceptions become
hsa_status_t: nothing, not even an internal error, crosses the ABI.
"""
import importlib
import sys
import threading
import time

from _softgpu_hsa import ffi

from softgpu_shim import exports_table
from softgpu_shim.api.index import MODULE_OF
from softgpu_shim.registry import IMPLEMENTATIONS, NEEDS_RUNTIME
from core.hsa_abi import Status
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

    def traced_entry(*args):
        # Every call is a slice of its thread's track in a timeline; only while tracing.
        if not trace.enabled():
            status = entry(*args)
            trace.note("api", api=name, status=status)      # the flight recorder: always
            return status
        start = time.monotonic_ns()
        status = entry(*args)
        trace.span("api", start, api=name, status=status)
        return status
    return traced_entry


def _unsupported(name):
    def entry(*args):
        trace.unsupported(name)
        return Status.ERROR
    return entry


def install():
    """Define every Python-side export. Runs as the library's embedding init code, so it
    must not fail and must not import the runtime: a plain Python process reaches the
    library while it is still importing core/ (core.native), and importing softgpu_shim.api
    here would then import half-initialized modules. Implementations are bound on first call."""
    for name in exports_table.python_exports():
        ffi.def_extern(name=name, error=int(Status.ERROR))(_deferred(name))


_bound = {}
_bind_lock = threading.Lock()


def _deferred(name):
    def entry(*args):
        bound = _bound.get(name)
        if bound is None:
            if getattr(sys.modules.get("core.native"), "BOOTSTRAPPING", False):
                return int(Status.ERROR)  # core.native starting the library: see there
            try:
                bound = _bind(name)
            except BaseException as error:  # the ABI boundary: an import failure too
                trace.internal_error(exports_table.reported_name(name), error)
                return int(Status.ERROR)
        return bound(*args)
    return entry


def _bind(name):
    with _bind_lock:
        bound = _bound.get(name)
        if bound is None:
            impl = implementation(name)
            reported = exports_table.reported_name(name)
            bound = _bound[name] = (_unsupported(reported) if impl is None
                                    else _entry(reported, impl, NEEDS_RUNTIME[name]))
        return bound


def implementation(name):
    """The registered implementation of `name` (an export, an internal entry or an AMD
    loader table function), importing only the api module that defines it; None if
    nothing implements it."""
    module = MODULE_OF.get(name)
    if module is not None:
        importlib.import_module(f"softgpu_shim.api.{module}")
    return IMPLEMENTATIONS.get(name)


# Functions reached through an extension table rather than an export (the AMD loader's)
# get the same error mapping: softgpu_shim/api/system.py builds their C callbacks from these.
entry = _entry
unsupported_entry = _unsupported
