"""Code object readers, executables, symbols, the v2 code object API and the AMD loader extension.

Holds these invariants:
- argument checks come in ROCr's order (pointers, then the reader, then the executable,
  then the agent), so a call with several bad arguments gets ROCr's status;
- every attribute is written with its C type from the official headers, and only after
  the value is known: a failing query leaves the caller's memory untouched;
- iteration callbacks run with no lock of ours held, and their first non-SUCCESS status
  (HSA_STATUS_INFO_BREAK included) is returned unchanged, as ROCr does.
The hsa_ven_amd_loader_* functions are registered under their table field names; the
system module builds the extension table from them.
"""
from _softgpu_hsa import ffi

from core import runtime
from core.errors import (IncompatibleArguments, InvalidAgent, InvalidArgument, InvalidCodeObject, InvalidIsaName,
                         InvalidSymbolName)
from core.loader.loader import SerializedCodeObject
from core.loader.symbols import code_object_symbols
from softgpu_shim.api.out import read, read_bytes, read_string, require_pointer, write, write_bytes
from core.hsa_abi import (Status, HsaProfile, HsaExecutableState, HsaDefaultFloatRoundingMode,
                          HsaExecutableInfo, HsaExecutableSymbolInfo, HsaCodeSymbolInfo, HsaCodeObjectInfo,
                          HsaCodeObjectType, HsaVariableSegment,
                          HsaVenAmdLoaderLoadedCodeObjectInfo as LcoInfo,
                          HsaVenAmdLoaderCodeObjectStorageType as StorageType)
from softgpu_shim.registry import export

# C type of each symbol attribute (hsa.h); NAME/MODULE_NAME are char arrays of *_LENGTH bytes.
_SYMBOL_CTYPES = {
    "TYPE": "uint32_t", "NAME_LENGTH": "uint32_t", "MODULE_NAME_LENGTH": "uint32_t",
    "AGENT": "uint64_t", "VARIABLE_ADDRESS": "uint64_t", "LINKAGE": "uint32_t",
    "IS_DEFINITION": "bool", "VARIABLE_ALLOCATION": "uint32_t", "VARIABLE_SEGMENT": "uint32_t",
    "VARIABLE_ALIGNMENT": "uint32_t", "VARIABLE_SIZE": "uint32_t", "VARIABLE_IS_CONST": "bool",
    "KERNEL_OBJECT": "uint64_t", "KERNEL_KERNARG_SEGMENT_SIZE": "uint32_t",
    "KERNEL_KERNARG_SEGMENT_ALIGNMENT": "uint32_t", "KERNEL_GROUP_SEGMENT_SIZE": "uint32_t",
    "KERNEL_PRIVATE_SEGMENT_SIZE": "uint32_t", "KERNEL_DYNAMIC_CALLSTACK": "bool",
    "KERNEL_CALL_CONVENTION": "uint32_t", "INDIRECT_FUNCTION_OBJECT": "uint64_t",
    "INDIRECT_FUNCTION_CALL_CONVENTION": "uint32_t", "KERNEL_WAVEFRONT_SIZE": "uint32_t",
}
_STRINGS = ("NAME", "MODULE_NAME")
# Longer than any symbol or module name: a longer string comes back cut and matches nothing.
_NAME_LIMIT = 1 << 16


def _loader():
    return runtime.require().loader


def _c_string(pointer, what):
    return read_string(pointer, _NAME_LIMIT, what).decode("utf-8", "surrogateescape")


def _attribute_name(enum, attribute):
    try:
        return enum(attribute).name
    except ValueError:
        raise InvalidArgument(f"{attribute} is not a valid {enum.__name__} attribute")


def _write_symbol_attribute(symbol, name, value):
    result = symbol.info(name)
    if name in _STRINGS:
        # ROCr copies exactly NAME_LENGTH bytes, without a terminating NUL.
        data = result.encode("utf-8", "surrogateescape")
        write_bytes(value, data, len(data), "value")
    else:
        write(value, _SYMBOL_CTYPES[name], int(result), "value")


