"""The runtime session: what exists between hsa_init and the matching hsa_shut_down.

Holds three invariants:
- hsa_init/hsa_shut_down are reference counted in C (softgpu_shim/fastpath_exports.c);
  the session is opened here on the first init and closed on the last shutdown, one
  thread at a time, and every handle of it dies with it;
- calls outside a session fail with HSA_STATUS_ERROR_NOT_INITIALIZED (require());
- a session is built whole or not at all: a broken profile fails hsa_init and
  leaves nothing behind.
"""
from core import trace
from core.errors import NotInitialized

_session = None


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
            self.ipc = self._own(Ipc(self))
            self.signals = self._own(Signals(self))
            self.queues = self._own(Queues(self))
            self.loader = self._own(Loader(self))
            self.system_events = self._own(SystemEvents())
            self.packet_processing = self._own(PacketProcessing(self))
            self.async_ops = self._own(AsyncOps(self))
            self.images = self._own(Images(self))
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


def open_session(arena_base=None):
    """The first hsa_init: build the session (the C side serializes opening and closing).
    `arena_base`: where device memory starts (a replay puts a captured dispatch's memory back
    at its own addresses)."""
    global _session
    _session = Session(arena_base)
    trace.call("hsa_init", session="created")


def close_session():
    """The last hsa_shut_down: close the session; calls made meanwhile see it gone."""
    global _session
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
