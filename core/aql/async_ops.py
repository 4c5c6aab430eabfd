"""Asynchronous copies and functions (hsa_amd_memory_async_copy*, hsa_amd_async_function).

Holds these invariants:
- an operation starts only after every dependency signal has dropped below 1, and
  its completion signal is decremented exactly once, after the work is visible;
- operations never wait on each other through a shared worker: each runs on its own
  thread, so a copy depending on a later copy cannot deadlock;
- at most MAX_IN_FLIGHT operations are pending per session (OUT_OF_RESOURCES beyond),
  and hsa_shut_down waits for every pending one to finish or give up.
"""
import sys
import threading
import time

from core import signals, trace
from core.native import ffi, lib
from core.errors import OutOfResources
from core.hsa_abi import SignalCondition

# A hostile caller could otherwise create threads without bound.
MAX_IN_FLIGHT = 256
WAIT_SLICE_NS = 50_000_000


class AsyncOps:
    def __init__(self, session):
        self.session = session
        self.copy_profiling = False
        self._threads = set()
        self._lock = threading.Lock()
        self._closing = False

    def submit(self, work, dependencies, completion_signal, what, **details):
        """Run work() on its own thread once `dependencies` are satisfied; `details` (bytes,
        direction) go into its trace event."""
        with self._lock:
            self._threads = {t for t in self._threads if t.is_alive()}
            if len(self._threads) >= MAX_IN_FLIGHT:
                raise OutOfResources(f"{MAX_IN_FLIGHT} asynchronous operations already pending")
            thread = threading.Thread(target=self._run, args=(work, tuple(dependencies),
                                                              completion_signal, what, details),
                                      name=f"softgpu-{what}", daemon=True)
            self._threads.add(thread)
        thread.start()

    def _run(self, work, dependencies, completion_signal, what, details):
        for handle in dependencies:
            while not self._closing:
                _, satisfied = signals.wait(handle, SignalCondition.LT, 1, WAIT_SLICE_NS)
                if satisfied or not signals.valid(handle):
                    break
        if self._closing:
            return
        start = time.monotonic_ns()
        try:
            work()
        except CopyFault as fault:
            # A GPU copy engine would fault here; the waiter is still released.
            trace.event("async_fault", op=what, message=str(fault))
            sys.stderr.write(f"softgpu: asynchronous {what} failed: {fault}\n")
        except Exception as error:  # the thread's edge: report, and never leave a waiter hanging
            trace.internal_error(f"async {what}", error)
        end = time.monotonic_ns()
        trace.event("async", op=what, start=start, end=end, seconds=(end - start) / 1e9, **details)
        if completion_signal and signals.valid(completion_signal):
            if self.copy_profiling:
                signals.set_timestamps(completion_signal, start, end)
            signals.subtract(completion_signal, 1)

    def close(self):
        self._closing = True
        for thread in list(self._threads):
            thread.join()


class CopyFault(Exception):
    """Memory validated at submission was gone when the copy ran (freed meanwhile)."""


def _copy(dst, src, size):
    # Fault-free copy: the ranges were live at submission, but the client may free them
    # before the copy runs, as a GPU copy engine would then fault.
    if lib.sg_safe_copy(ffi.cast("void *", dst), ffi.cast("void *", src), size) != 0:
        raise CopyFault(f"copy {src:#x} -> {dst:#x} ({size} bytes) hit unmapped memory")


def copy_bytes(dst, src, size):
    return lambda: _copy(dst, src, size)


def copy_rect(dst, dst_pitch, dst_slice, src, src_pitch, src_slice, width, height, depth):
    """A 3D box copy: `width` bytes x `height` rows x `depth` slices, rows copied whole."""
    def work():
        for z in range(depth):
            for y in range(height):
                _copy(dst + z * dst_slice + y * dst_pitch, src + z * src_slice + y * src_pitch, width)
    return work
