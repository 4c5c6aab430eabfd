"""The runtime session: what exists between hsa_init and the matching hsa_shut_down.

Holds these invariants:
- hsa_init/hsa_shut_down are reference counted in C (softgpu_shim/fastpath_exports.c);
  the session is opened here on the first init and closed on the last shutdown, one
  thread at a time, and every handle of it dies with it;
- calls outside a session fail with HSA_STATUS_ERROR_NOT_INITIALIZED (require());
- a session is built whole or not at all: a broken profile fails hsa_init and
  leaves nothing behind; the parts hsa_init does not need (loader, async copies, images,
  IPC) are made on their first use, and every part closes in dependency order.
"""
import threading

from core import trace
from core.errors import NotInitialized

_session = None


def _loader(session):
    from core.loader.loader import Loader
    return Loader(session)


def _async_ops(session):
    from core.aql.async_ops import AsyncOps
    return AsyncOps(session)


def _images(session):
    from core.images.objects import Images
    return Images(session)


def _ipc(session):
    from core.memory.ipc import Ipc
    return Ipc(session)


def _vmem(session):
    from core.memory.vmem import VirtualMemory
    return VirtualMemory(session)


def _translations(session):
    from core.isa.native.translator import SessionTranslations
    return SessionTranslations()


# Parts made on first use, by attribute. A process that only initializes and queries agents
# never pays for what their modules import (the loader's pyelftools, the images' numpy).
_ON_FIRST_USE = {"loader": _loader, "async_ops": _async_ops, "images": _images, "ipc": _ipc,
                 "vmem": _vmem, "translations": _translations}
# Every part in dependency order; close() goes through it backwards, whatever order the
# parts were made in (the packet processors stop before the loader frees code).
_ORDER = ("arena", "agents", "memory", "ipc", "vmem", "signals", "queues", "loader", "translations",
          "system_events", "packet_processing", "async_ops", "images")


class Session:
    """Every part of the runtime, closed in reverse dependency order. The parts in
    _ON_FIRST_USE are made when first used, the others when the session is."""

    def __init__(self, arena_base=None):
        from core import profile, native
        from core.memory.arena import Arena, VMEM_ADDRESS_SPACE
        from core.agents import Agents
        from core.memory.manager import Memory
        from core.signals import Signals
        from core.aql.processor import PacketProcessing
        from core.system_events import SystemEvents
        from core.queues import Queues
        self.native = native.lib
        self.profile = profile.load()
        self._parts = {}
        self._parts_lock = threading.Lock()
        self._closed = False
        try:
            self.arena = self._own("arena", Arena(self.profile.arena_bytes + VMEM_ADDRESS_SPACE, arena_base))
            self.agents = self._own("agents", Agents(self.profile))
            self.memory = self._own("memory", Memory(self))
            self.signals = self._own("signals", Signals(self))
            self.queues = self._own("queues", Queues(self))
            self.system_events = self._own("system_events", SystemEvents())
            self.packet_processing = self._own("packet_processing", PacketProcessing(self))
        except BaseException:
            self.close()
            raise

    def _own(self, name, part):
        """Register a part (anything with close()) to be closed at shutdown."""
        self._parts[name] = part
        return part

    def __getattr__(self, name):
        make = _ON_FIRST_USE.get(name)
        if make is None:
            raise AttributeError(f"a session has no part {name!r}")
        with self._parts_lock:
            part = self._parts.get(name)
            if part is None:
                if self._closed:
                    raise NotInitialized(f"the session is shut down: no {name} any more")
                part = self._own(name, make(self))
                setattr(self, name, part)   # later uses find it without coming here
            return part

    def made(self, name):
        """The part `name` if it was made, else None (without making it)."""
        return self._parts.get(name)

    def close(self):
        self.native.sg_answers_forget()     # before any handle dies (softgpu_shim/answers.c)
        with self._parts_lock:
            self._closed = True
        for name in reversed(_ORDER):
            part = self._parts.pop(name, None)
            if part is not None:
                part.close()


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
