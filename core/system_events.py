"""System events (hsa_amd_register_system_event_handler): GPU memory faults.

Holds these invariants:
- every registered handler sees every memory fault, in registration order, as ROCr
  calls its system event handlers;
- a fault counts as handled when some handler answered HSA_STATUS_SUCCESS: then the
  process is not aborted even if the queue has no error callback (ROCr's rule).
"""
import threading

from core.hsa_abi import HsaAmdMemoryFaultReason


class SystemEvents:
    def __init__(self):
        self._handlers = []
        self._lock = threading.Lock()

    def register(self, handler):
        """handler(agent_handle, address, reason_mask) -> True if it handled the fault."""
        with self._lock:
            self._handlers.append(handler)

    def memory_fault(self, agent, address, reasons=HsaAmdMemoryFaultReason.PAGE_NOT_PRESENT):
        with self._lock:
            handlers = list(self._handlers)
        handled = False
        for handler in handlers:
            handled = handler(agent.handle, address or 0, int(reasons)) or handled
        return handled

    def close(self):
        with self._lock:
            self._handlers.clear()
