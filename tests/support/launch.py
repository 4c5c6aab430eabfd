"""`launch`: run one kernel of a code object file on numpy arguments (a test convenience).

Holds these invariants:
- the kernel sees what a real dispatch gives it: buffers in the arena, a kernarg segment laid
  out by the kernel's metadata (hidden arguments included, v4 and v5), a kernel dispatch
  packet in device memory that the dispatch pointer points at;
- every allocation made here (buffers, images, samplers) is freed before returning, also
  when the kernel faults.
"""
import weakref
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from core.isa.apertures import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
from core.isa.launch import run_dispatch
from core.isa.plan import dim3
from core.memory.arena import PAGE
from softgpu_shim.hsa_abi import KERNEL_DISPATCH_PACKET, PacketType
from tests.support import images

_loaded = weakref.WeakKeyDictionary()     # session -> {path: {kernel name: kernel_object}}


def load_code_object_for_tests(session, path, agent=None):
    """{kernel name: kernel_object} of the code object file `path`: reader from file ->
    executable -> load on `agent` (default: the first GPU) -> freeze, through the same code
    the hsa_* exports run; the executable lives until hsa_shut_down."""
    return _kernel_objects(_load(session, path, agent or session.agents.gpus[0]))


def _load(session, path, agent):
    """A frozen executable of the code object file `path` loaded on `agent`."""
    loader = session.loader
    with open(path, "rb") as f:
        reader = loader.reader_from_file(f.fileno())
    executable = loader.create_executable()
    executable.load(reader, agent)
    executable.freeze()
    loader.destroy_reader(reader)
    return executable


def _kernel_objects(executable):
    return {kernel.name: kernel.kernel_object
            for lco in executable.loaded for kernel in lco.kernels.values()}


def loaded_kernel(session, path, name):
    """The LoadedKernel `name` of the code object file `path`, loaded once per session on the
    first GPU whose ISA accepts it."""
    from core.loader.kernels import find_kernel
    files = _loaded.setdefault(session, {})
    if path not in files:
        files[path] = load_code_object_for_tests(session, path, _agent_for(session, path))
    objects = files[path]
    if name not in objects:
        raise KeyError(f"{path} has no kernel {name!r} (it has {sorted(objects)})")
    return find_kernel(session, objects[name])


def _agent_for(session, path):
    from core import target
    from core.loader.elf import CodeObject
    with open(path, "rb") as f:
        code = CodeObject(f.read())
    wanted = code.target
    for agent in session.agents.gpus:
        if target.compatible(wanted, agent.isa.target, code.generic_version):
            return agent
    raise LookupError(f"no GPU of the session's profile runs {wanted.isa_name} code")


def _scalar_bytes(value, size, type_name):
    if isinstance(value, np.ndarray):
        raw = value.tobytes()
    elif isinstance(value, np.generic):
        raw = value.tobytes()
    elif isinstance(value, float):
        is_half = (type_name or "").startswith("half")
        dtype = np.float16 if is_half else (np.float32 if size == 4 else np.float64)
        raw = np.array(value, dtype).tobytes()
    else:
        raw = int(value).to_bytes(size, "little", signed=int(value) < 0)
    return raw[:size].ljust(size, b"\0")


@dataclass(frozen=True)
class Local:
    """A dynamically sized __local pointer argument of `nbytes` bytes, for `launch`."""
    nbytes: int


def fresh_kernel(session, path, name):
    """A LoadedKernel of its own copy of the code object (program globals start as the file
    has them) on the first GPU whose ISA accepts it, and the executable to destroy after use."""
    from core.loader.kernels import find_kernel
    executable = _load(session, path, _agent_for(session, path))
    return find_kernel(session, _kernel_objects(executable)[name]), executable


