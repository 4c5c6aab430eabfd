"""Capturing dispatches: SOFTGPU_CAPTURE=DIR saves each dispatch for `softgpu replay`.

SOFTGPU_CAPTURE_KERNEL=PATTERN keeps only kernels whose name matches (fnmatch: an exact
name, or `gemm_*`); SOFTGPU_CAPTURE_LIMIT=BYTES (default 1 GiB) bounds what one capture may
hold. Capture wraps the engine from outside: the packet processor of a queue made while
SOFTGPU_CAPTURE is set runs each accepted dispatch through run_captured. Holds these
invariants:
- the three variables are read once per session (requested(), when its packet processing
  starts), not per dispatch;
- a dispatch is captured whole or not at all: one that can reach more memory than the limit
  is skipped with a message on stderr and a trace event giving both sizes;
- the before-state is read after the packet was accepted and before any wave runs, the
  after-state right after the last wave ends or the fault, before the completion signal;
- capturing never changes what the dispatch does, returns or raises.
"""
import fnmatch
import itertools
import os
import sys
import threading
from dataclasses import dataclass

from core import settings, trace
from core.capture import store
from core.memory import host

_sequence = itertools.count(1)
_sequence_lock = threading.Lock()


@dataclass(frozen=True)
class Request:
    """What SOFTGPU_CAPTURE, _KERNEL and _LIMIT ask for."""
    directory: str
    pattern: str          # "" or None: every kernel
    limit: int            # bytes one capture may hold


def requested():
    """The captures the SOFTGPU_CAPTURE* variables ask for, or None when SOFTGPU_CAPTURE is unset."""
    directory = settings.get("SOFTGPU_CAPTURE")
    if not directory:
        return None
    return Request(directory, settings.get("SOFTGPU_CAPTURE_KERNEL"), settings.get("SOFTGPU_CAPTURE_LIMIT"))


def run_captured(session, plan, run, request):
    """run(session, plan) — a dispatch's run (core.isa.launch.run_plan) — wrapped in its
    capture when the request's kernel pattern and limit let it be captured; returns and
    raises what run does."""
    from core.isa.faults import KernelFault
    capture = begin(session, plan.kernel, plan.launch(), request)
    if capture is None:
        return run(session, plan)
    try:
        stats = run(session, plan)
    except KernelFault as fault:
        capture.finish(fault=fault)
        raise
    capture.finish(stats=stats)
    return stats


def begin(session, kernel, dispatch, request):
    """A Capture of this dispatch (`dispatch`: run_dispatch's keyword arguments), or None when
    the request does not ask for it."""
    pattern = request.pattern
    if pattern and not (fnmatch.fnmatchcase(kernel.name, pattern)
                        or fnmatch.fnmatchcase(kernel.symbol_name, pattern)):
        return None
    ranges = _reachable(session, kernel.agent)
    total = sum(end - start for start, end, *_ in ranges)
    limit = request.limit
    if total > limit:
        message = (f"not capturing {kernel.name}: it can reach {total} bytes of device memory, more "
                   f"than SOFTGPU_CAPTURE_LIMIT={limit}")
        sys.stderr.write(f"softgpu: {message}\n")
        trace.event("capture_skipped", kernel=kernel.name, bytes=total, limit=limit, message=message)
        return None
    with _sequence_lock:
        number = next(_sequence)
    folder = os.path.join(request.directory, f"{os.getpid()}-{number:04d}-{kernel.name}"[:200])
    return Capture(session, kernel, dispatch, ranges, folder)


def _reachable(session, agent):
    """[(start, end, space, reader)] of every range a kernel of `agent` can reach: arena
    allocations as allocated, host ranges at their host address (a locked range's agent
    address is the runtime's alias of the same bytes, which replay locks again)."""
    arena = session.arena
    allocations, host_spans = session.memory.reachable(agent)
    ranges = [(a.address, a.end, "arena", lambda a=a: arena.view(a.address, a.size)) for a in allocations]
    for start, end, kind, host_start in host_spans:
        if start == host_start:
            ranges.append((start, end, kind, lambda s=start, n=end - start: host.view(s, n)))
    return ranges


class Capture:
    def __init__(self, session, kernel, dispatch, ranges, folder):
        self.folder = folder
        self.ranges = ranges
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, store.CODE_OBJECT), "wb") as f:
            f.write(bytes(kernel.code_object.elf_bytes))
        for start, _end, _space, read in ranges:
            store.write_range(folder, "before", start, read())
        arena = session.arena
        gpus = list(session.agents.gpus)
        self.manifest = {
            "format": store.FORMAT,
            "softgpu": _version(),
            "profile": session.profile.data["name"],
            "agent": {"index": gpus.index(kernel.agent) if kernel.agent in gpus else 0,
                      "name": getattr(kernel.agent, "name", None)},
            "arena": {"base": arena.base, "size": arena.size},
            "kernel": {"name": kernel.name, "symbol": kernel.symbol_name,
                       "kernel_object": kernel.kernel_object,
                       "load_base": kernel.code_object.load_base},
            "dispatch": {key: list(value) if isinstance(value, tuple) else value
                         for key, value in dispatch.items()},
            "kernarg": self._bytes_at(dispatch["kernarg_address"], kernel.kernarg_segment_size).hex(),
            "ranges": [{"start": start, "size": end - start, "space": space}
                       for start, end, space, _read in ranges],
        }

    def _bytes_at(self, address, size):
        """`size` bytes at `address` if one captured range holds them (else none: informational)."""
        for start, end, _space, read in self.ranges:
            if start <= address and address + size <= end:
                return read()[address - start:address - start + size].tobytes()
        return b""

    def finish(self, stats=None, fault=None):
        """Save the after-state and how the dispatch ended (its stats, or its fault report)."""
        for start, _end, _space, read in self.ranges:
            store.write_range(self.folder, "after", start, read())
        self.manifest["result"] = {
            "fault": None if fault is None else {"status": fault.status.name, **fault.report},
            "tier": getattr(stats, "tier", None),
            "waves": getattr(stats, "waves", None),
        }
        store.write_manifest(self.folder, self.manifest)
        trace.event("capture", kernel=self.manifest["kernel"]["name"], folder=self.folder,
                    bytes=sum(r["size"] for r in self.manifest["ranges"]))


def _version():
    from importlib import metadata
    try:
        return metadata.version("softgpu")
    except metadata.PackageNotFoundError:
        return "unknown"