def _handle(ctype, handle):
    return ffi.new(ctype + " *", {"handle": handle})[0]


def _iterate(callback, items, make_args):
    for item in items:
        status = callback(*make_args(item))
        if status != Status.SUCCESS:
            return status
    return Status.SUCCESS


# ---- readers ----------------------------------------------------------------------------
@export("hsa_code_object_reader_create_from_memory")
def hsa_code_object_reader_create_from_memory(code_object, size, code_object_reader):
    require_pointer(code_object, "code_object")
    require_pointer(code_object_reader, "code_object_reader")
    if size == 0:
        raise InvalidArgument("size is 0")
    data = read_bytes(code_object, size, "code_object")
    reader = _loader().reader_from_memory(data, int(ffi.cast("uintptr_t", code_object)))
    write(code_object_reader, "uint64_t", reader.handle)


@export("hsa_code_object_reader_create_from_file")
def hsa_code_object_reader_create_from_file(file, code_object_reader):
    require_pointer(code_object_reader, "code_object_reader")
    write(code_object_reader, "uint64_t", _loader().reader_from_file(file).handle)


@export("hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size")
def hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(file, offset, size,
                                                                           code_object_reader):
    require_pointer(code_object_reader, "code_object_reader")
    if size == 0:
        raise InvalidCodeObject("size is 0: no code object")     # ROCr's status for it
    write(code_object_reader, "uint64_t", _loader().reader_from_file(file, offset, size).handle)


@export("hsa_code_object_reader_destroy")
def hsa_code_object_reader_destroy(code_object_reader):
    loader = _loader()
    loader.destroy_reader(loader.reader(code_object_reader.handle))


# ---- executables ------------------------------------------------------------------------
def _check_profile(profile):
    if profile not in (HsaProfile.BASE, HsaProfile.FULL):
        raise InvalidArgument(f"{profile} is not an HSA profile")


@export("hsa_executable_create")
def hsa_executable_create(profile, executable_state, options, executable):
    _check_profile(profile)
    if executable_state not in (HsaExecutableState.FROZEN, HsaExecutableState.UNFROZEN):
        raise InvalidArgument(f"{executable_state} is not an executable state")
    require_pointer(executable, "executable")
    created = _loader().create_executable(HsaProfile(profile))
    if executable_state == HsaExecutableState.FROZEN:
        created.freeze()
    write(executable, "uint64_t", created.handle)


@export("hsa_executable_create_alt")
def hsa_executable_create_alt(profile, default_float_rounding_mode, options, executable):
    _check_profile(profile)
    if default_float_rounding_mode not in set(HsaDefaultFloatRoundingMode):
        raise InvalidArgument(f"{default_float_rounding_mode} is not a float rounding mode")
    require_pointer(executable, "executable")
    created = _loader().create_executable(HsaProfile(profile),
                                          HsaDefaultFloatRoundingMode(default_float_rounding_mode))
    write(executable, "uint64_t", created.handle)


@export("hsa_executable_destroy")
def hsa_executable_destroy(executable):
    loader = _loader()
    loader.destroy_executable(loader.executable(executable.handle))


def _load_for(exe, reader, agent_handle):
    """Load `reader` into `exe` for the agent ROCr would load it for: none for handle 0
    (ROCr's agent {0}, for which it cannot allocate a code segment: Executable.load), else
    the agent, which ROCr does not resolve but asks for its ISAs: an unknown one supports none."""
    if not agent_handle:
        return exe.load(reader, None)
    try:
        agent = runtime.require().agents.get(agent_handle)
    except InvalidAgent:
        return exe.load(reader, None, unknown_agent=True)
    return exe.load(reader, agent)


