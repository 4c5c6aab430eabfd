"""What SOFTGPU_CAPTURE, _KERNEL and _LIMIT ask for, read once per session by the packet
processing. Holds this invariant: it imports only the settings, so a session that captures
nothing never loads the recorder or numpy (hsa_init works without numpy; the kernels need it).
"""
from collections import namedtuple

from core import settings

# What SOFTGPU_CAPTURE, _KERNEL and _LIMIT ask for: the directory; pattern, "" or None for every
# kernel; limit, the bytes one capture may hold. A namedtuple: a dataclass imports inspect,
# which hsa_init has no other use for.
Request = namedtuple("Request", "directory pattern limit")


def requested():
    """The captures the SOFTGPU_CAPTURE* variables ask for, or None when SOFTGPU_CAPTURE is unset."""
    directory = settings.get("SOFTGPU_CAPTURE")
    if not directory:
        return None
    return Request(directory, settings.get("SOFTGPU_CAPTURE_KERNEL"), settings.get("SOFTGPU_CAPTURE_LIMIT"))
