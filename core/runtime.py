"""The runtime session: what exists between hsa_init and the matching hsa_shut_down.

Holds three invariants:
- hsa_init/hsa_shut_down are reference counted; the session is built on the first
  init and torn down on the last shutdown, and every handle of it dies with it;
- calls outside a session fail with HSA_STATUS_ERROR_NOT_INITIALIZED (require());
- a session is built whole or not at all: a broken profile fails hsa_init and
  leaves nothing behind.
"""
import threading

from core import trace
from core.errors import NotInitialized, RefcountOverflow

_lock = threading.RLock()
_refcount = 0
_session = None

# ROCr keeps its init count in a 32-bit integer.
MAX_REFCOUNT = 0x7FFFFFFF


class Session:
    """Every part of the runtime, built in dependency order and closed in reverse."""

    def __init__(self, arena_base=None):
        from core import profile, native
        from core.memory.arena import Arena
        from core.agents import Agents
        from core.memory.manager import Memory
        from core.signals import Signals
        from core.aql.processor import PacketProcessing
        from core.aql.async_ops import AsyncOps
        from core.system_events import SystemEvents
        from core.queues import Queues
        from core.loader.loader import Loader
        from core.images.objects import Images
        from core.memory.ipc import Ipc
        self.native = native.lib
        self.profile = profile.load()
        self._closers = []
        try:
            self.arena = self._own(Arena(self.profile.arena_bytes, arena_base))
            self.agents = self._own(Agents(self.profile))
            self.memory = self._own(Memory(self))
            self.signals = self._own(Signals(self))
            self.queues = self._own(Queues(self))
            self.loader = self._own(Loader(self))
            self.system_events = self._own(SystemEvents())
            self.packet_processing = self._own(PacketProcessing(self))
            self.async_ops = self._own(AsyncOps(self))
            self.images = self._own(Images(self))
            self.ipc = self._own(Ipc(self))
        except BaseException:
            self.close()
            raise

    def _own(self, part):
        """Register a part (anything with close()) to be closed, in reverse order, at shutdown."""
        self._closers.append(part)
        return part

    def close(self):
        while self._closers:
            self._closers.pop().close()


def init(arena_base=None):
    """hsa_init. `arena_base`: where device memory starts (a replay puts a captured dispatch's
    memory back at its own addresses); only the call that creates the session uses it."""
    global _refcount, _session
    with _lock:
        if _refcount >= MAX_REFCOUNT:
            raise RefcountOverflow("hsa_init called too many times")
        if _refcount == 0:
            _session = Session(arena_base)
            trace.call("hsa_init", session="created")
        _refcount += 1


def shut_down():
    global _refcount, _session
    with _lock:
        if _refcount == 0:
            raise NotInitialized("hsa_shut_down without a matching hsa_init")
        _refcount -= 1
        if _refcount == 0:
            session, _session = _session, None
            session.close()
            trace.call("hsa_shut_down", session="destroyed")


def require():
    """The live session, or NotInitialized."""
    session = _session
    if session is None:
        raise NotInitialized("the HSA runtime is not initialized (call hsa_init first)")
    return session


def current():
    return _session