def _load(executable, agent_handle, code_object_reader, loaded_code_object):
    loader = _loader()
    exe = loader.executable(executable.handle)
    reader = loader.reader(code_object_reader.handle)
    lco = _load_for(exe, reader, agent_handle)
    if loaded_code_object != ffi.NULL:
        write(loaded_code_object, "uint64_t", lco.handle)


@export("hsa_executable_load_program_code_object")
def hsa_executable_load_program_code_object(executable, code_object_reader, options, loaded_code_object):
    _load(executable, 0, code_object_reader, loaded_code_object)


@export("hsa_executable_load_agent_code_object")
def hsa_executable_load_agent_code_object(executable, agent, code_object_reader, options,
                                          loaded_code_object):
    _load(executable, agent.handle, code_object_reader, loaded_code_object)


@export("hsa_executable_freeze")
def hsa_executable_freeze(executable, options):
    _loader().executable(executable.handle).freeze()


@export("hsa_executable_get_info")
def hsa_executable_get_info(executable, attribute, value):
    require_pointer(value, "value")
    exe = _loader().executable(executable.handle)
    write(value, "uint32_t", int(exe.info(_attribute_name(HsaExecutableInfo, attribute))))


@export("hsa_executable_global_variable_define")
def hsa_executable_global_variable_define(executable, variable_name, address):
    # ROCr checks the name only: the address is the application's to choose.
    name = _c_string(variable_name, "variable_name")
    exe = _loader().executable(executable.handle)
    exe.define_program_variable(name, int(ffi.cast("uintptr_t", address)))


def _define_agent_variable(executable, agent, variable_name, address, segment):
    name = _c_string(variable_name, "variable_name")
    exe = _loader().executable(executable.handle)
    exe.define_agent_variable(name, int(agent.handle), segment, int(ffi.cast("uintptr_t", address)))


@export("hsa_executable_agent_global_variable_define")
def hsa_executable_agent_global_variable_define(executable, agent, variable_name, address):
    _define_agent_variable(executable, agent, variable_name, address, HsaVariableSegment.GLOBAL)


@export("hsa_executable_readonly_variable_define")
def hsa_executable_readonly_variable_define(executable, agent, variable_name, address):
    _define_agent_variable(executable, agent, variable_name, address, HsaVariableSegment.READONLY)


@export("hsa_executable_validate")
def hsa_executable_validate(executable, result):
    require_pointer(result, "result")
    _loader().executable(executable.handle)
    # Everything a load could get wrong was refused at load time: ROCr reports 0 (valid).
    write(result, "uint32_t", 0)


@export("hsa_executable_validate_alt")
def hsa_executable_validate_alt(executable, options, result):
    hsa_executable_validate(executable, result)


# ---- symbols ----------------------------------------------------------------------------
def _found(symbol, name, out):
    if symbol is None:
        raise InvalidSymbolName(f"no symbol named {name!r}")
    write(out, "uint64_t", symbol.handle)


@export("hsa_executable_get_symbol_by_name")
def hsa_executable_get_symbol_by_name(executable, symbol_name, agent, symbol):
    name = _c_string(symbol_name, "symbol_name")
    require_pointer(symbol, "symbol")
    exe = _loader().executable(executable.handle)
    agent_handle = None if agent == ffi.NULL else int(read(agent, "hsa_agent_t", "agent").handle)
    _found(exe.symbol(name, agent_handle), name, symbol)


@export("hsa_executable_get_symbol")
def hsa_executable_get_symbol(executable, module_name, symbol_name, agent, call_convention, symbol):
    name = _c_string(symbol_name, "symbol_name")
    require_pointer(symbol, "symbol")
    if not name:
        raise InvalidSymbolName("the symbol name is empty")
    module = _c_string(module_name, "module_name") if module_name != ffi.NULL else ""
    if module:
        name = f"{module}::{name}"
    exe = _loader().executable(executable.handle)
    agent_handle = None if exe.is_program_symbol(name) else int(agent.handle)
    _found(exe.symbol(name, agent_handle), name, symbol)


