"""Queues: user-mode AQL queues whose memory has the newest ROCr's amd_queue_v2_t layout.

Holds these invariants:
- a queue is known by the address of its amd_queue_t (the hsa_queue_t* clients hold);
  an address resolves only while the queue lives, so a forged, freed or foreign
  pointer fails with InvalidQueue and its memory is never read;
- the amd_queue_t and the ring buffer live in the session arena (the engine and the
  packet processor see them as device memory); the ring starts with every slot INVALID;
- the C index exports accept exactly the registered queues: a queue is registered
  with the C side before its pointer is handed out and unregistered before its memory
  is freed;
- a queue's packet processor (made by `processor_factory`) is closed before the
  queue's memory goes away, at hsa_queue_destroy or at hsa_shut_down;
- as in ROCr, an agent has at most one cooperative queue (the one with GWS): every
  hsa_queue_create of type COOPERATIVE returns it, whatever size and callback it asks for
  (the queue has the agent's minimum size and ROCr's default error handling), and it goes
  away at the destroy that matches the last create.

Interface for the packet processor (the AQL part):
- `session.queues.processor_factory = callable(queue) -> object with close() and
  deactivate()` (no packet starts after deactivate): called for every hardware queue
  hsa_queue_create makes (soft queues have none);
  `on_create` / `on_destroy` are lists of callables(queue) run after creation and
  before destruction.
- `Queue`: `address` (amd_queue_t == hsa_queue_t*), `id`, `agent`, `type`, `size`
  (packets), `ring_address`, `doorbell_signal`, `read_index()`,
  `store_read_index(i)`, `write_index()`, `inactive`, `profiling` (settable; mirrors
  AMD_QUEUE_PROPERTIES_ENABLE_PROFILING), `error_status`, `enter_error_state(status)`,
  `has_error_callback`, `call_error_callback(status)`, `soft`, `global_sync` (the
  core.isa.global_sync.GlobalSync of a hardware queue; GWS only on a cooperative one).
- `session.queues.get(address)` resolves an hsa_queue_t* (an int, or a cffi pointer).
"""
import itertools
import threading

from core.errors import HsaError, InvalidArgument, InvalidQueue, InvalidQueueCreation, OutOfResources
from core.isa.apertures import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
from core.native import ffi, lib
from core.hsa_abi import AQL_PACKET_SIZE, HsaQueueFeature, HsaQueueType

# The amd_queue_t lives in a page of its own (the arena hands out whole pages);
# 64 is the alignment ROCr's AMD_QUEUE_ALIGN demands.
AMD_QUEUE_BYTES = 4096
AMD_QUEUE_ALIGN = 64
# ROCr rejects a private segment size hint above this (in bytes per work-item).
MAX_PRIVATE_SEGMENT = 262128
# UINT32_MAX asks ROCr for the agent's default private segment size.
DEFAULT_PRIVATE_SEGMENT = 0xFFFFFFFF
# The doorbell starts below every packet id, so the first ring (id 0) is a change.
DOORBELL_INITIAL = -1

# Queue ids are unique in the process, across sessions, as ROCr's are.
_ids = itertools.count()


def _address(pointer):
    """An hsa_queue_t* as an int (callers pass ints or cffi pointers)."""
    return pointer if isinstance(pointer, int) else int(ffi.cast("uintptr_t", pointer))


