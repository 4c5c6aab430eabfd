"""The translator thread: kernels' translations made in the background while their first
dispatches run on the interpreter (SOFTGPU_ENGINE=auto, core/isa/tiering.py).

Holds these invariants:
- one thread, one translation at a time, in the order asked (llvmlite's compile releases the
  GIL, so the interpreter runs on meanwhile; building the IR is Python and shares it), at
  the lowest priority (NICE);
- every compile holds dispatch.llvm_gate, as synchronous ones do, so a dispatch that only
  looks for a cached translation never blocks behind this thread's compile;
- a finished translation is traced (`native_compile`, background=True) and settles its
  Pending, so the kernel's next dispatch (or the rest of a long one) runs it;
- quiesce() (hsa_shut_down) and the process's exit cancel what is queued and wait for the
  translation in flight at most SHUTDOWN_WAIT_SECONDS: a translation is asked for only once
  its kernel has paid its rent (core/isa/tiering.py, in this process or earlier ones), so
  the one in flight is finished and written to the disk cache, where the next process finds
  it, rather than dropped (a short process would otherwise never finish one); no thread is
  inside LLVM when the process ends normally. A cancelled kernel is translated again when
  next dispatched (its Pending settles with Cancelled).
"""
import atexit
import collections
import contextlib
import functools
import os
import threading
import time

# The longest hsa_shut_down or the exit waits for the translation in flight: the largest
# suite kernel (~37,000 instructions at -O0) compiles in ~37 s here; a wait past the bound
# returns, the thread finishing (or dying with the process) on its own.
SHUTDOWN_WAIT_SECONDS = 60.0
# What a translation costs: ~0.4 s for any module (IR built and printed, pass pipeline,
# MCJIT engine; a 27-instruction kernel took 0.44 s) plus ~0.5 s per 1,000 instructions (the
# suite's kernels from an empty cache on this 2-core machine). Each compile measured moves a
# correction factor a quarter of the way (RATE_WEIGHT) to its own ratio of actual to expected
# time (clamped to RATE_CLAMP either way, so one outlier does not swing it), so a faster or
# slower host corrects the estimate within a few kernels.
FIXED_SECONDS = 0.4
# The translator thread's nice value (Linux sets priorities per thread): it takes a core
# only when no dispatch thread wants it. On this loaded 2-core machine, 67 suite kernels from
# an empty cache ran in 9.8 s at the default priority and 5.3 s at 19 (interpreter: 4.9 s).
NICE = 19
SECONDS_PER_INSTRUCTION = 0.5e-3
# While a dispatch runs on the interpreter, the thread sleeps PACE times as long as it took to
# build each block's IR: building IR is Python and takes the GIL from the interpreter (the
# two share it in 5 ms turns), and at nice 19 on a loaded machine the thread can be
# descheduled holding it. Sleeping 3x caps its share at ~1/8 of the interpreter's time.
PACE = 3.0
RATE_WEIGHT = 0.25
RATE_CLAMP = 8.0


class Cancelled(Exception):
    """A queued translation dropped at shutdown; the kernel's next dispatch asks again."""


class Translator:
    def __init__(self):
        self._cond = threading.Condition()
        self._queue = collections.deque()       # (Work, Pending) in the order asked
        self._thread = None
        self._busy = False                      # a translation is being made
        self._closed = False
        self.interpreting = 0                   # dispatches running on the interpreter (tiering)
        self.free_at = 0.0                      # monotonic time the queue should be empty by
        self.scale = 1.0                        # measured / modelled compile time

    def expected_seconds(self, instructions):
        """What translating a kernel of `instructions` instructions should take."""
        return self.scale * (FIXED_SECONDS + instructions * SECONDS_PER_INSTRUCTION)

    def submit(self, work, pending):
        """Queue `work`, whose Pending is settled once it is made; pending.expected_ready says
        when that should be (after what is queued before it)."""
        with self._cond:
            if self._closed:
                pending.settle(error=Cancelled(f"{work.name}: the process is exiting"))
                return
            now = time.monotonic()
            self.free_at = max(self.free_at, now) + self.expected_seconds(len(work.program.instructions))
            pending.expected_ready = self.free_at
            self._queue.append((work, pending))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="softgpu-translator",
                                                daemon=True)
                self._thread.start()
            self._cond.notify()

    def _run(self):
        from core.isa.native.dispatch import llvm_gate
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
        except OSError:
            pass
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed and not self._queue:
                    return
                work, pending = self._queue.popleft()
                self._busy = True
            try:
                with llvm_gate:
                    paced = functools.partial(work.build, pace=self._pacer())
                    made = pending.make(lambda: work.made(paced, background=True))
                self._measured(made, len(work.program.instructions))
            except BaseException:       # the dispatch that next asks gets the error, as its own
                pass
            finally:
                with self._cond:
                    self._busy = False
                    if not self._queue:
                        self.free_at = time.monotonic()
                    self._cond.notify_all()

    @contextlib.contextmanager
    def interpreter_running(self):
        """Around a dispatch's run on the interpreter: the IR is built at PACE meanwhile."""
        with self._cond:
            self.interpreting += 1
        try:
            yield
        finally:
            with self._cond:
                self.interpreting -= 1

    def _pacer(self):
        """The pace() of one translation's IR build: it sleeps PACE times a block's building
        while a dispatch runs on the interpreter."""
        last = [time.perf_counter()]

        def pace():
            now = time.perf_counter()
            if self.interpreting:
                time.sleep((now - last[0]) * PACE)
                now = time.perf_counter()
            last[0] = now
        return pace

    def _measured(self, made, instructions):
        if getattr(made, "cached", True):
            return                      # loaded from disk (or untranslatable): says nothing of compiling
        modelled = FIXED_SECONDS + instructions * SECONDS_PER_INSTRUCTION
        ratio = min(max(made.compile_seconds / modelled, 1 / RATE_CLAMP), RATE_CLAMP)
        self.scale += RATE_WEIGHT * (ratio - self.scale)

    def quiesce(self, timeout=SHUTDOWN_WAIT_SECONDS):
        """Cancel what is queued and wait up to `timeout` seconds for the translation in
        flight; True if none is in flight any more."""
        deadline = time.monotonic() + timeout
        with self._cond:
            dropped, self._queue = list(self._queue), collections.deque()
            for work, pending in dropped:
                pending.settle(error=Cancelled(f"{work.name}: its translation was cancelled"))
            while self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self, timeout=SHUTDOWN_WAIT_SECONDS):
        """quiesce(), then let the thread end (process exit): it is a daemon with nothing left
        to do, so it is not joined."""
        self.quiesce(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()


translator = Translator()       # the process's: translations outlive sessions (compiler.py)
atexit.register(translator.close)


class SessionTranslations:
    """The session's part (core/runtime.py): at hsa_shut_down, after the packet processors
    stopped, no translation is left queued or, within the bound, in flight."""

    def close(self):
        translator.quiesce()
