"""Reading arguments and writing results at the ABI edge, with the checks ROCr makes.

Holds this invariant: a host pointer the caller hands in is only ever touched through
the fault-free copies of softgpu_shim/safe_memory.c, so a NULL pointer is
HSA_STATUS_ERROR_INVALID_ARGUMENT and a dangling or read-only one is too, never a crash.
"""
from _softgpu_hsa import ffi, lib

from core.errors import InvalidArgument


def address(pointer):
    """The integer address a cdata pointer holds (NULL is 0)."""
    return int(ffi.cast("uintptr_t", pointer))


def require_pointer(pointer, what="pointer"):
    if pointer == ffi.NULL:
        raise InvalidArgument(f"{what} is NULL")
    return pointer


def _copy_out(pointer, source, size, what):
    if lib.sg_safe_copy(pointer, source, size) != 0:
        raise InvalidArgument(f"{what} does not point to {size} writable bytes")


def write(pointer, ctype, value, what="out-pointer"):
    """Store `value` as `ctype` at `pointer`."""
    require_pointer(pointer, what)
    box = ffi.new(ctype + " *", value)
    _copy_out(pointer, box, ffi.sizeof(ctype), what)


def write_bytes(pointer, data, size, what="out-pointer"):
    """Copy `data` into a fixed-size char array at `pointer`, NUL padded."""
    require_pointer(pointer, what)
    _copy_out(pointer, data[:size].ljust(size, b"\0"), size, what)


def write_struct(pointer, ctype, what="out-pointer", **fields):
    """Store a struct of `ctype` (e.g. "hsa_dim3_t") with `fields`, others zero."""
    require_pointer(pointer, what)
    box = ffi.new(ctype + " *")
    for name, value in fields.items():
        setattr(box, name, value)
    _copy_out(pointer, box, ffi.sizeof(ctype), what)


def read(pointer, ctype, what="pointer"):
    """The `ctype` value at `pointer`: a Python value for scalars, an owned copy for structs.

    (A struct is returned as a pointer to a fresh copy: cffi's `array[0]` of a struct
    would not keep its array alive.)"""
    require_pointer(pointer, what)
    copy = ffi.new(ctype + " *")
    if lib.sg_safe_copy(copy, pointer, ffi.sizeof(ctype)) != 0:
        raise InvalidArgument(f"{what} does not point to a readable {ctype}")
    return copy if ffi.typeof(copy).item.kind == "struct" else copy[0]


def read_array(pointer, ctype, count, what="array"):
    """A cdata copy of `count` `ctype` elements at `pointer`."""
    require_pointer(pointer, what)
    # Checked before the copy is allocated: an absurd count would otherwise ask for gigabytes.
    if not lib.sg_readable(pointer, count * ffi.sizeof(ctype)):
        raise InvalidArgument(f"{what} does not point to {count} readable {ctype}")
    box = ffi.new(f"{ctype}[{count}]")
    if count and lib.sg_safe_copy(box, pointer, ffi.sizeof(box)) != 0:
        raise InvalidArgument(f"{what} does not point to {count} readable {ctype}")
    return box


def read_bytes(pointer, size, what="buffer"):
    """The `size` bytes at `pointer`, checked readable before anything is allocated for them."""
    require_pointer(pointer, what)
    if not lib.sg_readable(pointer, size):
        raise InvalidArgument(f"{what} does not point to {size} readable bytes")
    box = ffi.new("char[]", size)
    if lib.sg_safe_copy(box, pointer, size) != 0:
        raise InvalidArgument(f"{what} does not point to {size} readable bytes")
    return ffi.buffer(box)[:]


def read_string(pointer, limit, what="string"):
    """The bytes of the NUL-terminated string at `pointer`, without the NUL.

    At most limit + 1 bytes are read: a longer string comes back cut at limit + 1 bytes,
    so the caller can tell it from any string it accepts.
    """
    require_pointer(pointer, what)
    box = ffi.new(f"char[{limit + 1}]")
    if lib.sg_safe_copy(box, pointer, limit + 1) == 0:     # one copy when all of it is readable
        return ffi.buffer(box)[:].split(b"\0", 1)[0]
    data = b""                                              # else byte by byte, up to the bad page
    while len(data) <= limit:
        if lib.sg_safe_copy(box, pointer + len(data), 1) != 0:
            raise InvalidArgument(f"{what} is not a readable string")
        if box[0] == b"\0":
            break
        data += box[0]
    return data


def callback(fn, what="callback"):
    if fn == ffi.NULL:
        raise InvalidArgument(f"{what} is NULL")
    return fn
