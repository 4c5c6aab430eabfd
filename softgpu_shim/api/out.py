"""Reading arguments and writing results at the ABI edge, with the checks ROCr makes."""
from _softgpu_hsa import ffi

from core.errors import InvalidArgument


def require_pointer(pointer, what="pointer"):
    if pointer == ffi.NULL:
        raise InvalidArgument(f"{what} is NULL")
    return pointer


def write(pointer, ctype, value, what="out-pointer"):
    """Store `value` as `ctype` at `pointer` (NULL -> HSA_STATUS_ERROR_INVALID_ARGUMENT)."""
    require_pointer(pointer, what)
    ffi.cast(ctype + " *", pointer)[0] = value


def write_bytes(pointer, data, size, what="out-pointer"):
    """Copy `data` into a fixed-size char array at `pointer`, NUL padded."""
    require_pointer(pointer, what)
    ffi.memmove(pointer, data[:size].ljust(size, b"\0"), size)


def callback(fn, what="callback"):
    if fn == ffi.NULL:
        raise InvalidArgument(f"{what} is NULL")
    return fn
