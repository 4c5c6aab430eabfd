"""The packet processor: one thread per queue, consuming AQL packets in order.

The loop runs in C (softgpu_shim/processor.c, which states the packet-level invariants:
queue order, snapshots, retiring before completing, ROCr's statuses for malformed
packets, waits without the GIL). This thread enters it with sg_proc_next and comes back
to Python only for what is new, rare or wrong: a kernel dispatch the engine runs (every
kernel without a native entry, and every kernel while recording: trace, timeline or
capture), a barrier packet that finished while recording (its span), a fault of a native
entry, an error, a note for the trace. It holds these invariants of its own:
- the first error puts the queue in its error state: the error callback runs once with
  ROCr's status and no later packet of that queue is processed; a memory fault also goes
  to the system event handlers, and one that handles it spares the process the abort
  ROCr gives an unhandled GPU fault;
- every kernel fault (memory, trap, illegal instruction) is reported on stderr the same way,
  whether or not the queue has a callback or a handler took it: the report (kernel, pc,
  instruction, workgroup, wave, lane, address, reason), then the flight recorder's last
  events before it (core.trace), as after an internal error;
- an exception of SoftGPU's own anywhere in the thread (running a packet, recording it,
  reporting an error) is reported (trace and stderr) and fails the queue with
  HSA_STATUS_ERROR: its error callback runs, or with none the process aborts as ROCr does on a
  fatal queue error (SOFTGPU_QUEUE_ERRORS=continue records it instead); the thread never
  ends leaving the host waiting on a completion signal nobody will decrement.
"""
import os
import sys
import threading
import time

from core import settings, trace
from core.errors import HsaError, OutOfResources
from core.native import ffi, lib
from core.hsa_abi import HsaPacketHeader, HsaPacketHeaderWidth, PacketType, Status

FAULT_EVENTS = 16           # flight-recorder events a fault report shows on stderr


class PacketError(HsaError):
    """A packet the processor refuses; its status goes to the queue's error callback."""


class InternalError(HsaError):
    """An exception of SoftGPU's own in the packet processor: the queue's error, never silence."""


class PacketProcessing:
    """The session part that gives every hardware queue its packet processor."""

    def __init__(self, session):
        from core.capture.request import requested
        self.session = session
        self.capture = requested()      # read once per session, not per dispatch
        session.queues.processor_factory = self.start

    def start(self, queue):
        return PacketProcessor(self.session, queue, self.capture)

    def close(self):
        # Runs before the loader frees code: every processor stops here, not later
        # when the queues part destroys the queues.
        self.session.queues.processor_factory = None
        for queue in self.session.queues:
            if queue.processor is not None:
                queue.processor.close()
                queue.processor = None


