"""The packet processor: one thread per queue, consuming AQL packets in order.

Holds four invariants:
- packets run strictly in queue order between the read and the write index, one at
  a time, so the barrier bit holds trivially;
- a slot is handed back (header type INVALID, then read index + 1) after its packet
  finished and before its completion signal drops, so a client that saw the signal
  also sees the slot free;
- a packet's completion signal is decremented exactly once, after its work (and its
  profiling timestamps) are visible;
- the first error puts the queue in its error state: the error callback runs once
  with ROCr's status and no later packet of that queue is processed; a memory fault
  also goes to the system event handlers, and one that handles it spares the process
  the abort ROCr gives an unhandled GPU fault;
- waiting (for the doorbell, for barrier dependencies) never busy-spins and never
  holds the GIL: it sleeps in the C signal wait, in slices short enough to notice
  a queue being destroyed.
"""
import os
import sys
import threading
import time

import numpy as np

from core import signals, trace
from core.aql.packets import Barrier, BarrierValue, KernelDispatch, PacketError, decode
from core.errors import HsaError
from softgpu_shim.hsa_abi import AQL_PACKET_SIZE, PacketType, SignalCondition, Status

# Longest uninterrupted sleep: how quickly a processor notices queue destruction.
WAIT_SLICE_NS = 50_000_000

# SOFTGPU_QUEUE_ERRORS=continue: a queue error with no callback is recorded (trace and
# stderr) instead of aborting the process as ROCr does for GPU faults; for CI and fuzzing.
ABORT_ON_UNHANDLED = os.environ.get("SOFTGPU_QUEUE_ERRORS", "abort") != "continue"


class DispatchLimits:
    """What the agent accepts in a dispatch packet (from its profile)."""

    def __init__(self, spec):
        self.workgroup_max_size = spec["workgroup_max_size"]
        self.workgroup_max_dim = tuple(spec["workgroup_max_dim"])
        self.group_segment_max = spec["lds_bytes"]


class PacketProcessing:
    """The session part that gives every hardware queue its packet processor."""

    def __init__(self, session):
        self.session = session
        session.queues.processor_factory = self.start

    def start(self, queue):
        return PacketProcessor(self.session, queue, DispatchLimits(queue.agent.spec))

    def close(self):
        # Runs before the loader frees code: every processor stops here, not later
        # when the queues part destroys the queues.
        self.session.queues.processor_factory = None
        for queue in self.session.queues:
            if queue.processor is not None:
                queue.processor.close()
                queue.processor = None


