"""Asynchronous copies and functions, and AMD profiling (hsa_amd_memory_async_copy*,
hsa_amd_async_function, hsa_amd_profiling_*)."""
from _softgpu_hsa import ffi

from core import runtime, signals, trace
from core.aql.async_ops import copy_bytes, copy_rect
from core.errors import InvalidArgument, InvalidSignal
from softgpu_shim.api.out import read, read_array, require_pointer, write, write_struct
from softgpu_shim.registry import export


def _dependencies(count, handles):
    deps = [int(s.handle) for s in read_array(handles, "hsa_signal_t", count, "dep_signals")] if count else []
    for handle in deps:
        if not signals.valid(handle):
            raise InvalidSignal(f"dependency signal {handle:#x} is not live")
    return deps


def _completion(signal):
    handle = int(signal.handle)
    if not signals.valid(handle):
        raise InvalidSignal(f"completion signal {handle:#x} is not live")
    return handle


@export("hsa_amd_memory_async_copy")
def hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, size, num_dep_signals, dep_signals,
                              completion_signal):
    session = runtime.require()
    require_pointer(dst, "dst")
    require_pointer(src, "src")
    session.agents.get(dst_agent.handle)
    session.agents.get(src_agent.handle)
    deps = _dependencies(num_dep_signals, dep_signals)
    done = _completion(completion_signal)
    dst_address, src_address = int(ffi.cast("uintptr_t", dst)), int(ffi.cast("uintptr_t", src))
    session.memory.require_accessible(dst_address, size, "copy destination")
    session.memory.require_accessible(src_address, size, "copy source")
    # The copy runs on the CPU: agent addresses of locked memory become host addresses.
    dst_address, src_address = session.memory.host_address(dst_address), session.memory.host_address(src_address)
    session.async_ops.submit(copy_bytes(dst_address, src_address, size), deps, done, "copy",
                             **_copy_details(session, dst_address, src_address, size))


@export("hsa_amd_memory_async_copy_rect")
def hsa_amd_memory_async_copy_rect(dst, dst_offset, src, src_offset, range_, copy_agent, direction,
                                   num_dep_signals, dep_signals, completion_signal):
    session = runtime.require()
    dst, dst_offset = read(dst, "hsa_pitched_ptr_t", "dst"), read(dst_offset, "hsa_dim3_t", "dst_offset")
    src, src_offset = read(src, "hsa_pitched_ptr_t", "src"), read(src_offset, "hsa_dim3_t", "src_offset")
    range_ = read(range_, "hsa_dim3_t", "range")
    session.agents.get(copy_agent.handle)
    if not 0 <= int(direction) <= 3:
        raise InvalidArgument(f"copy direction {int(direction)}")
    deps = _dependencies(num_dep_signals, dep_signals)
    done = _completion(completion_signal)
    width, height, depth = range_.x, range_.y, range_.z
    ends = []
    for pitched, offset, what in ((dst, dst_offset, "destination"), (src, src_offset, "source")):
        if pitched.base == ffi.NULL or width > pitched.pitch or (depth > 1 and pitched.slice < pitched.pitch * height):
            raise InvalidArgument(f"rectangle {width}x{height}x{depth} does not fit the {what} pitches")
        base = int(ffi.cast("uintptr_t", pitched.base))
        first = base + offset.z * pitched.slice + offset.y * pitched.pitch + offset.x
        last = first + (max(depth, 1) - 1) * pitched.slice + (max(height, 1) - 1) * pitched.pitch + width
        session.memory.require_accessible(first, last - first, f"rectangle {what}")
        ends.append((session.memory.host_address(first), pitched.pitch, pitched.slice))
    if width == 0 or height == 0 or depth == 0:
        raise InvalidArgument("empty copy rectangle")
    (d, dp, ds), (s, sp, ss) = ends
    session.async_ops.submit(copy_rect(d, dp, ds, s, sp, ss, width, height, depth), deps, done, "copy_rect",
                             **_copy_details(session, d, s, width * height * depth))


def _copy_details(session, dst, src, size):
    """bytes and direction (as HIP names them: HostToDevice, ...) for a copy's trace event."""
    if not trace.enabled():
        return {}
    side = ["Device" if session.memory.pointer_info(a).owner in session.agents.gpus else "Host"
            for a in (src, dst)]
    return {"bytes": int(size), "direction": f"{side[0]}To{side[1]}"}


@export("hsa_amd_async_function")
def hsa_amd_async_function(callback, arg):
    session = runtime.require()
    require_pointer(callback, "callback")
    session.async_ops.submit(lambda: callback(arg), (), 0, "function")


@export("hsa_amd_profiling_set_profiler_enabled")
def hsa_amd_profiling_set_profiler_enabled(queue, enable):
    runtime.require().queues.get(queue).profiling = bool(enable)


@export("hsa_amd_profiling_async_copy_enable")
def hsa_amd_profiling_async_copy_enable(enable):
    runtime.require().async_ops.copy_profiling = bool(enable)


@export("hsa_amd_profiling_get_dispatch_time")
def hsa_amd_profiling_get_dispatch_time(agent, signal, time):
    runtime.require().agents.get(agent.handle)
    start, end = signals.timestamps(int(signal.handle))
    write_struct(time, "hsa_amd_profiling_dispatch_time_t", "time", start=start, end=end)


@export("hsa_amd_profiling_get_async_copy_time")
def hsa_amd_profiling_get_async_copy_time(signal, time):
    start, end = signals.timestamps(int(signal.handle))
    write_struct(time, "hsa_amd_profiling_async_copy_time_t", "time", start=start, end=end)


@export("hsa_amd_profiling_convert_tick_to_system_domain")
def hsa_amd_profiling_convert_tick_to_system_domain(agent, agent_tick, system_tick):
    # Agents and the system share one clock (CLOCK_MONOTONIC ns), so ticks convert 1:1.
    runtime.require().agents.get(agent.handle)
    write(system_tick, "uint64_t", agent_tick, "system_tick")
