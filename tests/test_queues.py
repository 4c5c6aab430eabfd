"""Queues: the C programs a client would write, and the core.queues interface the
packet processor attaches to (in this process, through the library loaded with ctypes)."""
import ctypes

import pytest

from softgpu_shim.hsa_abi import AmdQueueProperties, HsaQueueType, Status
from tests.support import cprog
from tests.support.paths import LIBRARY

ERROR_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


@pytest.mark.parametrize("program", ["queue_api.c", "queue_index.c"])
def test_c_program(program):
    cprog.check(program)


class HsaAgent(ctypes.Structure):
    _fields_ = [("handle", ctypes.c_uint64)]


@pytest.fixture(scope="module")
def hsa():
    lib = ctypes.CDLL(LIBRARY)
    lib.hsa_queue_destroy.argtypes = [ctypes.c_void_p]
    assert lib.hsa_init() == 0
    from core import runtime
    yield lib, runtime.require()
    assert lib.hsa_shut_down() == 0


def create(lib, session, size=64, callback=None, data=None):
    queue = ctypes.c_void_p()
    gpu = HsaAgent(session.agents.gpus[0].handle)
    status = lib.hsa_queue_create(gpu, size, HsaQueueType.MULTI, callback, data,
                                  ctypes.c_uint32(0xFFFFFFFF), ctypes.c_uint32(0xFFFFFFFF),
                                  ctypes.byref(queue))
    assert status == Status.SUCCESS
    return queue.value


class Recorder:
    def __init__(self):
        self.events = []

    def factory(self, queue):
        self.events.append(("processor", queue.id))
        recorder = self

        class Processor:
            def close(self):
                recorder.events.append(("closed", queue.id))
        return Processor()


@pytest.fixture
def recorder(hsa):
    _, session = hsa
    saved = session.queues.processor_factory, list(session.queues.on_create), list(session.queues.on_destroy)
    rec = Recorder()
    session.queues.processor_factory = rec.factory
    session.queues.on_create.append(lambda q: rec.events.append(("created", q.id)))
    session.queues.on_destroy.append(lambda q: rec.events.append(("destroying", q.id)))
    yield rec
    session.queues.processor_factory = saved[0]
    session.queues.on_create[:] = saved[1]
    session.queues.on_destroy[:] = saved[2]


def test_each_hardware_queue_gets_a_processor_closed_at_destroy(hsa, recorder):
    lib, session = hsa
    address = create(lib, session)
    queue = session.queues.get(address)
    assert recorder.events == [("created", queue.id), ("processor", queue.id)]
    assert lib.hsa_queue_destroy(address) == Status.SUCCESS
    assert recorder.events[2:] == [("destroying", queue.id), ("closed", queue.id)]
    assert queue.inactive


def test_queue_describes_its_memory_and_indices(hsa):
    from core import signals
    lib, session = hsa
    address = create(lib, session, size=128)
    queue = session.queues.get(address)
    assert queue.address == address and queue.size == 128 and not queue.soft
    assert session.arena.find(queue.ring_address).size >= 128 * 64
    assert signals.load(queue.doorbell_signal) == -1   # below every packet id: the first ring changes it
    assert (queue.read_index(), queue.write_index()) == (0, 0)
    queue.store_read_index(3)
    assert lib.hsa_queue_load_read_index_relaxed(ctypes.c_void_p(address)) == 3
    assert lib.hsa_queue_destroy(address) == Status.SUCCESS


def test_error_callback_receives_status_queue_and_data(hsa):
    lib, session = hsa
    seen = []
    callback = ERROR_CALLBACK(lambda status, source, data: seen.append((status, source, data)))
    address = create(lib, session, callback=callback, data=ctypes.c_void_p(0x1234))
    queue = session.queues.get(address)
    assert queue.has_error_callback
    queue.enter_error_state(Status.ERROR_INVALID_PACKET_FORMAT)
    queue.enter_error_state(Status.ERROR_MEMORY_FAULT)      # the first error is the one kept
    queue.call_error_callback(queue.error_status)
    assert seen == [(Status.ERROR_INVALID_PACKET_FORMAT, address, 0x1234)]
    assert queue.inactive
    assert lib.hsa_queue_destroy(address) == Status.SUCCESS


def test_queue_without_callback_has_none(hsa):
    lib, session = hsa
    address = create(lib, session)
    assert not session.queues.get(address).has_error_callback
    assert lib.hsa_queue_destroy(address) == Status.SUCCESS


def test_profiling_flag_is_mirrored_in_amd_queue_properties(hsa):
    lib, session = hsa
    address = create(lib, session)
    queue = session.queues.get(address)
    from core.native import ffi
    properties = ffi.cast("amd_queue_t *", address).queue_properties
    queue.profiling = True
    assert ffi.cast("amd_queue_t *", address).queue_properties & AmdQueueProperties.ENABLE_PROFILING
    queue.profiling = False
    assert ffi.cast("amd_queue_t *", address).queue_properties == properties & ~AmdQueueProperties.ENABLE_PROFILING
    assert lib.hsa_queue_destroy(address) == Status.SUCCESS


def test_unknown_addresses_do_not_resolve(hsa):
    from core.errors import InvalidQueue
    _, session = hsa
    with pytest.raises(InvalidQueue):
        session.queues.get(session.arena.base)
    with pytest.raises(InvalidQueue):      # ROCr's conversion gives no queue for NULL either
        session.queues.get(0)


def test_unwritable_out_pointer_leaves_no_queue_behind(hsa):
    lib, session = hsa
    before = len(list(session.queues))
    gpu = HsaAgent(session.agents.gpus[0].handle)
    status = lib.hsa_queue_create(gpu, 64, HsaQueueType.MULTI, None, None, ctypes.c_uint32(0xFFFFFFFF),
                                  ctypes.c_uint32(0xFFFFFFFF), ctypes.c_void_p(0x1000))
    assert status == Status.ERROR_INVALID_ARGUMENT
    assert len(list(session.queues)) == before
