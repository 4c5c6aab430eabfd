"""hsa_init, hsa_shut_down, hsa_status_string."""
from _softgpu_hsa import ffi

from core import runtime
from core.errors import InvalidArgument
from softgpu_shim.api.out import write
from softgpu_shim.hsa_abi import Status, ExtStatus
from softgpu_shim.registry import export

# hsa_status_string hands out pointers that must outlive the call: keep them here.
_STATUS_TEXT = {}


def status_text(status):
    """ROCr-style text for a status: the enumerator name and what it means."""
    for enum in (Status, ExtStatus):
        try:
            name = enum(status).name
        except ValueError:
            continue
        prefix = "HSA_STATUS_" if enum is Status else "HSA_EXT_STATUS_"
        return f"{prefix}{name}"
    return None


@export("hsa_init", needs_runtime=False)
def hsa_init():
    runtime.init()


@export("hsa_shut_down", needs_runtime=False)
def hsa_shut_down():
    runtime.shut_down()


@export("hsa_status_string", needs_runtime=False)
def hsa_status_string(status, status_string):
    text = status_text(status)
    if text is None:
        raise InvalidArgument(f"{status:#x} is not an HSA status")
    if status not in _STATUS_TEXT:
        _STATUS_TEXT[status] = ffi.new("char[]", text.encode())
    write(status_string, "const char *", _STATUS_TEXT[status])