def launch(session, path, name, args, grid, workgroup, *, private_segment_size=0,
           group_segment_size=0, global_sync=None, watchdog_instructions=None, with_stats=False,
           global_offset=(), kernel=None, at_end=None):
    """Load a code object, run one kernel on numpy arguments, return its outputs.

    args: one entry per kernel argument in the kernel's metadata order: a numpy array for a
    global (or constant) pointer argument — copied into a fresh arena buffer —, None for a
    NULL pointer, a Python or numpy scalar for a by-value argument, `Local(nbytes)` for a
    dynamic __local pointer, or a tests.support.images `Image` / `Sampler` for an image or
    sampler argument (made through the images extension's exports).
    The packet asks for the kernel's static LDS plus the Local arguments plus
    group_segment_size (HIP's dynamic shared memory, `extern __shared__`), as HIP fills it.
    global_sync: the queue's core.isa.global_sync.GlobalSync, for kernels using GWS or GDS.
    Hidden arguments (v4 hidden_global_offset_*, v5 block counts, group sizes, remainders,
    ...) are filled from grid/workgroup; global_offset (up to 3 ints, OpenCL's global work
    offset) goes to hidden_global_offset_*. grid/workgroup: int or tuple of up to 3 ints.
    Returns one numpy array per array or image argument (same dtype and shape; an image's
    pixels), read back after the dispatch, in argument order; with_stats=True returns
    (outputs, DispatchStats). Raises KernelFault like run_dispatch. kernel: a LoadedKernel to
    run instead of `name` of the session's shared copy of `path` (see fresh_kernel).
    at_end: the index (among the explicit arguments) of one global buffer to place so that
    its last byte is the last byte of the device arena's mapping: nothing is mapped after it
    (other buffers are followed by the kernarg block and by each other), so an access one
    byte past it can only fault (InvalidAllocation if the arena's last pages are in use).
    """
    kernel = kernel or loaded_kernel(session, path, name)
    grid, workgroup = dim3(grid), dim3(workgroup)
    global_offset = tuple(int(v) for v in global_offset) + (0,) * (3 - len(global_offset))
    arena = session.arena
    allocations = []
    objects = images.Objects(session, getattr(kernel, "agent", None))

    def allocate(size, last=False):
        info = {"what": f"launch({name})"}
        if last:
            # The last pages of the arena, taken by address; the array is placed at the end.
            pages = -(-max(size, 1) // PAGE) * PAGE
            block = arena.allocate_at(arena.base + arena.size - pages, pages, info=info)
            allocations.append(block)
            return SimpleNamespace(address=block.end - size)
        block = arena.allocate(max(size, 1), info=info)
        allocations.append(block)
        return block

    try:
        kernarg, buffers, group = _kernarg(kernel, args, grid, workgroup, global_offset,
                                           group_segment_size, arena, allocate, objects, at_end)
        kernarg_block = allocate(len(kernarg))
        arena.view(kernarg_block.address, len(kernarg))[:] = np.frombuffer(bytes(kernarg), np.uint8)
        packet_block = allocate(KERNEL_DISPATCH_PACKET.itemsize)
        arena.view(packet_block.address, KERNEL_DISPATCH_PACKET.itemsize)[:] = _packet(
            kernel, grid, workgroup, private_segment_size, group, kernarg_block.address)
        stats = run_dispatch(session, kernel, grid=grid, workgroup=workgroup,
                             kernarg_address=kernarg_block.address,
                             packet_address=packet_block.address,
                             private_segment_size=private_segment_size, group_segment_size=group,
                             global_sync=global_sync, watchdog_instructions=watchdog_instructions)
        outputs = []
        for block, array in buffers:
            if isinstance(array, images.Image):
                outputs.append(objects.read(block, array))
                continue
            out = np.empty_like(array)
            out.view(np.uint8).reshape(-1)[:] = arena.view(block.address, array.nbytes)
            outputs.append(out)
        return (outputs, stats) if with_stats else outputs
    finally:
        objects.release()
        for block in allocations:
            arena.free(block.address)


def _kernarg(kernel, args, grid, workgroup, global_offset, extra_lds, arena, allocate, objects, at_end=None):
    """(kernarg bytes, [(buffer allocation or image handle, array or Image)], the packet's
    group segment size) for `args`: static LDS, then the Local arguments, then `extra_lds`
    dynamic bytes."""
    explicit = [a for a in kernel.args if not a[".value_kind"].startswith("hidden_")]
    if len(explicit) != len(args):
        raise TypeError(f"{kernel.name} takes {len(explicit)} arguments, {len(args)} given")
    kernarg = bytearray(max(kernel.kernarg_segment_size, 16))
    buffers = []
    static_lds = kernel.descriptor.group_segment_fixed_size
    lds_end = static_lds
    values = iter(enumerate(args))
    for meta in kernel.args:
        kind, offset, size = meta[".value_kind"], meta[".offset"], meta[".size"]
        if kind.startswith("hidden_"):
            # Hidden arguments follow the explicit ones, so the dynamic LDS size is final.
            raw = _hidden(kind, size, grid, workgroup, global_offset,
                          lds_end - static_lds + extra_lds)
        else:
            position, value = next(values)
            if isinstance(value, Local):
                lds_end = -(-lds_end // 16) * 16          # dynamic LDS follows the static part
                raw = lds_end.to_bytes(size, "little")
                lds_end += value.nbytes
            elif value is None:
                raw = bytes(size)                         # a NULL pointer (or zero) argument
            elif isinstance(value, images.Image):
                handle = objects.image(value)
                buffers.append((handle, value))
                raw = handle.to_bytes(size, "little")
            elif isinstance(value, images.Sampler):
                raw = objects.sampler(value).to_bytes(size, "little")
            elif kind == "global_buffer":
                array = np.ascontiguousarray(value)
                block = allocate(array.nbytes, last=position == at_end)
                arena.view(block.address, array.nbytes)[:] = array.view(np.uint8).reshape(-1)
                buffers.append((block, array))
                raw = block.address.to_bytes(size, "little")
            else:
                raw = _scalar_bytes(value, size, meta.get(".type_name"))
        kernarg[offset:offset + size] = raw
    return kernarg, buffers, lds_end + extra_lds


def _packet(kernel, grid, workgroup, private_segment_size, group_segment_size, kernarg_address):
    """The kernel dispatch packet's 64 bytes, as a host would write them."""
    packet = np.zeros(1, KERNEL_DISPATCH_PACKET)
    packet["header"] = int(PacketType.KERNEL_DISPATCH)
    packet["setup"] = 3 if grid[2] > 1 else 2 if grid[1] > 1 else 1
    for axis, key in enumerate("xyz"):
        packet[f"workgroup_size_{key}"] = workgroup[axis]
        packet[f"grid_size_{key}"] = grid[axis]
    packet["private_segment_size"] = private_segment_size
    packet["group_segment_size"] = group_segment_size
    packet["kernel_object"] = kernel.kernel_object
    packet["kernarg_address"] = kernarg_address
    return packet.view(np.uint8)


def _hidden(kind, size, grid, workgroup, global_offset, dynamic_lds_bytes):
    """Bytes of one hidden kernel argument (code object v4 and v5 names)."""
    axis = {"x": 0, "y": 1, "z": 2}.get(kind[-1])
    if kind.startswith("hidden_block_count_"):
        value = grid[axis] // workgroup[axis]
    elif kind.startswith("hidden_group_size_"):
        value = workgroup[axis]
    elif kind.startswith("hidden_remainder_"):
        value = grid[axis] % workgroup[axis]
    elif kind.startswith("hidden_global_offset_"):
        value = global_offset[axis]
    elif kind == "hidden_grid_dims":
        value = 3 if grid[2] > 1 else 2 if grid[1] > 1 else 1
    elif kind == "hidden_dynamic_lds_size":
        value = dynamic_lds_bytes
    elif kind == "hidden_shared_base":
        value = SHARED_APERTURE_HI           # the apertures' high halves, as src_*_base read
    elif kind == "hidden_private_base":
        value = PRIVATE_APERTURE_HI
    else:
        # printf/hostcall/default queue/completion action, multigrid sync and heap are
        # absent (null) in this runtime.
        value = 0
    return int(value).to_bytes(size, "little")
