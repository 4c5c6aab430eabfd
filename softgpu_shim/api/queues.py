"""Queue exports that return hsa_status_t: creation (hardware and soft), destruction,
inactivation, CU masks, priority and queue info. (Index operations are C fast paths.)"""
from _softgpu_hsa import ffi, lib

from core import runtime
from core.errors import InvalidArgument, InvalidQueue
from softgpu_shim.api.out import address, read_array, require_pointer, write, write_bytes
from softgpu_shim.hsa_abi import HsaAmdQueuePriority, HsaQueueInfoAttribute, HsaQueueType
from softgpu_shim.registry import export

# CU masks longer than this many bits are refused rather than copied: no agent has
# 65536 CUs, and a garbage count must not make the runtime copy gigabytes.
MAX_CU_MASK_BITS = 65536



def _error_callback(callback, queue_address, data):
    """The client's callback(status, hsa_queue_t*, data) as a callable(status)."""
    if callback == ffi.NULL:
        return None
    source = ffi.cast("hsa_queue_t *", queue_address)
    return lambda status: callback(int(status), source, data)


@export("hsa_queue_create")
def hsa_queue_create(agent, size, type, callback, data, private_segment_size, group_segment_size,
                     queue):
    require_pointer(queue, "queue")
    queues = runtime.require().queues
    # The group segment size hint is ignored, as ROCr ignores it. The shared cooperative
    # queue keeps ROCr's default error handling whoever asks for it.
    created = queues.create(agent.handle, size, type, private_segment_size)
    if created.type != HsaQueueType.COOPERATIVE:
        created.error_callback = _error_callback(callback, created.address, data)
    _hand_out(queues, created, queue)


def _hand_out(queues, created, queue):
    try:
        write(queue, "hsa_queue_t *", ffi.cast("hsa_queue_t *", created.address), "queue")
    except InvalidArgument:
        queues.destroy(created.address)
        raise


@export("hsa_soft_queue_create")
def hsa_soft_queue_create(region, size, type, features, doorbell_signal, queue):
    require_pointer(queue, "queue")
    queues = runtime.require().queues
    created = queues.create_soft(region.handle, size, type, features, doorbell_signal.handle)
    _hand_out(queues, created, queue)


@export("hsa_queue_destroy")
def hsa_queue_destroy(queue):
    runtime.require().queues.destroy(address(require_pointer(queue, "queue")))


@export("hsa_queue_inactivate")
def hsa_queue_inactivate(queue):
    runtime.require().queues.inactivate(address(require_pointer(queue, "queue")))


def _mask_words(count):
    if count % 32 or count > MAX_CU_MASK_BITS:
        raise InvalidArgument(f"CU mask bit count {count} is not a multiple of 32 up to {MAX_CU_MASK_BITS}")
    return count // 32


@export("hsa_amd_queue_cu_set_mask")
def hsa_amd_queue_cu_set_mask(queue, num_cu_mask_count, cu_mask):
    target = runtime.require().queues.get(address(queue))
    if num_cu_mask_count:
        require_pointer(cu_mask, "cu_mask")
    words = _mask_words(num_cu_mask_count)
    mask = list(read_array(cu_mask, "uint32_t", words, "cu_mask")) if words else []
    compute_units = target.agent.spec["compute_units"]
    bits = sum(word << (32 * i) for i, word in enumerate(mask))
    # ROCr trims a mask to the CUs that exist and answers SUCCESS: CU_MASK_REDUCED only
    # when its HSA_CU_MASK environment setting took CUs away, and SoftGPU has none.
    target.cu_mask = None if words == 0 else bits & ((1 << compute_units) - 1)


@export("hsa_amd_queue_cu_get_mask")
def hsa_amd_queue_cu_get_mask(queue, num_cu_mask_count, cu_mask):
    require_pointer(cu_mask, "cu_mask")
    target = runtime.require().queues.get(address(queue))
    if num_cu_mask_count == 0:
        raise InvalidArgument("CU mask bit count is 0")
    words = _mask_words(num_cu_mask_count)
    compute_units = target.agent.spec["compute_units"]
    bits = (1 << compute_units) - 1 if target.cu_mask is None else target.cu_mask
    words_out = ffi.new("uint32_t[]", [(bits >> (32 * i)) & 0xFFFFFFFF for i in range(words)])
    write_bytes(cu_mask, bytes(ffi.buffer(words_out)), 4 * words, "cu_mask")


@export("hsa_amd_queue_set_priority")
def hsa_amd_queue_set_priority(queue, priority):
    target = runtime.require().queues.get(address(require_pointer(queue, "queue")))
    if priority not in set(HsaAmdQueuePriority):
        raise InvalidArgument(f"{priority} is not an hsa_amd_queue_priority_t")
    # Accepted and recorded, as ROCr does; one software packet processor per queue has
    # nothing to prioritise against.
    target.priority = HsaAmdQueuePriority(priority)


@export("hsa_amd_queue_get_info")
def hsa_amd_queue_get_info(queue, attribute, value):
    """ROCr's AqlQueue answers the agent and the doorbell's address; its soft (host) queues
    answer INVALID_QUEUE to every attribute."""
    target = runtime.require().queues.get(address(queue))
    if target.soft:
        raise InvalidQueue("a soft queue answers no queue info (ROCr's host queues neither)")
    if attribute == HsaQueueInfoAttribute.AGENT:
        write(value, "hsa_agent_t", {"handle": target.agent.handle}, "value")
    elif attribute == HsaQueueInfoAttribute.DOORBELL_ID:
        # ROCr's is the hardware doorbell's address; SoftGPU's doorbell is the signal value
        # the client's doorbell store writes, so that word's address identifies it the same way.
        doorbell = address(lib.sg_signal_value_ptr(target.doorbell_signal))
        write(value, "uint64_t", doorbell, "value")
    else:
        raise InvalidArgument(f"{attribute:#x} is not an hsa_queue_info_attribute_t")