@export("hsa_executable_symbol_get_info")
def hsa_executable_symbol_get_info(executable_symbol, attribute, value):
    require_pointer(value, "value")
    symbol = _loader().symbol(executable_symbol.handle)
    # The newest hsa.h numbers KERNEL_WAVEFRONT_SIZE (19) among the code-symbol attributes
    # only; ROCr's kernel symbols answer it through this call as well.
    name = ("KERNEL_WAVEFRONT_SIZE" if attribute == HsaCodeSymbolInfo.KERNEL_WAVEFRONT_SIZE
            else _attribute_name(HsaExecutableSymbolInfo, attribute))
    _write_symbol_attribute(symbol, name, value)


@export("hsa_executable_iterate_symbols")
def hsa_executable_iterate_symbols(executable, callback, data):
    require_pointer(callback, "callback")
    exe = _loader().executable(executable.handle)
    items = exe.iter_program_symbols() + exe.iter_agent_symbols()
    return _iterate(callback, items, lambda s: (executable, _handle("hsa_executable_symbol_t", s.handle), data))


@export("hsa_executable_iterate_agent_symbols")
def hsa_executable_iterate_agent_symbols(executable, agent, callback, data):
    require_pointer(callback, "callback")
    runtime.require().agents.get(agent.handle)
    exe = _loader().executable(executable.handle)
    return _iterate(callback, exe.iter_agent_symbols(int(agent.handle)),
                    lambda s: (executable, agent, _handle("hsa_executable_symbol_t", s.handle), data))


@export("hsa_executable_iterate_program_symbols")
def hsa_executable_iterate_program_symbols(executable, callback, data):
    require_pointer(callback, "callback")
    exe = _loader().executable(executable.handle)
    return _iterate(callback, exe.iter_program_symbols(),
                    lambda s: (executable, _handle("hsa_executable_symbol_t", s.handle), data))


# ---- v2 code objects (hsa_code_object_t) ----------------------------------------------------
def _code_object(code_object):
    return _loader().code_objects.get(code_object.handle)


def _code_symbols(co):
    if co.symbols is None:
        co.symbols = code_object_symbols(co.parsed())
        for symbol in co.symbols:
            symbol.handle = _loader().code_symbols.add(symbol)
    return co.symbols


@export("hsa_code_object_deserialize")
def hsa_code_object_deserialize(serialized_code_object, serialized_code_object_size, options, code_object):
    require_pointer(serialized_code_object, "serialized_code_object")
    require_pointer(code_object, "code_object")
    if serialized_code_object_size == 0:
        raise InvalidArgument("serialized_code_object_size is 0")
    data = read_bytes(serialized_code_object, serialized_code_object_size, "serialized_code_object")
    write(code_object, "uint64_t", _loader().code_objects.add(lambda: SerializedCodeObject(data)))


@export("hsa_code_object_serialize")
def hsa_code_object_serialize(code_object, alloc_callback, callback_data, options,
                              serialized_code_object, serialized_code_object_size):
    require_pointer(alloc_callback, "alloc_callback")
    require_pointer(serialized_code_object, "serialized_code_object")
    require_pointer(serialized_code_object_size, "serialized_code_object_size")
    data = _code_object(code_object).parsed().data
    status = alloc_callback(len(data), callback_data, serialized_code_object)
    if status != Status.SUCCESS:
        return status
    memory = read(serialized_code_object, "void *", "serialized_code_object")
    write_bytes(require_pointer(memory, "memory from alloc_callback"), data, len(data), "memory from alloc_callback")
    write(serialized_code_object_size, "size_t", len(data))


@export("hsa_code_object_destroy")
def hsa_code_object_destroy(code_object):
    loader = _loader()
    for symbol in loader.code_objects.remove(code_object.handle).symbols or []:
        loader.code_symbols.remove(symbol.handle)


