"""The NT_AMDGPU_METADATA note (code object v3+): a msgpack map, checked and decoded.

Holds these invariants:
- the decoded map is kept whole (every key the compiler wrote, known to SoftGPU or not),
  so tools and tests see what llvm-readelf --notes shows;
- the fields the loader and dispatcher rely on are checked once, here: every kernel has
  a name, a descriptor symbol, integer segment sizes, and arguments whose offset, size and
  value kind are present. A note that breaks this is an InvalidCodeObject.
"""
import msgpack

from core.errors import InvalidCodeObject

NOTE_OWNER = "AMDGPU"
NT_AMDGPU_METADATA = 32

# Required per kernel by AMDGPUUsage "Code Object V3 Metadata", plus the ones with defaults we rely on.
_KERNEL_INTS = (".kernarg_segment_size", ".group_segment_fixed_size", ".private_segment_fixed_size",
                ".kernarg_segment_align", ".wavefront_size", ".sgpr_count", ".vgpr_count",
                ".max_flat_workgroup_size")
_ARG_INTS = (".offset", ".size")


def decode(desc):
    """The metadata map of a note's descriptor bytes; InvalidCodeObject when it is not valid."""
    try:
        data = msgpack.unpackb(bytes(desc), raw=False, strict_map_key=False)
    except (ValueError, msgpack.UnpackException, TypeError) as error:
        raise InvalidCodeObject(f"AMDGPU metadata note is not msgpack: {error}")
    if not isinstance(data, dict):
        raise InvalidCodeObject("AMDGPU metadata is not a map")
    kernels = data.get("amdhsa.kernels", [])
    if not isinstance(kernels, list):
        raise InvalidCodeObject("amdhsa.kernels is not a list")
    for kernel in kernels:
        _check_kernel(kernel)
    return data


def _check_kernel(kernel):
    if not isinstance(kernel, dict):
        raise InvalidCodeObject("a kernel's metadata is not a map")
    for key in (".name", ".symbol"):
        if not isinstance(kernel.get(key), str):
            raise InvalidCodeObject(f"kernel metadata lacks {key}")
    for key in _KERNEL_INTS:
        if not _natural(kernel.get(key)):
            raise InvalidCodeObject(f"kernel {kernel['.name']}: {key} is missing or not a natural number")
    args = kernel.get(".args", [])
    if not isinstance(args, list):
        raise InvalidCodeObject(f"kernel {kernel['.name']}: .args is not a list")
    for arg in args:
        if not isinstance(arg, dict) or not isinstance(arg.get(".value_kind"), str) \
                or not all(_natural(arg.get(key)) for key in _ARG_INTS):
            raise InvalidCodeObject(f"kernel {kernel['.name']}: an argument lacks .offset/.size/.value_kind")


def _natural(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def kernels_by_symbol(data):
    """{descriptor symbol name ("foo.kd"): that kernel's metadata map}."""
    return {kernel[".symbol"]: kernel for kernel in data.get("amdhsa.kernels", [])}