class PacketProcessor:
    def __init__(self, session, queue, capture):
        self.session = session
        self.queue = queue
        spec = queue.agent.spec
        self._capture = capture             # the session's capture request, or None
        # Read once per queue, held by the C loop (which hands every packet to Python while
        # recording), not looked up per packet.
        recording = any(settings.get(name) for name in settings.recorded_names())
        proc = lib.sg_proc_create(queue.address, spec["workgroup_max_size"], *spec["workgroup_max_dim"],
                                  spec["lds_bytes"], spec["grid_max_size"], int(recording))
        if proc == ffi.NULL:
            raise OutOfResources("no memory for a packet processor")
        self._proc = ffi.gc(proc, lib.sg_proc_destroy)
        from core.isa.plan import StopFlag
        self._stop = StopFlag()             # ends the dispatch in progress (run_dispatch)
        self._thread = threading.Thread(target=self._run, name=f"softgpu-queue-{queue.id}",
                                        daemon=True)
        self._thread.start()

    def close(self):
        """Stop during the packet in progress; wakes the thread if it is waiting."""
        self._stop.set()
        lib.sg_proc_stop(self._proc)
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def deactivate(self):
        """No packet starts any more, and the one in progress ends (hsa_queue_inactivate, the
        queue's error state)."""
        self._stop.set()
        lib.sg_proc_deactivate(self._proc)

    # -- the loop ---------------------------------------------------------------

    def _run(self):
        try:
            self._loop()
        except BaseException as error:      # the thread's edge: nothing ends it silently
            self._internal_error(error)

    def _loop(self):
        from core.isa.plan import DispatchStopped     # not at import: hsa_init needs no engine
        event = ffi.new("sg_proc_event *")
        outcome = lib.sg_proc_next(self._proc, event)
        while outcome != lib.SG_PROC_STOPPED:
            if outcome == lib.SG_PROC_ERROR:
                self._fail(PacketError(ffi.string(event.text).decode(), event.status))
                return
            if outcome == lib.SG_PROC_FAULT:
                self._fail(self._native_fault(event))
                return
            if outcome == lib.SG_PROC_NOTE:
                trace.event("packet", queue=self.queue.id, note=ffi.string(event.text).decode())
            else:
                try:
                    if outcome == lib.SG_PROC_BARRIER:
                        self._trace_barrier(event)
                    else:
                        self._dispatch(event)
                except DispatchStopped:
                    return      # the queue is going away: the packet is neither retired nor completed
                except HsaError as error:
                    self._fail(error)
                    return
                except Exception as error:  # a SoftGPU bug: the queue's error, not the thread's end
                    self._internal_error(error, f"processing packet {event.index}")
                    return
                if lib.sg_proc_retire(self._proc, event) == lib.SG_PROC_NOTE:
                    outcome = lib.SG_PROC_NOTE      # the note is in `event`: record it first
                    continue
            outcome = lib.sg_proc_next(self._proc, event)

    def _dispatch(self, event):
        from core.isa.launch import plan_launch, run_plan
        from core.loader import find_kernel
        packet = event.packet
        kernel = find_kernel(self.session, packet.kernel_object)
        if kernel is None:
            raise PacketError(f"kernel_object {packet.kernel_object:#x} is no loaded kernel",
                              Status.ERROR_INVALID_CODE_OBJECT)
        grid = (packet.grid_size_x, packet.grid_size_y, packet.grid_size_z)
        workgroup = (packet.workgroup_size_x, packet.workgroup_size_y, packet.workgroup_size_z)
        trace.note("dispatch_start", queue=self.queue.id, dispatch_id=event.index, kernel=kernel.name,
                   grid=grid, workgroup=workgroup)
        start = time.monotonic_ns()
        plan = plan_launch(
            self.session, kernel, grid=grid, workgroup=workgroup,
            kernarg_address=int(ffi.cast("uintptr_t", packet.kernarg_address)),
            packet_address=event.packet_address, queue_address=self.queue.address,
            dispatch_id=event.index, private_segment_size=packet.private_segment_size,
            group_segment_size=packet.group_segment_size,
            group_segment_limit=self.queue.agent.spec["lds_bytes"], global_sync=self.queue.global_sync,
            stop=self._stop)
        if self._capture is not None:    # capture wraps the engine, around the accepted dispatch
            from core.capture.recorder import run_captured
            stats = run_captured(self.session, plan, run_plan, self._capture)
        else:
            stats = run_plan(self.session, plan)
        if trace.enabled():
            trace.span("dispatch", start, queue=self.queue.id, dispatch_id=event.index, kernel=kernel.name,
                       grid=grid, workgroup=workgroup, waves=stats.waves, workgroups=stats.workgroups,
                       lane_instructions=stats.lane_instructions, seconds=stats.seconds, tier=stats.tier)

    def _trace_barrier(self, event):
        """The span of a barrier packet the C loop ran (it hands them over only while recording)."""
        header = event.packet.header
        kind = (header >> HsaPacketHeader.TYPE) & ((1 << HsaPacketHeaderWidth.TYPE) - 1)
        if kind == PacketType.VENDOR_SPECIFIC:
            dependencies = [ffi.cast("hsa_amd_barrier_value_packet_t *", ffi.addressof(event.packet)).signal.handle]
            name = "barrier-value"
        else:
            barrier = ffi.cast("hsa_barrier_and_packet_t *", ffi.addressof(event.packet))
            dependencies = [s.handle for s in barrier.dep_signal if s.handle]
            name = "barrier-OR" if kind == PacketType.BARRIER_OR else "barrier-AND"
        trace.span("barrier", event.start, queue=self.queue.id, packet=event.index, kind=name,
                   dependencies=[hex(h) for h in dependencies])

    def _native_fault(self, event):
        """The KernelFault of a native entry's fault report, as the interpreter reports one.
        An entry is bound only while its kernel is loaded (unbinding waits for it), so the
        kernel is found."""
        from core.isa.native.dispatch import entry_fault
        from core.loader import find_kernel
        return entry_fault(self.session, find_kernel(self.session, event.packet.kernel_object), event.fault)

    # -- errors -------------------------------------------------------------------

    def _internal_error(self, error, doing="in the packet processor"):
        """Report `error` (a SoftGPU bug or a failure of the machine: a disk full, a directory
        gone) and fail the queue with it. Reporting may fail for the same reason the packet
        did (a trace file on that disk): then the queue still fails, by the shortest route."""
        failure = InternalError(f"internal error {doing}: {type(error).__name__}: {error}")
        try:
            trace.internal_error(f"queue {self.queue.id} packet processor", error)
            self._fail(failure)
        except BaseException as second:
            self._fail_plainly(failure, second)

    def _fail_plainly(self, error, second):
        """_fail without the trace and the system event handlers, which just failed."""
        queue = self.queue
        try:
            sys.stderr.write(f"softgpu: queue {queue.id} error {Status(error.status).name}: {error} "
                             f"(reporting it failed too: {second!r})\n")
            sys.stderr.flush()
        except BaseException:   # stderr closed: the callback or the abort still tells the host
            pass
        queue.enter_error_state(error.status)
        self._tell_host(error.status, abort=True)

    def _tell_host(self, status, abort):
        """The queue's error callback hears of a failed queue; with none, the process aborts
        when `abort` (ROCr's rule for a fault nobody handles), unless SOFTGPU_QUEUE_ERRORS=continue
        asks to go on."""
        if self.queue.has_error_callback:
            self.queue.call_error_callback(status)
        elif abort and settings.get("SOFTGPU_QUEUE_ERRORS") == "abort":
            try:
                sys.stderr.flush()
            except BaseException:   # stderr gone: the abort still tells the host
                pass
            os.abort()

    def _fail(self, error):
        queue = self.queue
        report = getattr(error, "report", None)
        # The flight recorder's last events before a kernel fault or an internal error, each
        # without its own `recent`: an earlier queue error's would nest every earlier report in
        # this one, and printing or dumping that chain grows with every fault of the process.
        before = (trace.recent(FAULT_EVENTS, nested=False)
                  if report or isinstance(error, InternalError) else None)
        trace.event("queue_error", queue=queue.id, status=int(error.status),
                    status_name=Status(error.status).name, message=str(error), report=report,
                    recent=before)
        _write_flight_recorder()
        queue.enter_error_state(error.status)
        handled = False
        if error.status == Status.ERROR_MEMORY_APERTURE_VIOLATION:
            handled = self.session.system_events.memory_fault(queue.agent, (report or {}).get("address"))
        # Every kernel fault (memory, trap, illegal instruction) is reported the same way
        # whether or not the queue has a callback or a handler took it: ROCr prints its
        # "memory access fault" line whatever the client registered, and HIP's callback only
        # names the status before it aborts, so stderr is where a user finds which kernel,
        # PC, wave and lane. Other errors go to the callback alone when there is one.
        if report or not queue.has_error_callback:
            sys.stderr.write(f"softgpu: queue {queue.id} error {Status(error.status).name}: {error}\n")
            if report:
                sys.stderr.write("softgpu: " + format_fault(report) + "\n")
            if before:
                sys.stderr.write("softgpu: the last events before it (flight recorder):\n"
                                 + trace.format_records(before) + "\n")
        # ROCr aborts the process on a GPU fault nobody handles (SOFTGPU_QUEUE_ERRORS=continue
        # records it instead, for CI and fuzzing); an internal error nobody is told of would
        # leave the host waiting forever.
        self._tell_host(error.status, abort=bool(report and not handled or isinstance(error, InternalError)))


def _write_flight_recorder():
    """SOFTGPU_FLIGHT_RECORDER=path: the whole ring is written there at every queue error
    (before an abort), for a CI job that faulted without a trace."""
    path = settings.get("SOFTGPU_FLIGHT_RECORDER")
    if path:
        try:
            trace.dump(path)
        except OSError as error:
            sys.stderr.write(f"softgpu: SOFTGPU_FLIGHT_RECORDER={path} cannot be written: {error}\n")


def format_fault(report):
    return ", ".join(f"{k}={v:#x}" if isinstance(v, int) and k in ("pc", "address") else f"{k}={v}"
                     for k, v in report.items())
