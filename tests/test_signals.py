"""Signals: the C programs a client would write, and the core.signals API the packet
processors use (in this process, through the library loaded with ctypes)."""
import ctypes
import threading
import time

import pytest

from softgpu_shim.hsa_abi import SignalCondition, Status
from tests.support import cprog
from tests.support.paths import LIBRARY

EQ, LT, GTE = SignalCondition.EQ, SignalCondition.LT, SignalCondition.GTE
MS = 1_000_000


@pytest.mark.parametrize("program", ["signal_ops.c", "signal_waits.c", "signal_atomics.c",
                                     "signal_forged.c", "signal_api.c"])
def test_c_program(program):
    cprog.check(program)


class HsaSignal(ctypes.Structure):
    _fields_ = [("handle", ctypes.c_uint64)]


class HsaAgent(ctypes.Structure):
    _fields_ = [("handle", ctypes.c_uint64)]


@pytest.fixture(scope="module")
def hsa():
    lib = ctypes.CDLL(LIBRARY)
    assert lib.hsa_init() == 0
    from core import runtime
    yield lib, runtime.require()
    assert lib.hsa_shut_down() == 0


def create(lib, value, agents=()):
    signal = HsaSignal()
    consumers = (HsaAgent * max(1, len(agents)))(*[HsaAgent(a) for a in agents])
    status = lib.hsa_signal_create(ctypes.c_int64(value), len(agents), consumers, ctypes.byref(signal))
    return status, signal.handle


def test_consumers_are_distinct_hints_that_choose_the_signal_kind(hsa):
    """As in ROCr: consumers are kept unchecked, named twice they are INVALID_ARGUMENT,
    and a list without the CPU makes a busy-wait signal instead of an interrupt one."""
    from core.signals import BUSY_WAIT, INTERRUPT
    lib, session = hsa
    agents = [agent.handle for agent in session.agents.all]
    status, handle = create(lib, 1, agents)
    assert status == 0 and handle
    assert session.signals.info(handle).consumers == tuple(agents)
    assert session.signals.info(handle).kind == INTERRUPT
    assert create(lib, 1, [agents[0], agents[0]])[0] == Status.ERROR_INVALID_ARGUMENT  # duplicate
    status, gpu_only = create(lib, 1, [agents[1], agents[0] ^ (1 << 32)])      # a stale agent too
    assert status == 0 and session.signals.info(gpu_only).kind == BUSY_WAIT
    for signal in (handle, gpu_only):
        assert lib.hsa_signal_destroy(HsaSignal(signal)) == 0


def test_python_wait_sees_c_store_from_another_thread(hsa):
    from core import signals
    lib, session = hsa
    handle = session.signals.create(5)
    threading.Timer(0.02, lambda: lib.hsa_signal_store_screlease(HsaSignal(handle), ctypes.c_int64(0))).start()
    value, satisfied = signals.wait(handle, EQ, 0, 5_000 * MS)
    assert (value, satisfied) == (0, True)
    session.signals.destroy(handle)


def test_python_wait_times_out_unsatisfied(hsa):
    from core import signals
    _, session = hsa
    handle = session.signals.create(1)
    start = time.monotonic_ns()
    assert signals.wait(handle, LT, 0, 20 * MS) == (1, False)
    assert time.monotonic_ns() - start >= 20 * MS
    session.signals.destroy(handle)


def test_wait_returns_when_signal_is_destroyed(hsa):
    from core import signals
    _, session = hsa
    handle = session.signals.create(1)
    threading.Timer(0.02, lambda: session.signals.destroy(handle)).start()
    value, satisfied = signals.wait(handle, EQ, 0)
    assert not satisfied
    assert not signals.valid(handle)


def test_subtract_store_load_and_cas(hsa):
    from core import signals
    _, session = hsa
    handle = session.signals.create(3)
    assert signals.subtract(handle, 1) == 3
    assert signals.load(handle) == 2
    signals.store(handle, 10)
    assert signals.add(handle, 5) == 10
    assert signals.cas(handle, 15, 1) == 15 and signals.load(handle) == 1
    assert signals.cas(handle, 15, 2) == 1 and signals.load(handle) == 1
    session.signals.destroy(handle)
    assert signals.load(handle) == 0       # a dead handle reads 0, as the C exports do
    signals.store(handle, 4)               # and is ignored


def test_wait_any_index_value_and_invalid_handles(hsa):
    from core import signals
    _, session = hsa
    a, b = session.signals.create(1), session.signals.create(7)
    assert signals.wait_any([a, b], [EQ, GTE], [0, 7]) == (1, 7)
    assert signals.wait_any([a, b], [EQ, EQ], [0, 0], 10 * MS) == (None, None)
    session.signals.destroy(b)
    assert signals.wait_any([a, b], [EQ, EQ], [0, 0]) == (None, None)   # no hang on a dead handle
    session.signals.destroy(a)


def test_timestamps_round_trip_and_reject_dead_signals(hsa):
    from core import signals
    from core.errors import InvalidSignal
    _, session = hsa
    handle = session.signals.create(1)
    assert signals.timestamps(handle) == (0, 0)
    start = signals.now_ns()
    signals.set_timestamps(handle, start, start + 1000)
    assert signals.timestamps(handle) == (start, start + 1000)
    session.signals.destroy(handle)
    with pytest.raises(InvalidSignal):
        signals.timestamps(handle)
    with pytest.raises(InvalidSignal):
        signals.set_timestamps(handle, 1, 2)


def test_async_handler_python_callback_runs_off_thread(hsa):
    from core import signals
    _, session = hsa
    handle = session.signals.create(0)
    done = threading.Event()
    calls = []

    def handler(value):
        calls.append((value, threading.current_thread().name))
        done.set()
        return False
    session.signals.handlers.register(handle, GTE, 2, handler)
    signals.store(handle, 2)
    assert done.wait(5)
    assert calls == [(2, "softgpu-signal-handlers")]
    session.signals.destroy(handle)


def test_unwritable_out_pointer_leaves_no_signal_behind(hsa):
    from core.native import lib as native
    lib, _ = hsa
    before = native.sg_signal_live_count()
    assert lib.hsa_signal_create(ctypes.c_int64(0), 0, None, ctypes.c_void_p(0x1000)) == Status.ERROR_INVALID_ARGUMENT
    assert native.sg_signal_live_count() == before


def test_forged_handles_are_counted_by_the_fast_path(hsa):
    from core.native import lib as native
    lib, _ = hsa
    before = native.sg_invalid_fastpath_calls()
    forged = HsaSignal(0x51000000DEADBEEF)
    lib.hsa_signal_load_relaxed.restype = ctypes.c_int64
    assert lib.hsa_signal_load_relaxed(forged) == 0
    lib.hsa_signal_store_relaxed(forged, ctypes.c_int64(1))
    assert native.sg_invalid_fastpath_calls() == before + 2


def test_handles_are_amd_signal_addresses_and_never_revive():
    cprog.check("signal_layout.c")