@export("hsa_code_object_get_info")
def hsa_code_object_get_info(code_object, attribute, value):
    require_pointer(value, "value")
    co = _code_object(code_object)
    name = _attribute_name(HsaCodeObjectInfo, attribute)
    parsed = co.parsed()
    if name == "TYPE":
        write(value, "uint32_t", HsaCodeObjectType.PROGRAM)
    elif name == "ISA":
        # ROCr translates only v2 ISA notes ("AMD:AMDGPU:9:0:6") to ISA names; for v3+ objects
        # the translation is empty and hsa_isa_from_name("") refuses it.
        raise InvalidIsaName(f"code object v{parsed.version} has no v2 ISA note ({parsed.target.isa_name})")
    else:
        # VERSION, MACHINE_MODEL, PROFILE, DEFAULT_FLOAT_ROUNDING_MODE come from the v2
        # NT_AMD_HSA_* notes ROCr reads; v3+ objects (all clang-15 emits) have none.
        raise InvalidCodeObject(f"code object v{parsed.version} has no {name} note")


@export("hsa_code_object_get_symbol")
def hsa_code_object_get_symbol(code_object, symbol_name, symbol):
    hsa_code_object_get_symbol_from_name(code_object, ffi.NULL, symbol_name, symbol)


@export("hsa_code_object_get_symbol_from_name")
def hsa_code_object_get_symbol_from_name(code_object, module_name, symbol_name, symbol):
    name = _c_string(symbol_name, "symbol_name")
    require_pointer(symbol, "symbol")
    module = _c_string(module_name, "module_name") if module_name != ffi.NULL else ""
    if module:
        name = f"{module}::{name}"
    match = next((s for s in _code_symbols(_code_object(code_object)) if s.name == name), None)
    _found(match, name, symbol)


@export("hsa_code_object_iterate_symbols")
def hsa_code_object_iterate_symbols(code_object, callback, data):
    require_pointer(callback, "callback")
    return _iterate(callback, _code_symbols(_code_object(code_object)),
                    lambda s: (code_object, _handle("hsa_code_symbol_t", s.handle), data))


@export("hsa_code_symbol_get_info")
def hsa_code_symbol_get_info(code_symbol, attribute, value):
    require_pointer(value, "value")
    symbol = _loader().code_symbols.get(code_symbol.handle)
    _write_symbol_attribute(symbol, _attribute_name(HsaCodeSymbolInfo, attribute), value)


@export("hsa_executable_load_code_object")
def hsa_executable_load_code_object(executable, agent, code_object, options):
    loader = _loader()
    exe = loader.executable(executable.handle)
    co = _code_object(code_object)
    reader = loader.reader_from_memory(co.data, co.address)
    try:
        _load_for(exe, reader, int(agent.handle))
    finally:
        loader.destroy_reader(reader)


# ---- HSA_EXTENSION_AMD_LOADER ---------------------------------------------------------------
@export("hsa_ven_amd_loader_query_host_address")
def hsa_ven_amd_loader_query_host_address(device_address, host_address):
    require_pointer(device_address, "device_address")
    require_pointer(host_address, "host_address")
    address = int(ffi.cast("uintptr_t", device_address))
    if _loader().code_object_at(address) is None:
        raise InvalidArgument(f"{address:#x} is not in a loaded code object")
    # Device memory is host memory: the loaded segment is its own host copy.
    write(host_address, "uintptr_t", address)


