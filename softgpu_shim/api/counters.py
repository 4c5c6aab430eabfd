"""Hardware counters a software GPU does not have: SPM (hsa_amd_spm_*, streaming performance
monitor counters) and PC sampling (hsa_ven_amd_pcs_*).

Guarantees: each export checks its arguments as ROCr does, in ROCr's order (runtime open,
then the agent: a GPU agent or INVALID_AGENT; then pointers and the session's parameters),
and then gives a deliberate answer that the trace records with its reason:
- SPM: HSA_STATUS_ERROR, what ROCr answers when the driver refuses the SPM request (KFD
  without SPM support);
- PC sampling: no configuration to iterate (SUCCESS, no callback: ROCr's answer for a
  driver that reports none), creation HSA_STATUS_ERROR after the session checks (the driver
  step), and every other call INVALID_ARGUMENT (no session handle ever exists).
"""
from _softgpu_hsa import ffi

from core import runtime
from core.errors import HsaError, InvalidAgent, InvalidArgument
from softgpu_shim.api.out import require_pointer
from core.hsa_abi import HsaVenAmdPcsMethodKind as PcsMethod
from softgpu_shim.registry import export

# Bytes per sample of each method (ROCr's session keeps buffers of whole sample pairs).
_SAMPLE_TYPES = {PcsMethod.HOSTTRAP_V1: "perf_sample_hosttrap_v1_t",
                 PcsMethod.STOCHASTIC_V1: "perf_sample_snapshot_v1_t"}


def _gpu(agent):
    """ROCr's check for both families: a live GPU agent, else INVALID_AGENT."""
    session = runtime.require()
    if agent.handle == 0 or not session.agents.get(agent.handle).is_gpu:
        raise InvalidAgent("SPM and PC sampling belong to GPU agents")


# ---- SPM ---------------------------------------------------------------------------------

def _no_spm(agent):
    _gpu(agent)
    raise HsaError("SPM: SoftGPU has no streaming performance monitor (a hardware counter block)")


@export("hsa_amd_spm_acquire")
def hsa_amd_spm_acquire(preferred_agent):
    _no_spm(preferred_agent)


@export("hsa_amd_spm_release")
def hsa_amd_spm_release(preferred_agent):
    _no_spm(preferred_agent)


@export("hsa_amd_spm_set_dest_buffer")
def hsa_amd_spm_set_dest_buffer(preferred_agent, size_in_bytes, timeout, size_copied, dest, is_data_loss):
    _no_spm(preferred_agent)


# ---- PC sampling ---------------------------------------------------------------------------

@export("hsa_ven_amd_pcs_iterate_configuration")
def hsa_ven_amd_pcs_iterate_configuration(agent, configuration_callback, callback_data):
    _gpu(agent)      # then no configuration: the callback is never called


def _create(agent, method, interval, buffer_size, data_ready_callback, pc_sampling):
    _gpu(agent)
    require_pointer(pc_sampling, "pc_sampling")
    require_pointer(data_ready_callback, "data_ready_callback")
    sample = _SAMPLE_TYPES.get(method)
    if sample is None or not interval or not buffer_size or buffer_size % (2 * ffi.sizeof(sample)):
        raise InvalidArgument(f"PC sampling session: method {method}, interval {interval}, buffer_size "
                              f"{buffer_size} (a multiple of two samples) is not a valid session")
    raise HsaError("PC sampling: SoftGPU offers no sampling configuration")


@export("hsa_ven_amd_pcs_create")
def hsa_ven_amd_pcs_create(agent, method, units, interval, latency, buffer_size, data_ready_callback,
                           client_callback_data, pc_sampling):
    _create(agent, method, interval, buffer_size, data_ready_callback, pc_sampling)


@export("hsa_ven_amd_pcs_create_from_id")
def hsa_ven_amd_pcs_create_from_id(pcs_id, agent, method, units, interval, latency, buffer_size,
                                   data_ready_callback, client_callback_data, pc_sampling):
    _create(agent, method, interval, buffer_size, data_ready_callback, pc_sampling)


def _no_session(pc_sampling):
    raise InvalidArgument(f"{int(pc_sampling.handle):#x} is not a PC sampling session")


@export("hsa_ven_amd_pcs_destroy", needs_runtime=False)
def hsa_ven_amd_pcs_destroy(pc_sampling):
    _no_session(pc_sampling)


@export("hsa_ven_amd_pcs_start", needs_runtime=False)
def hsa_ven_amd_pcs_start(pc_sampling):
    _no_session(pc_sampling)


@export("hsa_ven_amd_pcs_stop", needs_runtime=False)
def hsa_ven_amd_pcs_stop(pc_sampling):
    _no_session(pc_sampling)


@export("hsa_ven_amd_pcs_flush", needs_runtime=False)
def hsa_ven_amd_pcs_flush(pc_sampling):
    _no_session(pc_sampling)
