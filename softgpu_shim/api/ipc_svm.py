"""IPC memory (hsa_amd_ipc_memory_*), shared virtual memory (hsa_amd_svm_*) and graphics
interop (hsa_amd_interop_*): what ROCr does on a machine with this feature set.

- IPC memory works across processes of one machine (core.memory.ipc): the exported pages
  live in a memfd that the attaching process maps into its own arena.
- SVM: HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED is false, as on a kernel without KFD SVM.
  ROCr then validates the attribute list exactly as usual and fails in the KFD call:
  set/get answer HSA_STATUS_ERROR after the same argument checks. A prefetch is a
  hint whose KFD failure ROCr ignores: it completes after its dependencies and
  decrements the completion signal (device memory is host memory here: nothing moves).
- Graphics interop: no graphics driver exports buffers to SoftGPU, so mapping any
  interop handle fails as ROCr's does when KFD cannot register it (HSA_STATUS_ERROR);
  unmapping always succeeds, as in ROCr.
"""
from _softgpu_hsa import ffi, lib

from core import runtime, signals
from core.errors import HsaError, IncompatibleArguments, InvalidArgument, InvalidSignal
from core.memory.ipc import HANDLE_WORDS
from softgpu_shim.api.out import address, read_array, require_pointer, write, write_bytes
from softgpu_shim.hsa_abi import HsaAmdSvmAttribute as Svm, HsaAmdSvmModel as SvmModel
from softgpu_shim.registry import export

# Longer arrays than this cannot be valid (an SVM attribute may appear once, an agent
# once, and there are few agents); refusing them keeps a garbage count from making the
# runtime copy gigabytes.
MAX_LIST = 4096



def _check_list(count, what):
    if count > MAX_LIST:
        raise InvalidArgument(f"{count} {what}: more than can be valid")


def _require_agents(session, agents, count):
    """The agents of the array; every one must resolve (INVALID_AGENT otherwise), as ROCr checks them."""
    _check_list(count, "agents")
    return [session.agents.get(agent.handle)
            for agent in read_array(require_pointer(agents, "agents"), "hsa_agent_t", count, "agents")]


# ---- IPC memory -------------------------------------------------------------------------------

@export("hsa_amd_ipc_memory_create")
def hsa_amd_ipc_memory_create(ptr, len, handle):
    session = runtime.require()
    require_pointer(ptr, "ptr")
    require_pointer(handle, "handle")
    # Checked before anything is shared; written only on success, so a failed create
    # leaves the caller's handle as it was, as in ROCr.
    if not lib.sg_writable(handle, 4 * HANDLE_WORDS):
        raise InvalidArgument("handle does not point to a writable hsa_amd_ipc_memory_t")
    base = address(ptr)
    info = session.memory.pointer_info(base)
    words = session.ipc.create(base, len, info.owner.node, info.global_flags)
    write_bytes(handle, _handle_bytes(words), 4 * HANDLE_WORDS, "handle")


def _handle_bytes(words):
    return b"".join(w.to_bytes(4, "little") for w in words)


def read_handle(handle):
    """The eight words of an IPC handle (memory or signal) the caller points at."""
    return [int(w) for w in read_array(require_pointer(handle, "handle"), "uint32_t", HANDLE_WORDS, "handle")]


@export("hsa_amd_ipc_memory_attach")
def hsa_amd_ipc_memory_attach(handle, len, num_agents, mapping_agents, mapped_ptr):
    session = runtime.require()
    require_pointer(mapped_ptr, "mapped_ptr")
    agents = _require_agents(session, mapping_agents, num_agents) if num_agents else []
    address = session.ipc.attach(read_handle(handle), [a for a in agents if a.is_gpu])
    try:
        write(mapped_ptr, "void *", ffi.cast("void *", address), "mapped_ptr")
    except InvalidArgument:
        session.ipc.detach(address)
        raise


@export("hsa_amd_ipc_memory_detach")
def hsa_amd_ipc_memory_detach(mapped_ptr):
    session = runtime.require()
    session.ipc.detach(address(require_pointer(mapped_ptr, "mapped_ptr")))


# ---- SVM ----------------------------------------------------------------------------------------

def _attributes(attribute_list, attribute_count):
    if attribute_count == 0:
        return []
    _check_list(attribute_count, "SVM attributes")
    pairs = read_array(require_pointer(attribute_list, "attribute_list"), "hsa_amd_svm_attribute_pair_t",
                       attribute_count, "attribute_list")
    return [(int(p.attribute), int(p.value)) for p in pairs]