class Queue:
    def __init__(self, agent, size, queue_type, address, ring_address, doorbell_signal,
                 soft, error_callback=None):
        self.agent = agent
        self.size = size
        self.type = queue_type
        self.address = address
        self.ring_address = ring_address
        self.doorbell_signal = doorbell_signal
        self.soft = soft                      # hsa_soft_queue_create: no packet processor
        self.id = next(_ids)
        self.error_callback = error_callback  # callable(status) or None (ROCr's default handler)
        self.error_status = None
        self._inactive = False
        self.priority = None
        self.cu_mask = None                   # None: every CU enabled
        self.processor = None
        self._global_sync = None
        self.references = 1                   # creates not yet matched by a destroy (cooperative)
        self._profiling = False

    def read_index(self):
        return lib.sg_queue_read_index(self.address)

    def store_read_index(self, value):
        lib.sg_queue_store_read_index(self.address, value)

    def write_index(self):
        return lib.sg_queue_write_index(self.address)

    @property
    def global_sync(self):
        # Made on first use: GWS and GDS state is numpy, which queue creation does not need.
        if self._global_sync is None and not self.soft:
            from core.isa.global_sync import GlobalSync
            self._global_sync = GlobalSync(gws=self.type == HsaQueueType.COOPERATIVE)
        return self._global_sync

    @property
    def inactive(self):
        return self._inactive

    @inactive.setter
    def inactive(self, value):
        """Once inactive, the queue's packet processor starts no packet any more."""
        self._inactive = bool(value)
        if self._inactive and self.processor is not None:
            self.processor.deactivate()

    @property
    def profiling(self):
        return self._profiling

    @profiling.setter
    def profiling(self, enabled):
        self._profiling = bool(enabled)
        lib.sg_queue_set_profiling(self.address, int(self._profiling))

    @property
    def has_error_callback(self):
        return self.error_callback is not None

    def enter_error_state(self, status):
        """The queue stops processing; the first error is the one kept."""
        if self.error_status is None:
            self.error_status = status
        self.inactive = True

    def call_error_callback(self, status):
        self.error_callback(status)


