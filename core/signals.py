"""Signals: handles into the C signal table (softgpu_shim/native.h), and what the
runtime keeps around them (attributes, async handlers, signal groups).

Holds these invariants:
- a value lives only in the C table (an IPC signal's: in its shared page) and changes only
  through the C side, so the C exports,
  the packet processors and Python never disagree; every call here that may block
  runs in C with the GIL released (cffi drops it around each call);
- a destroyed signal's handle never resolves again (the C slot's generation moves
  on): value operations on it are ignored and loads read 0, as the C exports do;
- a wait never returns before its condition held at least once, unless its timeout
  passed or the signal was destroyed (then `satisfied` is False);
- every signal of a session dies at its hsa_shut_down, after the async-handler
  thread stopped, so no handler runs past shutdown;
- an IPC signal (HSA_AMD_SIGNAL_IPC, or attached from another process) lives in an arena
  page shared with the other processes holding it: they see one value, wake each other,
  and a wait returns unsatisfied once a process holding it died (ipc_shared.c). Destroying
  it drops this process's hold only: the others keep the page.

The module-level functions are the API of the packet processors:
    wait(handle, condition, value, timeout_ns=FOREVER) -> (value, satisfied)
    wait_any(handles, conditions, values, timeout_ns=FOREVER) -> (index | None, value)
    load / store / add / subtract / cas, valid(handle)
    set_timestamps(handle, start_ns, end_ns), timestamps(handle) -> (start_ns, end_ns)
    now_ns()  (the clock of HSA timestamps and of wait timeouts)
Conditions are core.hsa_abi.SignalCondition members (EQ, NE, LT, GTE).
"""
import threading

from core import settings, trace
from core.errors import InvalidArgument, InvalidSignal, InvalidSignalGroup, OutOfResources
from core.handles import HandleTable, KIND_SIGNAL_GROUP
from core.native import ffi, lib
from core.hsa_abi import HsaAmdMemoryPoolGlobalFlag, HsaAmdSignalAttribute, SignalCondition

FOREVER = 2 ** 64 - 1                # a timeout that never expires (UINT64_MAX ticks)
IPC_PAGE = 4096                      # an IPC signal's page (ROCr shares 4096 bytes per signal)
_NOT_FOUND = 2 ** 32 - 1             # sg_signal_wait_any's "no signal satisfied"


def now_ns():
    """HSA timestamp clock: CLOCK_MONOTONIC nanoseconds, the clock of wait timeouts."""
    return lib.sg_now_ns()


def valid(handle):
    return bool(lib.sg_signal_valid(handle))


def load(handle):
    """The value (acquire); 0 for an invalid handle."""
    return lib.sg_signal_load(handle)


def store(handle, value):
    """Store (release) and wake every waiter of the signal."""
    lib.sg_signal_store(handle, value)


def add(handle, delta):
    """Atomic add; returns the previous value (0 for an invalid handle)."""
    return lib.sg_signal_add(handle, delta)


def subtract(handle, delta=1):
    """Atomic subtract, as a packet's completion signal is decremented; returns the previous value."""
    return lib.sg_signal_add(handle, -delta)


def cas(handle, expected, value):
    """Compare-and-swap; returns the value seen (== expected when it swapped)."""
    return lib.sg_signal_cas(handle, expected, value)


def wait(handle, condition, value, timeout_ns=FOREVER):
    """Block (without the GIL) until `condition` holds against `value`, the timeout
    passes or the signal is destroyed. Returns (last value seen, satisfied)."""
    satisfied = ffi.new("int *")
    seen = lib.sg_signal_wait(handle, int(condition), value, timeout_ns, satisfied)
    return seen, bool(satisfied[0])


def wait_any(handles, conditions, values, timeout_ns=FOREVER):
    """Block until one signal satisfies its condition. Returns (index, value) of the
    first satisfied, or (None, None) on timeout or when some handle is invalid
    (a destroyed signal ends the wait rather than leaving it unsatisfiable)."""
    count = len(handles)
    if count == 0 or len(conditions) != count or len(values) != count:
        raise InvalidArgument("wait_any needs one condition and one value per signal")
    found_value = ffi.new("int64_t *")
    index = lib.sg_signal_wait_any(count, ffi.new("uint64_t[]", list(handles)),
                                   ffi.new("int[]", [int(c) for c in conditions]),
                                   ffi.new("int64_t[]", list(values)), timeout_ns, found_value)
    return (None, None) if index == _NOT_FOUND else (index, found_value[0])


def set_timestamps(handle, start_ns, end_ns):
    """Record a dispatch's start/end in amd_signal_t (for hsa_amd_profiling_get_dispatch_time)."""
    if lib.sg_signal_set_timestamps(handle, start_ns, end_ns) != 0:
        raise InvalidSignal(f"no live signal with handle {handle:#x}")


def timestamps(handle):
    """(start_ns, end_ns) stored in the signal's amd_signal_t; InvalidSignal if it is gone."""
    start, end = ffi.new("uint64_t *"), ffi.new("uint64_t *")
    if lib.sg_signal_timestamps(handle, start, end) != 0:
        raise InvalidSignal(f"no live signal with handle {handle:#x}")
    return start[0], end[0]


