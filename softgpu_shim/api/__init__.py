"""Python implementations of the exports, one module per API area.

Each function receives the export's cffi arguments, converts them to Python values,
calls core/, and writes results through out-pointers (softgpu_shim.api.out).
"""
from softgpu_shim.api import system  # noqa: F401
from softgpu_shim.api import signals  # noqa: F401
from softgpu_shim.api import memory  # noqa: F401
from softgpu_shim.api import queues  # noqa: F401
from softgpu_shim.api import loader  # noqa: F401
from softgpu_shim.api import agents  # noqa: F401
from softgpu_shim.api import async_ops  # noqa: F401
from softgpu_shim.api import system_events  # noqa: F401
from softgpu_shim.api import images  # noqa: F401
from softgpu_shim.api import ipc_svm  # noqa: F401
from softgpu_shim.api import finalizer  # noqa: F401
