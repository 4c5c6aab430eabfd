"""Opening and closing the session (the first hsa_init, the last hsa_shut_down),
hsa_status_string, hsa_system_get_info and the extension queries.

Holds these invariants:
- system attributes and extension answers are ROCr 5.2's, value for value, where the
  spec leaves room (see each function for the ROCr rule it follows);
- an extension table holds only function pointers into this library: its own exports
  for the image functions, and for the AMD loader (whose functions ROCr does not export)
  C callbacks into the Python implementations registered with @export under the table's
  field names; those not implemented yet answer HSA_STATUS_ERROR, as unregistered exports do;
- a table is copied only up to the table_length the caller gave.
"""
import sys
import threading

from _softgpu_hsa import ffi, lib

from core import native, runtime, settings, trace
from core.errors import HsaError, InvalidArgument, InvalidConfiguration, InvalidProfile
from softgpu_shim import glue
from softgpu_shim.api.out import address, read_array, require_pointer, write, write_bytes
from softgpu_shim.hsa_abi import (AMD_INTERFACE_VERSION,
                                  Status, ExtStatus, SystemInfo, HsaExtension as Extension,
                                  HsaEndianness, HsaMachineModel, TIMESTAMP_FREQUENCY_HZ)
from softgpu_shim.registry import export, NEEDS_RUNTIME

# hsa_status_string hands out pointers that must outlive the call: keep them here.
_STATUS_TEXT = {}


# What each status means, in this project's words; clients print it (HIP's abort message
# on a GPU fault is "<hsa_status_string>" followed by the code).
_MEANINGS = {
    Status.SUCCESS: "The function succeeded.",
    Status.INFO_BREAK: "A callback stopped the iteration early.",
    Status.ERROR: "The function failed.",
    Status.ERROR_INVALID_ARGUMENT: "An argument is invalid.",
    Status.ERROR_INVALID_QUEUE_CREATION: "The queue cannot be created with these arguments.",
    Status.ERROR_INVALID_ALLOCATION: "The pointer is not an allocation this function accepts.",
    Status.ERROR_INVALID_AGENT: "The agent handle is not a live agent.",
    Status.ERROR_INVALID_REGION: "The region handle is not a live region.",
    Status.ERROR_INVALID_SIGNAL: "The signal handle is not a live signal.",
    Status.ERROR_INVALID_QUEUE: "The queue is not a live queue.",
    Status.ERROR_OUT_OF_RESOURCES: "The runtime ran out of the resources the request needs.",
    Status.ERROR_INVALID_PACKET_FORMAT: "An AQL packet is malformed.",
    Status.ERROR_RESOURCE_FREE: "A resource was freed while still in use.",
    Status.ERROR_NOT_INITIALIZED: "The runtime is not initialized (hsa_init).",
    Status.ERROR_REFCOUNT_OVERFLOW: "The runtime's reference count would overflow.",
    Status.ERROR_INCOMPATIBLE_ARGUMENTS: "The arguments are valid alone but not together.",
    Status.ERROR_INVALID_INDEX: "The index is out of range.",
    Status.ERROR_INVALID_ISA: "The ISA handle is not a known ISA.",
    Status.ERROR_INVALID_ISA_NAME: "The ISA name is not a known ISA.",
    Status.ERROR_INVALID_CODE_OBJECT: "The code object is malformed or unsupported.",
    Status.ERROR_INVALID_EXECUTABLE: "The executable handle is not a live executable.",
    Status.ERROR_FROZEN_EXECUTABLE: "The executable is frozen and cannot change.",
    Status.ERROR_INVALID_SYMBOL_NAME: "No symbol has this name.",
    Status.ERROR_VARIABLE_ALREADY_DEFINED: "The variable is already defined.",
    Status.ERROR_VARIABLE_UNDEFINED: "A variable the code object needs is not defined.",
    Status.ERROR_EXCEPTION: "A wave raised a hardware exception (a trap, as assert or abort do).",
    Status.ERROR_INVALID_CODE_SYMBOL: "The code symbol handle is not valid.",
    Status.ERROR_INVALID_EXECUTABLE_SYMBOL: "The executable symbol handle is not valid.",
    Status.ERROR_INVALID_FILE: "The file descriptor is not a readable file.",
    Status.ERROR_INVALID_CODE_OBJECT_READER: "The code object reader handle is not valid.",
    Status.ERROR_INVALID_CACHE: "The cache handle is not valid.",
    Status.ERROR_INVALID_WAVEFRONT: "The wavefront handle is not valid.",
    Status.ERROR_INVALID_SIGNAL_GROUP: "The signal group handle is not valid.",
    Status.ERROR_INVALID_RUNTIME_STATE: "The runtime is not in a state that allows this call.",
    Status.ERROR_FATAL: "The runtime hit an unrecoverable error.",
    Status.ERROR_INVALID_MEMORY_POOL: "The memory pool handle is not a live pool.",
    Status.ERROR_MEMORY_APERTURE_VIOLATION: "A wave accessed memory outside every valid allocation.",
    Status.ERROR_ILLEGAL_INSTRUCTION: "A wave executed an instruction that is illegal or not supported.",
    Status.ERROR_MEMORY_FAULT: "A wave accessed an address it may not reach.",
    Status.CU_MASK_REDUCED: "The CU mask was reduced to the compute units that exist.",
    ExtStatus.IMAGE_FORMAT_UNSUPPORTED: "The image format is not supported.",
    ExtStatus.IMAGE_SIZE_UNSUPPORTED: "The image dimensions are not supported.",
    ExtStatus.IMAGE_PITCH_UNSUPPORTED: "The image pitch is not supported.",
    ExtStatus.SAMPLER_DESCRIPTOR_UNSUPPORTED: "The sampler descriptor is not supported.",
    ExtStatus.INVALID_PROGRAM: "The program handle is not valid.",
    ExtStatus.INVALID_MODULE: "The module is not valid.",
    ExtStatus.INCOMPATIBLE_MODULE: "The module is not compatible with the program.",
    ExtStatus.MODULE_ALREADY_INCLUDED: "The module is already part of the program.",
    ExtStatus.SYMBOL_MISMATCH: "Symbol declarations and definitions do not match.",
    ExtStatus.FINALIZATION_FAILED: "Finalization failed.",
    ExtStatus.DIRECTIVE_MISMATCH: "Control directives do not match.",
}