def value_address(handle):
    """Address of the signal's 64-bit value (hsa_amd_signal_value_pointer)."""
    pointer = lib.sg_signal_value_ptr(handle)
    if pointer == ffi.NULL:
        raise InvalidSignal(f"no live signal with handle {handle:#x}")
    return int(ffi.cast("uintptr_t", pointer))


# ROCr's signal classes, which decide what a signal may be used for:
INTERRUPT = "interrupt"   # InterruptSignal: the only kind hsa_amd_signal_async_handler accepts
BUSY_WAIT = "busy-wait"   # DefaultSignal (IPC, GPU-only, no CPU consumer): has a value pointer
DOORBELL = "doorbell"     # a queue's doorbell: neither


class SignalInfo:
    """What the runtime remembers about a signal besides its value."""
    __slots__ = ("consumers", "attributes", "owner", "kind", "copy_profiled", "page")

    def __init__(self, consumers, attributes, owner=None, kind=INTERRUPT, page=None):
        self.consumers = consumers      # agent handles named at creation (ROCr keeps them as hints)
        self.attributes = attributes    # hsa_amd_signal_attribute_t bits
        self.owner = owner              # the runtime part that alone may destroy it (a queue's doorbell)
        self.kind = kind
        self.copy_profiled = False      # completed a profiled async copy (it has copy timestamps)
        self.page = page                # an IPC signal's shared page (an arena Allocation)


def kind_for(attributes, consumers, cpu_handle):
    """ROCr's choice of signal class: an InterruptSignal unless the signal is IPC or GPU-only,
    or names consumers none of which is the CPU."""
    if attributes & (HsaAmdSignalAttribute.IPC | HsaAmdSignalAttribute.AMD_GPU_ONLY):
        return BUSY_WAIT
    return INTERRUPT if not consumers or cpu_handle in consumers else BUSY_WAIT


class Signals:
    """The session's signals: creation, destruction, async handlers, signal groups."""

    def __init__(self, session):
        if lib.sg_signal_table_open(settings.get("SOFTGPU_SIGNAL_POLL_MS")) != 0:
            raise OutOfResources("cannot map the signal table")
        # Device code reaches signals through their handles (HIP's hostcall rings its
        # doorbell at handle + 8), so every GPU may touch the table, as on ROCr.
        session.memory.register(int(lib.sg_signal_table_address()), int(lib.sg_signal_table_bytes()))
        self._agents = session.agents
        self._arena = session.arena
        self._session = session             # its IPC part is made when an IPC signal is
        self._info = {}
        self._lock = threading.Lock()
        self.handlers = AsyncHandlers(self)
        self.groups = HandleTable(KIND_SIGNAL_GROUP, InvalidSignalGroup)

    def create(self, initial_value, consumers=(), attributes=0, owner=None):
        """A new signal's handle. Consumers are agent handles, kept unchecked as ROCr keeps
        them. With `owner`, only destroy(handle, owner) frees it: a client's hsa_signal_destroy
        of a queue's doorbell is INVALID_SIGNAL, and the packet processor never loses it."""
        consumers = tuple(int(c) for c in consumers)
        if attributes & HsaAmdSignalAttribute.IPC:
            return self._create_ipc(initial_value, consumers, attributes)
        kind = DOORBELL if owner is not None else kind_for(attributes, consumers, self._agents.cpu.handle)
        # Every signal but a busy-wait one gets an event mailbox that device code signals
        # through, as ROCr's InterruptSignal (a doorbell too: device code may ring it).
        handle = lib.sg_signal_alloc(initial_value, kind != BUSY_WAIT)
        if handle == 0:
            raise OutOfResources("the signal table is full")
        with self._lock:
            self._info[handle] = SignalInfo(consumers, attributes, owner, kind)
        return handle

    # -- IPC signals: a page of their own, shared with other processes ----------------------

    def _create_ipc(self, initial_value, consumers, attributes):
        """ROCr allocates an IPC signal in memory it can export: here a page of the arena,
        shared from the start, whose address is the handle (ipc_shared.c lays it out)."""
        page = self._arena.allocate(IPC_PAGE, owner=self, info={"signal": "ipc"})
        try:
            self._share(page)
            handle = lib.sg_shared_signal_create(page.address, initial_value)
            if handle == 0:
                raise OutOfResources("this process holds too many IPC signals")
        except BaseException:
            self._arena.free(page.address)
            raise
        with self._lock:
            self._info[handle] = SignalInfo(consumers, attributes, None, BUSY_WAIT, page)
        return handle

    def _share(self, page):
        return self._session.ipc.share(page, self._agents.cpu.node, int(HsaAmdMemoryPoolGlobalFlag.FINE_GRAINED))

    def ipc_handle(self, handle):
        """hsa_amd_ipc_signal_create: the eight words another process attaches."""
        page = self.info(handle).page
        if page is None:
            raise InvalidArgument("the signal was not created with HSA_AMD_SIGNAL_IPC")
        return self._share(page)

    def attach_ipc(self, words):
        """hsa_amd_ipc_signal_attach: a handle of this process for the signal `words` names
        (a new mapping of its page, as ROCr maps it again)."""
        page = self._session.ipc.map(words)
        if lib.sg_shared_signal_open(page.address) != 0:
            self._arena.free(page.address)
            raise InvalidArgument("the IPC handle's memory holds no IPC signal")
        with self._lock:
            self._info[page.address] = SignalInfo((), HsaAmdSignalAttribute.IPC, None, BUSY_WAIT, page)
        return page.address

    def require(self, handle):
        """`handle` if it names a live signal. ROCr converts every signal argument alike:
        handle 0 is InvalidArgument, any other dead or forged handle InvalidSignal."""
        if int(handle) == 0:
            raise InvalidArgument("signal handle is 0")
        if not valid(handle):
            raise InvalidSignal(f"no live signal with handle {int(handle):#x}")
        return handle

    def info(self, handle):
        self.require(handle)
        with self._lock:
            return self._info.get(handle) or SignalInfo((), 0)

    def destroy(self, handle, owner=None):
        self.require(handle)
        with self._lock:
            info = self._info.get(handle)
            if info is not None and info.owner is not owner:
                raise InvalidSignal(f"signal {int(handle):#x} belongs to a runtime object (a queue's doorbell)")
        # Freed in C first: two racing destroys of one handle see exactly one success.
        page = info.page if info is not None else None
        freed = lib.sg_shared_signal_close(handle) if page is not None else lib.sg_signal_free(handle)
        if freed != 0:
            raise InvalidSignal(f"no live signal with handle {int(handle):#x}")
        with self._lock:
            self._info.pop(handle, None)
        if page is not None:
            self._arena.free(page.address)      # other processes keep their mappings

    def create_group(self, handles, consumers=()):
        """ROCr's order: every signal (0 is InvalidArgument), then every consumer agent."""
        if not handles:
            raise InvalidArgument("a signal group needs at least one signal")
        for handle in handles:
            self.require(handle)
        for agent in consumers:
            self._agents.get(agent)
        return self.groups.add(tuple(handles))

    def group(self, handle):
        return self.groups.get(handle)

    def destroy_group(self, handle):
        self.groups.remove(handle)

    def close(self):
        self.handlers.close()
        for handle, _ in list(self.groups):
            self.groups.remove(handle)
        lib.sg_signal_table_close()
        self._info.clear()


