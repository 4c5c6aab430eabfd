"""Exceptions inside SoftGPU. Each carries the hsa_status_t it becomes at the ABI edge."""
from core.hsa_abi import Status, ExtStatus


class HsaError(Exception):
    status = Status.ERROR

    def __init__(self, message="", status=None):
        super().__init__(message)
        if status is not None:
            self.status = status


def _error(name, status):
    return type(name, (HsaError,), {"status": status, "__doc__": f"Raised as {status.name}."})


InvalidArgument = _error("InvalidArgument", Status.ERROR_INVALID_ARGUMENT)
NotInitialized = _error("NotInitialized", Status.ERROR_NOT_INITIALIZED)
InvalidAgent = _error("InvalidAgent", Status.ERROR_INVALID_AGENT)
InvalidRegion = _error("InvalidRegion", Status.ERROR_INVALID_REGION)
InvalidSignal = _error("InvalidSignal", Status.ERROR_INVALID_SIGNAL)
InvalidSignalGroup = _error("InvalidSignalGroup", Status.ERROR_INVALID_SIGNAL_GROUP)
InvalidQueue = _error("InvalidQueue", Status.ERROR_INVALID_QUEUE)
InvalidQueueCreation = _error("InvalidQueueCreation", Status.ERROR_INVALID_QUEUE_CREATION)
InvalidAllocation = _error("InvalidAllocation", Status.ERROR_INVALID_ALLOCATION)
OutOfResources = _error("OutOfResources", Status.ERROR_OUT_OF_RESOURCES)
InvalidIsa = _error("InvalidIsa", Status.ERROR_INVALID_ISA)
InvalidIsaName = _error("InvalidIsaName", Status.ERROR_INVALID_ISA_NAME)
InvalidCache = _error("InvalidCache", Status.ERROR_INVALID_CACHE)
InvalidWavefront = _error("InvalidWavefront", Status.ERROR_INVALID_WAVEFRONT)
InvalidCodeObject = _error("InvalidCodeObject", Status.ERROR_INVALID_CODE_OBJECT)
InvalidCodeObjectReader = _error("InvalidCodeObjectReader", Status.ERROR_INVALID_CODE_OBJECT_READER)
InvalidExecutable = _error("InvalidExecutable", Status.ERROR_INVALID_EXECUTABLE)
FrozenExecutable = _error("FrozenExecutable", Status.ERROR_FROZEN_EXECUTABLE)
InvalidSymbolName = _error("InvalidSymbolName", Status.ERROR_INVALID_SYMBOL_NAME)
InvalidExecutableSymbol = _error("InvalidExecutableSymbol", Status.ERROR_INVALID_EXECUTABLE_SYMBOL)
VariableAlreadyDefined = _error("VariableAlreadyDefined", Status.ERROR_VARIABLE_ALREADY_DEFINED)
VariableUndefined = _error("VariableUndefined", Status.ERROR_VARIABLE_UNDEFINED)
IncompatibleArguments = _error("IncompatibleArguments", Status.ERROR_INCOMPATIBLE_ARGUMENTS)
InvalidIndex = _error("InvalidIndex", Status.ERROR_INVALID_INDEX)
InvalidPacketFormat = _error("InvalidPacketFormat", Status.ERROR_INVALID_PACKET_FORMAT)
InvalidCodeSymbol = _error("InvalidCodeSymbol", Status.ERROR_INVALID_CODE_SYMBOL)
InvalidRuntimeState = _error("InvalidRuntimeState", Status.ERROR_INVALID_RUNTIME_STATE)
MemoryApertureViolation = _error("MemoryApertureViolation", Status.ERROR_MEMORY_APERTURE_VIOLATION)
IllegalInstruction = _error("IllegalInstruction", Status.ERROR_ILLEGAL_INSTRUCTION)
InvalidFile = _error("InvalidFile", Status.ERROR_INVALID_FILE)
MemoryFault = _error("MemoryFault", Status.ERROR_MEMORY_FAULT)
InvalidMemoryPool = _error("InvalidMemoryPool", Status.ERROR_INVALID_MEMORY_POOL)
ResourceFree = _error("ResourceFree", Status.ERROR_RESOURCE_FREE)
ImageFormatUnsupported = _error("ImageFormatUnsupported", ExtStatus.IMAGE_FORMAT_UNSUPPORTED)
ImageSizeUnsupported = _error("ImageSizeUnsupported", ExtStatus.IMAGE_SIZE_UNSUPPORTED)
ImagePitchUnsupported = _error("ImagePitchUnsupported", ExtStatus.IMAGE_PITCH_UNSUPPORTED)


class InvalidProfile(HsaError):
    """A device profile failed validation; hsa_init reports it and fails.

    OUT_OF_RESOURCES is what ROCr's hsa_init answers when it cannot bring up the
    device topology (its AMD::Load() fails), the closest ROCr case to a broken profile.
    """
    status = Status.ERROR_OUT_OF_RESOURCES


class InvalidConfiguration(HsaError):
    """A SOFTGPU_* variable failed validation (core.settings): hsa_init fails as for a broken
    profile (InvalidProfile), with the same status and a one-line reason on stderr."""
    status = Status.ERROR_OUT_OF_RESOURCES
