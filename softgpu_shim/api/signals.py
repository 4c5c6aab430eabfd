"""Signal exports that return hsa_status_t: creation, destruction, value pointer,
async handlers, signal groups, IPC. (Value operations and waits are C fast paths.)

IPC signals work across the processes of one machine (core.signals): a signal created with
HSA_AMD_SIGNAL_IPC has a handle another process attaches, as in ROCr.
"""
from _softgpu_hsa import ffi

from core import runtime, signals
from core.errors import InvalidArgument, InvalidSignal
from core.memory.ipc import HANDLE_WORDS
from core.signals import BUSY_WAIT, INTERRUPT
from softgpu_shim.api.ipc_svm import read_handle
from softgpu_shim.api.out import callback, read_array, require_pointer, write, write_bytes, write_struct
from core.hsa_abi import HsaAmdSignalAttribute
from softgpu_shim.registry import export

# Longer arrays than this cannot name distinct live objects (there are fewer agents, and
# the C table holds 262144 signals); refusing them keeps a garbage count from making
# the runtime copy gigabytes.
MAX_CONSUMERS = 4096
MAX_GROUP_SIGNALS = 262144


def _consumers(count, consumers, attributes):
    """Agent handles of a consumers array, read as ROCr reads it: only for a signal that may
    become an InterruptSignal (neither IPC nor GPU-only). NULL with count > 0, or a duplicate,
    is INVALID_ARGUMENT; the agents themselves are not checked (ROCr keeps them as hints)."""
    if count == 0 or attributes & (HsaAmdSignalAttribute.IPC | HsaAmdSignalAttribute.AMD_GPU_ONLY):
        return ()
    if count > MAX_CONSUMERS:
        raise InvalidArgument(f"{count} consumers: more than there can be agents")
    agents = read_array(consumers, "hsa_agent_t", count, "consumers")
    handles = tuple(agent.handle for agent in agents)
    if len(set(handles)) != count:
        raise InvalidArgument("consumers lists an agent twice")
    return handles


def _create(initial_value, num_consumers, consumers, attributes, signal):
    require_pointer(signal, "signal")
    handle = runtime.require().signals.create(initial_value, _consumers(num_consumers, consumers, attributes),
                                              attributes)
    try:
        write_struct(signal, "hsa_signal_t", "signal", handle=handle)
    except InvalidArgument:
        runtime.require().signals.destroy(handle)
        raise


@export("hsa_signal_create")
def hsa_signal_create(initial_value, num_consumers, consumers, signal):
    _create(initial_value, num_consumers, consumers, 0, signal)


@export("hsa_amd_signal_create")
def hsa_amd_signal_create(initial_value, num_consumers, consumers, attributes, signal):
    # HSA_AMD_SIGNAL_AMD_GPU_ONLY and HSA_AMD_SIGNAL_IPC choose ROCr's signal class (see
    # core.signals.kind_for); unknown bits are ignored, as ROCr does.
    _create(initial_value, num_consumers, consumers, attributes, signal)


@export("hsa_signal_destroy")
def hsa_signal_destroy(signal):
    runtime.require().signals.destroy(signal.handle)


@export("hsa_amd_signal_value_pointer")
def hsa_amd_signal_value_pointer(signal, value_ptr):
    require_pointer(value_ptr, "value_ptr")
    if runtime.require().signals.info(signal.handle).kind != BUSY_WAIT:
        # ROCr hands out value pointers of its busy-wait signals only.
        raise InvalidArgument("an interrupt signal (or a doorbell) has no value pointer in ROCr")
    write(value_ptr, "int64_t *", ffi.cast("int64_t *", signals.value_address(signal.handle)))


@export("hsa_amd_signal_async_handler")
def hsa_amd_signal_async_handler(signal, cond, value, handler, arg):
    callback(handler, "handler")
    session = runtime.require()
    if session.signals.info(signal.handle).kind != INTERRUPT:
        # ROCr's handler thread sleeps on interrupt events: busy-wait signals are refused.
        raise InvalidSignal("async handlers need an interrupt signal (no IPC/GPU-only attribute, "
                            "no consumer list without the CPU)")

    def call(seen):
        return bool(handler(seen, arg))
    session.signals.handlers.register(signal.handle, cond, value, call)


@export("hsa_signal_group_create")
def hsa_signal_group_create(num_signals, signals_, num_consumers, consumers, signal_group):
    if num_signals == 0:
        raise InvalidArgument("a signal group needs at least one signal")
    if num_signals > MAX_GROUP_SIGNALS:
        raise InvalidArgument(f"{num_signals} signals: more than can be live")
    handles = [s.handle for s in read_array(signals_, "hsa_signal_t", num_signals, "signals")]
    if num_consumers > MAX_CONSUMERS:
        raise InvalidArgument(f"{num_consumers} consumers: more than there can be agents")
    agents = [a.handle for a in read_array(consumers, "hsa_agent_t", num_consumers, "consumers")] \
        if num_consumers else []
    session = runtime.require()
    group = session.signals.create_group(handles, agents)
    # ROCr writes the group without checking the pointer: a NULL one fails last here.
    try:
        write_struct(signal_group, "hsa_signal_group_t", "signal_group", handle=group)
    except InvalidArgument:
        session.signals.destroy_group(group)
        raise


@export("hsa_signal_group_destroy")
def hsa_signal_group_destroy(signal_group):
    runtime.require().signals.destroy_group(signal_group.handle)


def _group_wait(signal_group, conditions, compare_values, signal, value):
    handles = runtime.require().signals.group(signal_group.handle)
    require_pointer(signal, "signal")
    require_pointer(value, "value")
    count = len(handles)
    index, seen = signals.wait_any(handles, list(read_array(conditions, "int32_t", count, "conditions")),
                                   list(read_array(compare_values, "int64_t", count, "compare_values")))
    if index is None:
        # ROCr's wait_any ends with an out-of-range index, which the group wait answers so.
        raise InvalidArgument("a signal of the group was destroyed during the wait")
    write_struct(signal, "hsa_signal_t", "signal", handle=handles[index])
    write(value, "int64_t", seen, "value")


@export("hsa_signal_group_wait_any_scacquire")
def hsa_signal_group_wait_any_scacquire(signal_group, conditions, compare_values, wait_state_hint,
                                        signal, value):
    _group_wait(signal_group, conditions, compare_values, signal, value)


@export("hsa_signal_group_wait_any_relaxed")
def hsa_signal_group_wait_any_relaxed(signal_group, conditions, compare_values, wait_state_hint,
                                      signal, value):
    _group_wait(signal_group, conditions, compare_values, signal, value)


@export("hsa_amd_ipc_signal_create")
def hsa_amd_ipc_signal_create(signal, handle):
    require_pointer(handle, "handle")
    words = runtime.require().signals.ipc_handle(signal.handle)
    write_bytes(handle, b"".join(w.to_bytes(4, "little") for w in words), 4 * HANDLE_WORDS, "handle")


@export("hsa_amd_ipc_signal_attach")
def hsa_amd_ipc_signal_attach(handle, signal):
    require_pointer(handle, "handle")
    require_pointer(signal, "signal")
    session = runtime.require()
    attached = session.signals.attach_ipc(read_handle(handle))
    try:
        write_struct(signal, "hsa_signal_t", "signal", handle=attached)
    except InvalidArgument:
        session.signals.destroy(attached)
        raise
