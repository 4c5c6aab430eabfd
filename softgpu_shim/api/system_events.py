"""hsa_amd_register_system_event_handler."""
from _softgpu_hsa import ffi

from core import runtime
from softgpu_shim.api.out import callback as require_callback
from core.hsa_abi import HsaAmdEventType, Status
from softgpu_shim.registry import export


@export("hsa_amd_register_system_event_handler")
def hsa_amd_register_system_event_handler(callback, data):
    require_callback(callback)

    def deliver(agent_handle, address, reasons):
        event = ffi.new("hsa_amd_event_t *")
        event.event_type = HsaAmdEventType.MEMORY_FAULT_EVENT
        event.memory_fault.agent.handle = agent_handle
        event.memory_fault.virtual_address = address
        event.memory_fault.fault_reason_mask = reasons
        return callback(event, data) == Status.SUCCESS

    runtime.require().system_events.register(deliver)