def status_text(status):
    """ROCr-style text for a status: the enumerator name and what it means."""
    for enum in (Status, ExtStatus):
        try:
            member = enum(status)
        except ValueError:
            continue
        # hsa_abi drops the common prefix: HSA_STATUS_..., HSA_EXT_STATUS_ERROR_...
        prefix = "HSA_STATUS_" if enum is Status else "HSA_EXT_STATUS_ERROR_"
        meaning = _MEANINGS.get(member)      # a status added to the headers later: name only
        return f"{prefix}{member.name}: {meaning}" if meaning else f"{prefix}{member.name}"
    return None


@export("sg_session_open", needs_runtime=False)
def sg_session_open(started):
    """The first hsa_init (the C side counts nested ones); `started[0] = 1` tells the C side
    that Python really ran."""
    started[0] = 1
    try:
        settings.check()
        runtime.open_session()
    except (InvalidProfile, settings.InvalidSetting) as error:
        # A configuration mistake the user must see even without SOFTGPU_TRACE.
        sys.stderr.write(f"softgpu: hsa_init failed: {error}\n")
        if isinstance(error, settings.InvalidSetting):
            settings.reported.add(error.name)
            raise InvalidConfiguration(str(error)) from None
        raise


@export("sg_session_close", needs_runtime=False)
def sg_session_close():
    """The last hsa_shut_down."""
    runtime.close_session()


@export("hsa_status_string", needs_runtime=False)
def hsa_status_string(status, status_string):
    text = status_text(status)
    if text is None:
        raise InvalidArgument(f"{status:#x} is not an HSA status")
    if status not in _STATUS_TEXT:
        _STATUS_TEXT[status] = ffi.new("char[]", text.encode())
    write(status_string, "const char *", _STATUS_TEXT[status])


