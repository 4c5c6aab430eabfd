"""Asynchronous copies and functions, copy engines, and AMD profiling
(hsa_amd_memory_async_copy*, hsa_amd_memory_copy_engine_status and its kin,
hsa_amd_async_function, hsa_amd_profiling_*).

Arguments are checked in ROCr's order (hsa_ext_amd.cpp): NULL pointers and a dependency
count that disagrees with its array first, then agents, then dependency signals, then the
completion signal (handle 0 is INVALID_ARGUMENT, a dead one INVALID_SIGNAL). An empty copy
succeeds without touching its completion signal, as in ROCr.
"""
from _softgpu_hsa import ffi

from core import copy_engines, runtime, signals, trace
from core.aql.async_ops import copy_bytes, copy_rect
from core.errors import HsaError, InvalidAgent, InvalidArgument
from softgpu_shim.api.out import address, read, read_array, require_pointer, write, write_struct
from softgpu_shim.hsa_abi import HsaAmdCopyDirection as Direction
from softgpu_shim.registry import export

# Longer lists than this cannot name distinct live signals (the C table holds 262144).
MAX_DEPENDENCIES = 262144
# SDMA rectangle copies need dword-aligned bases, pitches and slices.
RECT_ALIGN = 4


def _check_dependency_count(count, handles):
    if (count == 0) != (handles == ffi.NULL) or count > MAX_DEPENDENCIES:
        raise InvalidArgument(f"num_dep_signals {count} and dep_signals {'NULL' if handles == ffi.NULL else 'set'} "
                              "disagree")


def _signals(session, count, handles, completion_signal):
    """(dependency handles, completion handle), each converted as ROCr converts signals."""
    deps = [int(s.handle) for s in read_array(handles, "hsa_signal_t", count, "dep_signals")] if count else []
    for handle in deps:
        session.signals.require(handle)
    done = int(completion_signal.handle)
    session.signals.require(done)
    return deps, done


def _profile_copy(session, done):
    """ROCr records the copy agent on a completion signal only while copy profiling is on;
    hsa_amd_profiling_get_async_copy_time needs that record."""
    if session.async_ops.copy_profiling:
        session.signals.info(done).copy_profiled = True


@export("hsa_amd_memory_async_copy")
def hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, size, num_dep_signals, dep_signals,
                              completion_signal):
    session, deps, done, dst_agent, src_agent = _check_copy(dst, dst_agent, src, src_agent, num_dep_signals,
                                                            dep_signals, completion_signal)
    if size:
        _submit_copy(session, dst, src, size, deps, done)


@export("hsa_amd_memory_async_copy_on_engine")
def hsa_amd_memory_async_copy_on_engine(dst, dst_agent, src, src_agent, size, num_dep_signals, dep_signals,
                                        completion_signal, engine_id, force_copy_on_sdma):
    """ROCr 6.0+: the checks of hsa_amd_memory_async_copy, then (for a copy of some bytes) the
    engine's (core.copy_engines.check_engine); the copy itself runs as any other."""
    session, deps, done, dst_agent, src_agent = _check_copy(dst, dst_agent, src, src_agent, num_dep_signals,
                                                            dep_signals, completion_signal)
    if size:
        copy_engines.check_engine(dst_agent, src_agent, engine_id, bool(force_copy_on_sdma))
        _submit_copy(session, dst, src, size, deps, done)


def _check_copy(dst, dst_agent, src, src_agent, num_dep_signals, dep_signals, completion_signal):
    session = runtime.require()
    require_pointer(dst, "dst")
    require_pointer(src, "src")
    _check_dependency_count(num_dep_signals, dep_signals)
    dst_agent = session.agents.get(dst_agent.handle)
    src_agent = session.agents.get(src_agent.handle)
    deps, done = _signals(session, num_dep_signals, dep_signals, completion_signal)
    return session, deps, done, dst_agent, src_agent


def _submit_copy(session, dst, src, size, deps, done):
    dst_address, src_address = address(dst), address(src)
    session.memory.require_accessible(dst_address, size, "copy destination")
    session.memory.require_accessible(src_address, size, "copy source")
    # The copy runs on the CPU: agent addresses of locked memory become host addresses.
    dst_address, src_address = session.memory.host_address(dst_address), session.memory.host_address(src_address)
    _profile_copy(session, done)
    session.async_ops.submit(copy_bytes(dst_address, src_address, size), deps, done, "copy",
                             **_copy_details(session, dst_address, src_address, size))


@export("hsa_amd_memory_copy_engine_status")
def hsa_amd_memory_copy_engine_status(dst_agent, src_agent, engine_ids_mask):
    """ROCr 6.0+ (HIP 6.4 drops a GPU whose query fails): agents first, then the agents'
    pairing and the mask (core.copy_engines.engine_status), then the out-pointer."""
    session = runtime.require()
    dst, src = session.agents.get(dst_agent.handle), session.agents.get(src_agent.handle)
    mask = copy_engines.engine_status(dst, src)
    write(engine_ids_mask, "uint32_t", mask, "engine_ids_mask")