class _Registration:
    __slots__ = ("handle", "condition", "value", "callback")

    def __init__(self, handle, condition, value, callback):
        self.handle, self.condition, self.value, self.callback = handle, condition, value, callback


class AsyncHandlers:
    """hsa_amd_signal_async_handler: one thread per session waits in C (no GIL) on
    every registered signal plus a control signal, and calls each handler whose
    condition holds with the value seen. A handler returning False is deregistered;
    one returning True stays armed and, as in ROCr, runs again while its condition
    still holds. Handlers of a destroyed signal are dropped without being called."""

    def __init__(self, signals):
        self._signals = signals
        self._registrations = []
        self._lock = threading.Lock()
        self._control = 0
        self._thread = None
        self._stopping = False

    def register(self, handle, condition, value, callback):
        """`callback(value) -> bool` runs on the handler thread."""
        with self._lock:
            if self._stopping:
                return
            self._registrations.append(_Registration(handle, int(condition), value, callback))
            if self._thread is None:
                try:
                    # Owned: a client that guesses its handle cannot destroy it.
                    self._control = self._signals.create(0, owner=self)
                except OutOfResources:
                    self._registrations.pop()
                    raise
                self._thread = threading.Thread(target=self._run, name="softgpu-signal-handlers",
                                                daemon=True)
                self._thread.start()
        store(self._control, 1)

    def _snapshot(self):
        with self._lock:
            self._registrations = [r for r in self._registrations if valid(r.handle)]
            return list(self._registrations)

    def _run(self):
        while True:
            # Reset before the snapshot: a registration after this point re-raises it.
            store(self._control, 0)
            if self._stopping:
                return
            armed = self._snapshot()
            index, value = wait_any([self._control] + [r.handle for r in armed],
                                    [SignalCondition.NE] + [r.condition for r in armed],
                                    [0] + [r.value for r in armed])
            if index:
                self._fire(armed[index - 1], value)

    def _fire(self, registration, value):
        try:
            again = registration.callback(value)
        except Exception as error:  # a handler thread has no caller to report to
            trace.internal_error("hsa_amd_signal_async_handler", error)
            again = False
        if not again:
            with self._lock:
                if registration in self._registrations:
                    self._registrations.remove(registration)

    def close(self):
        with self._lock:
            self._stopping = True
            thread = self._thread
        if thread is not None:
            store(self._control, 1)
            if thread is not threading.current_thread():  # hsa_shut_down from inside a handler
                thread.join()
            self._signals.destroy(self._control, owner=self)