# ---- hsa_system_get_info ---------------------------------------------------------------

HSA_VERSION = (1, 1)
EXTENSION_BITMASK_BYTES = 128
# ROCr sets IMAGES (its image library is built in) and AMD_PROFILER; FINALIZER and
# AQLPROFILE only when their separate libraries load, which SoftGPU has neither of.
SYSTEM_EXTENSIONS = (Extension.EXTENSION_IMAGES, Extension.EXTENSION_AMD_PROFILER)
BUILD_VERSION = ffi.new("char[]", b"SoftGPU (ROCr 6.4 ABI)")


def extension_bitmask(extensions):
    """The uint8_t[128] of HSA_SYSTEM_INFO_EXTENSIONS / HSA_AGENT_INFO_EXTENSIONS."""
    mask = bytearray(EXTENSION_BITMASK_BYTES)
    for extension in extensions:
        mask[extension // 8] |= 1 << (extension % 8)
    return bytes(mask)


_SYSTEM_SCALARS = {
    SystemInfo.SYSTEM_INFO_VERSION_MAJOR: ("uint16_t", lambda: HSA_VERSION[0]),
    SystemInfo.SYSTEM_INFO_VERSION_MINOR: ("uint16_t", lambda: HSA_VERSION[1]),
    SystemInfo.SYSTEM_INFO_TIMESTAMP: ("uint64_t", lambda: native.lib.sg_now_ns()),
    SystemInfo.SYSTEM_INFO_TIMESTAMP_FREQUENCY: ("uint64_t", lambda: TIMESTAMP_FREQUENCY_HZ),
    SystemInfo.SYSTEM_INFO_SIGNAL_MAX_WAIT: ("uint64_t", lambda: 0xFFFFFFFFFFFFFFFF),
    SystemInfo.SYSTEM_INFO_ENDIANNESS: ("hsa_endianness_t", lambda: HsaEndianness.LITTLE),
    SystemInfo.SYSTEM_INFO_MACHINE_MODEL: ("hsa_machine_model_t", lambda: HsaMachineModel.LARGE),
    SystemInfo.AMD_SYSTEM_INFO_BUILD_VERSION: ("const char *", lambda: BUILD_VERSION),
    # No SVM (no HMM-backed shared address space): hsa_amd_svm_* answer as ROCr does without it.
    SystemInfo.AMD_SYSTEM_INFO_SVM_SUPPORTED: ("bool", lambda: False),
    # ROCr: true only when every GPU's ISA has XNACK enabled; gfx1030 has no XNACK.
    SystemInfo.AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT: ("bool", lambda: False),
    SystemInfo.AMD_SYSTEM_INFO_MWAITX_ENABLED: ("bool", lambda: False),
    # Device memory exports as a memfd (core.memory.vmem), the file descriptor dma-buf is in ROCr.
    SystemInfo.AMD_SYSTEM_INFO_DMABUF_SUPPORTED: ("bool", lambda: True),
    SystemInfo.AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED: ("bool", lambda: True),
    SystemInfo.AMD_SYSTEM_INFO_XNACK_ENABLED: ("bool", lambda: False),
    SystemInfo.AMD_SYSTEM_INFO_EXT_VERSION_MAJOR: ("uint16_t", lambda: AMD_INTERFACE_VERSION[0]),
    SystemInfo.AMD_SYSTEM_INFO_EXT_VERSION_MINOR: ("uint16_t", lambda: AMD_INTERFACE_VERSION[1]),
}


@export("hsa_system_get_info")
def hsa_system_get_info(attribute, value):
    require_pointer(value, "value")
    if attribute == SystemInfo.SYSTEM_INFO_EXTENSIONS:
        write_bytes(value, extension_bitmask(SYSTEM_EXTENSIONS), EXTENSION_BITMASK_BYTES, "value")
        return
    if attribute not in _SYSTEM_SCALARS:
        raise InvalidArgument(f"{attribute:#x} is not an hsa_system_info_t attribute")
    ctype, answer = _SYSTEM_SCALARS[attribute]
    write(value, ctype, answer(), "value")


# ---- extensions ------------------------------------------------------------------------

_EXTENSION_NAMES = {extension: f"HSA_{extension.name}" for extension in Extension
                    if not extension.name.endswith(("_LAST", "FIRST_EXTENSION"))}
_NAME_TEXT = {extension: ffi.new("char[]", name.encode()) for extension, name in _EXTENSION_NAMES.items()}
_INVALID_NAME = ffi.new("char[]", b"HSA_EXTENSION_INVALID")
# ROCr answers "supported" for these two only with false: it implements neither.
_UNIMPLEMENTED_STANDARD = (Extension.EXTENSION_PERFORMANCE_COUNTERS, Extension.EXTENSION_PROFILING_EVENTS)
# hsa_system_major_extension_supported's answer: extension -> (major, minor), as ROCr.
_MAJOR_VERSIONS = {Extension.EXTENSION_IMAGES: (1, 0), Extension.EXTENSION_FINALIZER: (1, 0),
                   Extension.EXTENSION_AMD_LOADER: (1, 0), Extension.EXTENSION_AMD_AQLPROFILE: (1, 0)}


def check_extension_id(extension):
    """ROCr's range check: a standard extension or one of AMD's, else INVALID_ARGUMENT."""
    if extension > Extension.EXTENSION_STD_LAST and not (
            Extension.AMD_FIRST_EXTENSION <= extension <= Extension.AMD_LAST_EXTENSION):
        raise InvalidArgument(f"{extension} is not an HSA extension id")


def version_supported(version_major, version_minor):
    """ROCr's version test: every extension it offers is at 1.0."""
    return version_major <= HSA_VERSION[0] and version_minor == 0


@export("hsa_extension_get_name")
def hsa_extension_get_name(extension, name):
    require_pointer(name, "name")
    if extension not in _NAME_TEXT:
        write(name, "const char *", _INVALID_NAME, "name")
        raise InvalidArgument(f"{extension} is not an HSA extension id")
    write(name, "const char *", _NAME_TEXT[extension], "name")


@export("hsa_system_extension_supported")
def hsa_system_extension_supported(extension, version_major, version_minor, result):
    check_extension_id(extension)
    require_pointer(result, "result")
    supported = extension not in _UNIMPLEMENTED_STANDARD and version_supported(version_major, version_minor)
    write(result, "bool", supported, "result")


@export("hsa_system_major_extension_supported")
def hsa_system_major_extension_supported(extension, version_major, version_minor, result):
    require_pointer(version_minor, "version_minor")
    require_pointer(result, "result")
    major, minor = _MAJOR_VERSIONS.get(extension, (None, None))
    if major == version_major:
        write(version_minor, "uint16_t", minor, "version_minor")
    write(result, "bool", major == version_major, "result")


# (extension, major, minor) -> bytes of its table struct, for hsa_system_get_extension_table.
_TABLE_BYTES = {
    (Extension.EXTENSION_IMAGES, 1, 0): ffi.sizeof("hsa_ext_images_1_00_pfn_t"),
    (Extension.EXTENSION_FINALIZER, 1, 0): ffi.sizeof("hsa_ext_finalizer_1_00_pfn_t"),
    # hsa_ven_amd_aqlprofile_1_00_pfn_t: ten function pointers (not in abi_types.h).
    (Extension.EXTENSION_AMD_AQLPROFILE, 1, 0): 10 * ffi.sizeof("void *"),
    (Extension.EXTENSION_AMD_PC_SAMPLING, 1, 0): ffi.sizeof("hsa_ven_amd_pc_sampling_1_00_pfn_t"),
}
_TABLE_BYTES.update({(Extension.EXTENSION_AMD_LOADER, 1, minor): ffi.sizeof(f"hsa_ven_amd_loader_1_{minor:02}_pfn_t")
                     for minor in range(4)})


@export("hsa_system_get_extension_table")
def hsa_system_get_extension_table(extension, version_major, version_minor, table):
    length = _TABLE_BYTES.get((extension, version_major, version_minor), 0)
    hsa_system_get_major_extension_table(extension, version_major, length, table)


@export("hsa_system_get_major_extension_table")
def hsa_system_get_major_extension_table(extension, version_major, table_length, table):
    require_pointer(table, "table")
    if table_length == 0:
        raise InvalidArgument("table_length is 0 (or no table has that extension version)")
    # extension -> (the one major version ROCr hands out, its table). Without its finalizer
    # library ROCr's finalizer table stays at version 0, whose entries answer NOT_INITIALIZED.
    tables = {Extension.EXTENSION_IMAGES: (1, _images_table), Extension.EXTENSION_AMD_LOADER: (1, _loader_table),
              Extension.EXTENSION_FINALIZER: (0, _finalizer_table),
              Extension.EXTENSION_AMD_PC_SAMPLING: (1, _pc_sampling_table)}
    if extension not in tables:
        raise HsaError(f"extension {extension} has no function table in SoftGPU (ROCr needs a "
                       "separate library for the aqlprofile table)")
    major, builder = tables[extension]
    if version_major != major:
        raise HsaError(f"extension {extension} has no version {version_major} (only {major})")
    full = builder()
    write_bytes(table, ffi.buffer(full)[:], min(table_length, ffi.sizeof(full[0])), "table")


def _images_table():
    """hsa_ext_images_1_pfn_t pointing at this library's own image exports."""
    return _filled("hsa_ext_images_1_pfn_t", lambda name: ffi.addressof(lib, name))


def _finalizer_table():
    """hsa_ext_finalizer_1_00_pfn_t pointing at this library's finalizer exports (stubs)."""
    return _filled("hsa_ext_finalizer_1_00_pfn_t", lambda name: ffi.addressof(lib, name))


def _pc_sampling_table():
    """hsa_ven_amd_pc_sampling_1_00_pfn_t (the newest ROCr's) pointing at this library's
    hsa_ven_amd_pcs_* exports (softgpu_shim.api.counters)."""
    return _filled("hsa_ven_amd_pc_sampling_1_00_pfn_t", lambda name: ffi.addressof(lib, name))


# Callbacks must outlive every table handed out: one per field, made once (under the lock,
# so two threads never make two and drop one a client already holds).
_TABLE_CALLBACKS = {}
_TABLE_CALLBACKS_LOCK = threading.Lock()


def _loader_table():
    """hsa_ven_amd_loader_1_03_pfn_t pointing at C callbacks into the registered implementations."""
    return _filled("hsa_ven_amd_loader_1_03_pfn_t", _table_callback)


def _table_callback(name):
    with _TABLE_CALLBACKS_LOCK:
        if name not in _TABLE_CALLBACKS:
            field_type = dict(ffi.typeof("hsa_ven_amd_loader_1_03_pfn_t").fields)[name].type
            impl = glue.implementation(name)
            entry = glue.unsupported_entry(name) if impl is None else glue.entry(name, impl, NEEDS_RUNTIME[name])
            _TABLE_CALLBACKS[name] = ffi.callback(field_type, entry, error=int(Status.ERROR))
        return _TABLE_CALLBACKS[name]


def _filled(ctype, pointer_for):
    box = ffi.new(ctype + " *")
    for name, _ in ffi.typeof(ctype).fields:
        setattr(box, name, pointer_for(name))
    return box


# ---- logging ---------------------------------------------------------------------------

LOG_FLAG_BYTES = 8      # hsa_amd_enable_logging's flags: uint8_t[8] (hsa_flag_set64)


@export("hsa_amd_enable_logging")
def hsa_amd_enable_logging(flags, file):
    """ROCr 6.2+: the flags and stream of ROCr's internal log, each call replacing the last.
    Its one flag (HSA_AMD_LOG_FLAG_BLIT_KERNEL_PKTS) logs the AQL packets of ROCr's blit
    kernels; SoftGPU enqueues none (its copies run on host threads), so nothing is ever
    written to `file`: the call is checked (the flags must be readable) and traced."""
    runtime.require()
    require_pointer(flags, "flags")
    mask = bytes(read_array(flags, "uint8_t", LOG_FLAG_BYTES, "flags"))
    trace.event("logging", flags=mask.hex(), file=address(file))
