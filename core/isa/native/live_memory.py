"""Memory a native dispatch may reach that did not exist when it started: the ranges the
runner checks against are published as the dispatch starts, and a device malloc that a
hostcall serves (HIP's __ockl_dm_alloc) allocates while the kernel runs.

Holds these invariants:
- the runner asks only for an access outside every published range, just before it would
  fault (runner.c's range_holding), so the common path never takes the GIL; the answer is the
  valid range holding the access at that moment (the interpreter checks the live ranges at
  every access), which the asking access site then keeps as its fast range;
- no exception crosses into C: an answer that cannot be made is "no range", and the access
  faults as it would have.
"""
import numpy as np

from core.native import ffi


def valid_ranges(session, agent):
    """(start, end, delta) rows, sorted: what a kernel of `agent` may touch now (arena
    allocations mapped to it, locked and registered host memory) and the host address of each
    (address - delta)."""
    memory = getattr(session, "memory", None)
    if memory is not None:
        return np.ascontiguousarray(memory.host_views(agent))
    starts, ends = session.arena.live_ranges()
    return np.ascontiguousarray(np.stack([starts, ends, np.zeros_like(starts)], axis=1))


class LiveMemory:
    """The valid memory of one agent of a session, asked at run time (sg_env.live holds a
    handle of it, kept alive as long as the session)."""

    def __init__(self, session, agent):
        self.session, self.agent = session, agent
        self.handle = ffi.new_handle(self)

    def holding(self, lo, hi):
        """(start, end, delta) of the valid range holding [lo, hi), or None."""
        ranges = valid_ranges(self.session, self.agent)
        slot = int(np.searchsorted(ranges[:, 0], np.uint64(lo), side="right")) - 1 if len(ranges) else -1
        if slot < 0 or hi > int(ranges[slot, 1]):
            return None
        return tuple(int(x) for x in ranges[slot])


def live_memory(session, agent):
    """The session's LiveMemory of `agent` (one per agent, living with the session)."""
    known = session.__dict__.setdefault("_native_live_memory", {})
    if agent not in known:
        known[agent] = LiveMemory(session, agent)
    return known[agent]


@ffi.def_extern(error=0)
def sg_live_range(live, lo, hi, out):
    found = ffi.from_handle(live).holding(lo, hi)
    if found is None:
        return 0
    out.start, out.end, out.delta = found
    return 1