class PacketProcessor:
    def __init__(self, session, queue, limits):
        self.session = session
        self.queue = queue
        self.limits = limits
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name=f"softgpu-queue-{queue.id}",
                                        daemon=True)
        self._thread.start()

    def close(self):
        """Stop after the packet in progress; wakes the thread if it is waiting."""
        self._stopping = True
        self.queue.wake()
        if threading.current_thread() is not self._thread:
            self._thread.join()

    # -- the loop ---------------------------------------------------------------

    def _run(self):
        queue = self.queue
        ring = self.session.arena.view(queue.ring_address, queue.size * AQL_PACKET_SIZE)
        while not self._stopping and not queue.inactive:
            index = queue.read_index()
            slot = ring[(index % queue.size) * AQL_PACKET_SIZE:][:AQL_PACKET_SIZE]
            rung = signals.load(queue.doorbell_signal)
            if slot[0] == PacketType.INVALID:
                # Sleep until the doorbell changes; reading it before the header means
                # a packet published in between is never missed.
                signals.wait(queue.doorbell_signal, SignalCondition.NE, rung, WAIT_SLICE_NS)
                continue
            try:
                done = self._execute(np.array(slot), index)
            except HsaError as error:
                self._fail(error)
                return
            except Exception as error:  # the thread's edge: a SoftGPU bug must not die silently
                trace.internal_error(f"queue {queue.id} packet processor", error)
                self._fail(HsaError(f"internal error processing packet {index}: {error!r}"))
                return
            if done is None:
                return
            packet, start, end = done
            slot[0] = PacketType.INVALID
            queue.store_read_index(index + 1)
            self._complete(packet.completion_signal, start, end)

    def _execute(self, snapshot, index):
        """Run one packet: (packet, start, end timestamps), or None if the queue stopped
        while the packet waited (it is then neither retired nor completed)."""
        _, packet = decode(snapshot, self.limits)
        start = time.monotonic_ns()
        if isinstance(packet, KernelDispatch):
            self._dispatch(packet, index)
        elif isinstance(packet, Barrier):
            if not self._barrier(packet):
                return None
            trace.span("barrier", start, queue=self.queue.id, packet=index,
                       kind="barrier-OR" if packet.any else "barrier-AND",
                       dependencies=[hex(h) for h in packet.dependencies])
        elif isinstance(packet, BarrierValue):
            if not self._barrier_value(packet):
                return None
            trace.span("barrier", start, queue=self.queue.id, packet=index, kind="barrier-value",
                       dependencies=[hex(packet.signal)])
        return packet, start, time.monotonic_ns()

    def _dispatch(self, packet, index):
        from core.isa import launch
        from core.loader import find_kernel
        kernel = find_kernel(self.session, packet.kernel_object)
        if kernel is None:
            raise PacketError(f"kernel_object {packet.kernel_object:#x} is no loaded kernel",
                              Status.ERROR_INVALID_CODE_OBJECT)
        queue = self.queue
        start = time.monotonic_ns()
        stats = launch.run_dispatch(
            self.session, kernel, grid=packet.grid, workgroup=packet.workgroup,
            kernarg_address=packet.kernarg_address,
            packet_address=queue.ring_address + (index % queue.size) * AQL_PACKET_SIZE,
            queue_address=queue.address, dispatch_id=index,
            private_segment_size=packet.private_segment_size,
            group_segment_size=packet.group_segment_size)
        trace.span("dispatch", start, queue=queue.id, dispatch_id=index, kernel=kernel.name,
                   grid=packet.grid, workgroup=packet.workgroup, waves=stats.waves,
                   workgroups=stats.workgroups, lane_instructions=stats.lane_instructions,
                   seconds=stats.seconds, tier=stats.tier)

    def _barrier(self, packet):
        """True once the dependencies are met; False if the queue is stopping first."""
        pending = list(packet.dependencies)
        while pending:
            for handle in pending:
                self._require_live(handle, "barrier dependency")
            if self._stopping:
                return False
            if packet.any:
                index, _ = signals.wait_any(pending, [SignalCondition.EQ] * len(pending),
                                            [0] * len(pending), WAIT_SLICE_NS)
                if index is not None:
                    return True
            else:
                _, satisfied = signals.wait(pending[0], SignalCondition.EQ, 0, WAIT_SLICE_NS)
                if satisfied:
                    pending.pop(0)
        return True

    def _barrier_value(self, packet):
        """True once (value & mask) <cond> compare holds; False if the queue is stopping first."""
        if packet.signal == 0:
            return True  # a NULL signal is a satisfied dependency
        holds = {SignalCondition.EQ: lambda v: v == packet.value,
                 SignalCondition.NE: lambda v: v != packet.value,
                 SignalCondition.LT: lambda v: v < packet.value,
                 SignalCondition.GTE: lambda v: v >= packet.value}[packet.condition]
        while True:
            self._require_live(packet.signal, "barrier-value signal")
            if self._stopping:
                return False
            value = signals.load(packet.signal)
            if holds(value & packet.mask):
                return True
            signals.wait(packet.signal, SignalCondition.NE, value, WAIT_SLICE_NS)

    @staticmethod
    def _require_live(handle, what):
        # Checked before every wait: a dependency destroyed while waited on would
        # otherwise make each wait return at once, and the processor spin.
        if not signals.valid(handle):
            raise PacketError(f"{what} {handle:#x} is not a live signal", Status.ERROR_INVALID_PACKET_FORMAT)

    def _complete(self, handle, start, end):
        if not handle:
            return
        if not signals.valid(handle):
            trace.event("packet", queue=self.queue.id, note=f"completion signal {handle:#x} is not live")
            return
        if self.queue.profiling:
            signals.set_timestamps(handle, start, end)
        signals.subtract(handle, 1)

    # -- errors -------------------------------------------------------------------

    def _fail(self, error):
        queue = self.queue
        report = getattr(error, "report", None)
        trace.event("queue_error", queue=queue.id, status=int(error.status),
                    status_name=Status(error.status).name, message=str(error), report=report)
        queue.enter_error_state(error.status)
        handled = False
        if error.status == Status.ERROR_MEMORY_APERTURE_VIOLATION:
            handled = self.session.system_events.memory_fault(queue.agent, (report or {}).get("address"))
        # An unhandled memory fault is reported even to a queue with a callback: ROCr prints
        # its "memory access fault" line whatever the client registered (HIP's callback
        # only names the status before it aborts).
        unhandled_fault = error.status == Status.ERROR_MEMORY_APERTURE_VIOLATION and not handled
        if not queue.has_error_callback or unhandled_fault:
            sys.stderr.write(f"softgpu: queue {queue.id} error {Status(error.status).name}: {error}\n")
            if report:
                sys.stderr.write("softgpu: " + format_fault(report) + "\n")
        if queue.has_error_callback:
            queue.call_error_callback(error.status)
            return
        if ABORT_ON_UNHANDLED and report and not handled:
            # ROCr aborts the process on a GPU fault nobody handles.
            sys.stderr.flush()
            os.abort()


def format_fault(report):
    return ", ".join(f"{k}={v:#x}" if isinstance(v, int) and k in ("pc", "address") else f"{k}={v}"
                     for k, v in report.items())