@export("hsa_ven_amd_loader_query_segment_descriptors")
def hsa_ven_amd_loader_query_segment_descriptors(segment_descriptors, num_segment_descriptors):
    require_pointer(num_segment_descriptors, "num_segment_descriptors")
    wanted = read(num_segment_descriptors, "size_t", "num_segment_descriptors")
    if (wanted == 0) != (segment_descriptors == ffi.NULL):
        raise InvalidArgument("segment_descriptors and *num_segment_descriptors disagree")
    loaded = _loader().all_loaded_code_objects()
    if wanted == 0:
        write(num_segment_descriptors, "size_t", len(loaded))
        return
    if wanted != len(loaded):
        raise IncompatibleArguments(f"{wanted} descriptors requested, {len(loaded)} segments exist")
    out = ffi.new("hsa_ven_amd_loader_segment_descriptor_t[]", len(loaded))
    for i, lco in enumerate(loaded):
        # One segment per code object (v2+), as ROCr loads them.
        out[i].agent.handle = lco.agent.handle if lco.agent is not None else 0
        out[i].executable.handle = lco.executable.handle
        out[i].code_object_storage_type = StorageType.MEMORY
        out[i].code_object_storage_base = ffi.cast("void *", lco.storage_base)
        out[i].code_object_storage_size = len(lco.elf_bytes)
        out[i].code_object_storage_offset = lco.code.segments[0].offset
        out[i].segment_base = ffi.cast("void *", lco.allocation.address)
        out[i].segment_size = lco.load_size
    write_bytes(segment_descriptors, ffi.buffer(out)[:], ffi.sizeof(out), "segment_descriptors")


@export("hsa_ven_amd_loader_query_executable")
def hsa_ven_amd_loader_query_executable(device_address, executable):
    require_pointer(device_address, "device_address")
    require_pointer(executable, "executable")
    address = int(ffi.cast("uintptr_t", device_address))
    lco = _loader().code_object_at(address)
    if lco is None:
        raise InvalidArgument(f"{address:#x} is not in a loaded code object")
    write(executable, "uint64_t", lco.executable.handle)


@export("hsa_ven_amd_loader_executable_iterate_loaded_code_objects")
def hsa_ven_amd_loader_executable_iterate_loaded_code_objects(executable, callback, data):
    require_pointer(callback, "callback")
    exe = _loader().executable(executable.handle)
    return _iterate(callback, list(exe.loaded),
                    lambda lco: (executable, _handle("hsa_loaded_code_object_t", lco.handle), data))


@export("hsa_ven_amd_loader_iterate_executables")
def hsa_ven_amd_loader_iterate_executables(callback, data):
    require_pointer(callback, "callback")
    return _iterate(callback, [e for _, e in _loader().executables],
                    lambda e: (_handle("hsa_executable_t", e.handle), data))


@export("hsa_ven_amd_loader_loaded_code_object_get_info")
def hsa_ven_amd_loader_loaded_code_object_get_info(loaded_code_object, attribute, value):
    require_pointer(value, "value")
    lco = _loader().loaded_code_object(loaded_code_object.handle)
    name = _attribute_name(LcoInfo, attribute)
    if name == "CODE_OBJECT_STORAGE_FILE":
        # ROCr keeps every code object in memory, so there is no file to report.
        raise InvalidArgument("loaded code objects are stored in memory, not in a file")
    if name == "URI":
        data = lco.uri.encode()
        write_bytes(value, data, len(data), "value")
        return
    if name == "AGENT" and lco.agent is None:
        raise InvalidArgument("a program code object has no agent")
    values = {
        "EXECUTABLE": ("uint64_t", lco.executable.handle),
        "KIND": ("uint32_t", lco.kind),
        "AGENT": ("uint64_t", lco.agent.handle if lco.agent is not None else 0),
        "CODE_OBJECT_STORAGE_TYPE": ("uint32_t", StorageType.MEMORY),
        "CODE_OBJECT_STORAGE_MEMORY_BASE": ("uint64_t", lco.storage_base),
        "CODE_OBJECT_STORAGE_MEMORY_SIZE": ("uint64_t", len(lco.elf_bytes)),
        "LOAD_DELTA": ("int64_t", lco.load_delta),
        "LOAD_BASE": ("uint64_t", lco.allocation.address),
        "LOAD_SIZE": ("uint64_t", lco.load_size),
        "URI_LENGTH": ("uint32_t", len(lco.uri.encode())),
    }
    ctype, result = values[name]
    write(value, ctype, int(result))