class Queues:
    """The session's queues, by amd_queue_t address."""

    def __init__(self, session):
        self.session = session
        self.processor_factory = None
        self.on_create = []
        self.on_destroy = []
        self._by_address = {}
        self._cooperative = {}                # agent -> its shared cooperative queue
        self._lock = threading.Lock()

    # -- resolution --------------------------------------------------------------------

    def get(self, pointer):
        """The live queue at `pointer`, or InvalidQueue (NULL too: ROCr's queue conversion
        gives no queue for it; exports that check for NULL first do so themselves)."""
        address = _address(pointer)
        queue = self._by_address.get(address)
        if queue is None:
            raise InvalidQueue(f"{address:#x} is not a live queue")
        return queue

    def __iter__(self):
        with self._lock:
            return iter(list(self._by_address.values()))

    # -- creation ----------------------------------------------------------------------

    def create(self, agent_handle, size, queue_type, private_segment_size=DEFAULT_PRIVATE_SEGMENT,
               error_callback=None):
        """hsa_queue_create with ROCr's checks, in ROCr's order."""
        if size == 0 or size & (size - 1) or queue_type > HsaQueueType.COOPERATIVE:
            raise InvalidArgument(f"queue size {size} / type {queue_type} is not valid")
        agent = self.session.agents.get(agent_handle)
        if not agent.is_gpu:
            raise HsaError("the CPU agent has no AQL packet processor")
        spec = agent.spec
        if queue_type == HsaQueueType.COOPERATIVE:
            if not spec.get("cooperative_queues", False):
                raise InvalidQueueCreation("the agent has no cooperative (GWS) queues")
            with self._lock:
                shared = self._cooperative.get(agent)
                if shared is not None:
                    shared.references += 1
                    return shared
            # ROCr makes it as an internal queue: the agent's minimum size, default handler.
            size, error_callback = spec["queue_min_size"], None
            private_segment_size = DEFAULT_PRIVATE_SEGMENT
        if size > spec["queue_max_size"]:
            raise OutOfResources(f"queue size {size} exceeds the agent's {spec['queue_max_size']}")
        if size < spec["queue_min_size"]:
            raise InvalidArgument(f"queue size {size} is below the agent's {spec['queue_min_size']}")
        if private_segment_size != DEFAULT_PRIVATE_SEGMENT and private_segment_size > MAX_PRIVATE_SEGMENT:
            raise OutOfResources(f"private segment size {private_segment_size} exceeds {MAX_PRIVATE_SEGMENT}")
        with self._lock:
            live = sum(1 for q in self._by_address.values() if q.agent is agent and not q.soft)
        if live >= spec["queues_max"]:
            raise OutOfResources(f"the agent already has {live} queues")
        doorbell = self.session.signals.create(DOORBELL_INITIAL, owner=self)
        try:
            queue = self._build(agent, size, queue_type, HsaQueueFeature.KERNEL_DISPATCH, doorbell,
                                soft=False, error_callback=error_callback)
        except BaseException:
            self.session.signals.destroy(doorbell, owner=self)
            raise
        if self.processor_factory is not None:
            try:
                queue.processor = self.processor_factory(queue)
            except BaseException:
                self.destroy(queue.address)
                raise
        if queue_type == HsaQueueType.COOPERATIVE:
            with self._lock:
                self._cooperative[agent] = queue
        return queue

    def create_soft(self, region_handle, size, queue_type, features, doorbell_signal):
        """hsa_soft_queue_create: the caller processes packets itself, through its own doorbell.
        The region is resolved by the memory part (`session.memory.region`, InvalidRegion);
        the ring comes from the arena like every queue's."""
        if (region_handle == 0 or doorbell_signal == 0 or size == 0 or size & (size - 1)
                or queue_type > HsaQueueType.SINGLE or features == 0):
            raise InvalidArgument("soft queue arguments are not valid")
        region = self.session.memory.region(region_handle)
        self.session.signals.require(doorbell_signal)
        return self._build(region.owner, size, queue_type, features, doorbell_signal, soft=True)

    def _build(self, agent, size, queue_type, features, doorbell, soft, error_callback=None):
        arena = self.session.arena
        ring = arena.allocate(size * AQL_PACKET_SIZE, owner=self, info={"queue": "ring"})
        try:
            amd = arena.allocate(AMD_QUEUE_BYTES, align=AMD_QUEUE_ALIGN, owner=self,
                                 info={"queue": "amd_queue_t"})
        except BaseException:
            arena.free(ring.address)
            raise
        queue = Queue(agent, size, queue_type, amd.address, ring.address, doorbell, soft,
                      error_callback)
        spec = agent.spec if agent is not None else {}
        compute_units = spec.get("compute_units", 1)
        waves_per_cu = spec.get("simds_per_cu", 1) * spec.get("waves_per_simd", 1)
        lib.sg_queue_init(amd.address, ring.address, size, int(queue_type), int(features), doorbell,
                          queue.id, compute_units - 1, waves_per_cu - 1)
        # ROCr writes the LDS and scratch apertures' high halves here (kernels of older ISAs
        # read them through the queue pointer; tools read them): SoftGPU's flat apertures.
        fields = ffi.cast("amd_queue_v2_t *", amd.address)
        fields.group_segment_aperture_base_hi = SHARED_APERTURE_HI
        fields.private_segment_aperture_base_hi = PRIVATE_APERTURE_HI
        with self._lock:
            self._by_address[queue.address] = queue
        if lib.sg_queue_register(queue.address) != 0:
            self._release(queue)
            raise OutOfResources("the C queue registry is full")
        for hook in self.on_create:
            hook(queue)
        return queue

    # -- state changes -----------------------------------------------------------------

    def inactivate(self, pointer):
        self.get(pointer).inactive = True

    def destroy(self, pointer, all_references=False):
        queue = self.get(pointer)
        with self._lock:
            # Two racing destroys: exactly one gets past this point.
            if self._by_address.get(queue.address) is not queue:
                raise InvalidQueue(f"{queue.address:#x} is not a live queue")
            queue.references -= 1
            if queue.references > 0 and not all_references:
                return                        # a cooperative queue others still hold
            del self._by_address[queue.address]
            if self._cooperative.get(queue.agent) is queue:
                del self._cooperative[queue.agent]
        lib.sg_queue_unregister(queue.address)
        queue.inactive = True
        for hook in self.on_destroy:
            hook(queue)
        if queue.processor is not None:
            queue.processor.close()
        self._release(queue)

    def _release(self, queue):
        with self._lock:
            self._by_address.pop(queue.address, None)
        if not queue.soft:
            self.session.signals.destroy(queue.doorbell_signal, owner=self)
        self.session.arena.free(queue.ring_address)
        self.session.arena.free(queue.address)

    def close(self):
        for queue in list(self):
            self.destroy(queue.address, all_references=True)