_SET_ONCE = (Svm.GLOBAL_FLAG, Svm.READ_ONLY, Svm.HIVE_LOCAL, Svm.MIGRATION_GRANULARITY,
             Svm.PREFERRED_LOCATION, Svm.READ_MOSTLY)
_PER_AGENT = (Svm.AGENT_ACCESSIBLE, Svm.AGENT_ACCESSIBLE_IN_PLACE, Svm.AGENT_NO_ACCESS)
_GETTABLE = (Svm.GLOBAL_FLAG, Svm.READ_ONLY, Svm.HIVE_LOCAL, Svm.MIGRATION_GRANULARITY,
             Svm.PREFERRED_LOCATION, Svm.PREFETCH_LOCATION, Svm.READ_MOSTLY)


def _svm_unsupported():
    return HsaError("SVM is not supported (HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED is false): "
                    "the KFD SVM call fails, as in ROCr on a kernel without SVM")


@export("hsa_amd_svm_attributes_set")
def hsa_amd_svm_attributes_set(ptr, size, attribute_list, attribute_count):
    session = runtime.require()
    seen_attributes, seen_agents = set(), set()
    for attribute, value in _attributes(attribute_list, attribute_count):
        if attribute in _SET_ONCE:
            if attribute in seen_attributes:
                raise IncompatibleArguments(f"SVM attribute {attribute} given twice")
            seen_attributes.add(attribute)
            if attribute == Svm.GLOBAL_FLAG and value not in (SvmModel.FINE_GRAINED, SvmModel.COARSE_GRAINED):
                raise InvalidArgument(f"{value} is not a settable HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG value")
            if attribute == Svm.PREFERRED_LOCATION and value != 0:
                session.agents.get(value)          # 0 clears the preferred location
        elif attribute in _PER_AGENT:
            agent = session.agents.get(value)
            if agent in seen_agents:
                raise IncompatibleArguments("SVM access attributes given twice for one agent")
            seen_agents.add(agent)
        else:
            raise InvalidArgument(f"{attribute:#x} is not a settable SVM attribute")
    raise _svm_unsupported()


@export("hsa_amd_svm_attributes_get")
def hsa_amd_svm_attributes_get(ptr, size, attribute_list, attribute_count):
    session = runtime.require()
    attributes = _attributes(attribute_list, attribute_count)
    for attribute, value in attributes:
        if attribute == Svm.ACCESS_QUERY:
            session.agents.get(value)
        elif attribute not in _GETTABLE:
            raise InvalidArgument(f"{attribute:#x} is not a queryable SVM attribute")
    if attributes:
        raise _svm_unsupported()


@export("hsa_amd_svm_prefetch_async")
def hsa_amd_svm_prefetch_async(ptr, size, agent, num_dep_signals, dep_signals, completion_signal):
    session = runtime.require()
    session.agents.get(agent.handle)
    deps = []
    if num_dep_signals:
        _check_list(num_dep_signals, "dependency signals")
        deps = [int(s.handle) for s in read_array(require_pointer(dep_signals, "dep_signals"), "hsa_signal_t",
                                                  num_dep_signals, "dep_signals")]
    done = int(completion_signal.handle)
    for handle in deps + ([done] if done else []):
        if not signals.valid(handle):
            raise InvalidSignal(f"signal {handle:#x} is not live")
    session.async_ops.submit(lambda: None, deps, done, "svm_prefetch")


# ---- graphics interop -----------------------------------------------------------------------------

@export("hsa_amd_interop_map_buffer")
def hsa_amd_interop_map_buffer(num_agents, agents, interop_handle, flags, size, ptr, metadata_size, metadata):
    session = runtime.require()
    for pointer, what in ((agents, "agents"), (size, "size"), (ptr, "ptr")):
        require_pointer(pointer, what)
    if flags != 0 or num_agents == 0:
        raise InvalidArgument("flags must be 0 and num_agents at least 1")
    _require_agents(session, agents, num_agents)
    raise HsaError(f"interop handle {interop_handle} is no graphics buffer: SoftGPU has no graphics driver")


@export("hsa_amd_interop_unmap_buffer")
def hsa_amd_interop_unmap_buffer(ptr):
    runtime.require()