@export("hsa_amd_memory_get_preferred_copy_engine")
def hsa_amd_memory_get_preferred_copy_engine(dst_agent, src_agent, recommended_ids_mask):
    session = runtime.require()
    dst, src = session.agents.get(dst_agent.handle), session.agents.get(src_agent.handle)
    mask = copy_engines.preferred_engines(dst, src)
    write(recommended_ids_mask, "uint32_t", mask, "recommended_ids_mask")


def _check_rect(dst, dst_offset, src, src_offset, range_):
    """The SDMA engine's rules, in ROCr's order: dword alignment, then the box inside the pitches."""
    for pitched in (dst, src):
        if address(pitched.base) % RECT_ALIGN:
            raise InvalidArgument("a rectangle copy's base address is not 4-byte aligned")
    if dst.pitch % RECT_ALIGN or src.pitch % RECT_ALIGN:
        raise InvalidArgument("a rectangle copy's pitch is not a multiple of 4")
    if dst.slice % RECT_ALIGN or src.slice % RECT_ALIGN:
        raise InvalidArgument("a rectangle copy's slice pitch is not a multiple of 4")
    if src_offset.x + range_.x > src.pitch or dst_offset.x + range_.x > dst.pitch:
        raise InvalidArgument("a rectangle copy's rows are wider than the pitch")
    for pitched, offset in ((src, src_offset), (dst, dst_offset)):
        if pitched.slice and (pitched.pitch == 0 or offset.y + range_.y > pitched.slice // pitched.pitch):
            raise InvalidArgument("a rectangle copy's rows do not fit in a slice")
    if range_.z > 1 and (src.slice == 0 or dst.slice == 0):
        raise InvalidArgument("a rectangle copy of several slices needs slice pitches")


@export("hsa_amd_memory_async_copy_rect")
def hsa_amd_memory_async_copy_rect(dst, dst_offset, src, src_offset, range_, copy_agent, direction,
                                   num_dep_signals, dep_signals, completion_signal):
    session = runtime.require()
    for pointer, what in ((dst, "dst"), (src, "src"), (dst_offset, "dst_offset"), (src_offset, "src_offset"),
                          (range_, "range")):
        require_pointer(pointer, what)
    _check_dependency_count(num_dep_signals, dep_signals)
    if int(direction) == Direction.hsaHostToHost:
        raise InvalidArgument("hsaHostToHost: rectangle copies run on a GPU's copy engine")
    if not session.agents.get(copy_agent.handle).is_gpu:
        raise InvalidAgent("rectangle copies run on a GPU agent's copy engine")
    deps, done = _signals(session, num_dep_signals, dep_signals, completion_signal)
    dst, dst_offset = read(dst, "hsa_pitched_ptr_t", "dst"), read(dst_offset, "hsa_dim3_t", "dst_offset")
    src, src_offset = read(src, "hsa_pitched_ptr_t", "src"), read(src_offset, "hsa_dim3_t", "src_offset")
    range_ = read(range_, "hsa_dim3_t", "range")
    if range_.x == 0 or range_.y == 0 or range_.z == 0:
        return
    _check_rect(dst, dst_offset, src, src_offset, range_)
    width, height, depth = range_.x, range_.y, range_.z
    ends = []
    for pitched, offset, what in ((dst, dst_offset, "destination"), (src, src_offset, "source")):
        base = address(pitched.base)
        first = base + offset.z * pitched.slice + offset.y * pitched.pitch + offset.x
        last = first + (depth - 1) * pitched.slice + (height - 1) * pitched.pitch + width
        session.memory.require_accessible(first, last - first, f"rectangle {what}")
        ends.append((session.memory.host_address(first), pitched.pitch, pitched.slice))
    (d, dp, ds), (s, sp, ss) = ends
    _profile_copy(session, done)
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
    session = runtime.require()
    require_pointer(time, "time")
    found = session.agents.get(agent.handle)
    session.signals.require(int(signal.handle))
    if not found.is_gpu:
        raise InvalidAgent("dispatch times are kept by GPU agents only")
    start, end = signals.timestamps(int(signal.handle))
    write_struct(time, "hsa_amd_profiling_dispatch_time_t", "time", start=start, end=end)


@export("hsa_amd_profiling_get_async_copy_time")
def hsa_amd_profiling_get_async_copy_time(signal, time):
    session = runtime.require()
    require_pointer(time, "time")
    if not session.signals.info(int(signal.handle)).copy_profiled:
        raise HsaError("the signal completed no async copy while copy profiling was enabled")
    start, end = signals.timestamps(int(signal.handle))
    write_struct(time, "hsa_amd_profiling_async_copy_time_t", "time", start=start, end=end)


@export("hsa_amd_profiling_convert_tick_to_system_domain")
def hsa_amd_profiling_convert_tick_to_system_domain(agent, agent_tick, system_tick):
    session = runtime.require()
    require_pointer(system_tick, "system_tick")
    if not session.agents.get(agent.handle).is_gpu:
        raise InvalidAgent("ticks are translated for GPU agents only")
    # Agents and the system share one clock (CLOCK_MONOTONIC ns), so ticks convert 1:1.
    write(system_tick, "uint64_t", agent_tick, "system_tick")
