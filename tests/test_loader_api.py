"""Readers, executables and symbols through the library's exports, as a client calls them.

The library is loaded with ctypes into this process (its exports run in this interpreter),
so each test can also look at device memory and at the core loader's view of what the
exports did.
"""
import ctypes
import json
import os
import threading

import numpy as np
import pytest

from core.loader import descriptor, find_kernel, loaded_code_objects
from core.loader.elf import CodeObject
from softgpu_shim.hsa_abi import (HsaExecutableSymbolInfo as SymInfo, HsaSymbolKind, Status,
                                  HsaVariableSegment, HsaVariableAllocation, HsaExecutableState,
                                  HsaCodeObjectInfo)
from tests.support.kernels import compile_hip, compile_opencl
from tests.support.paths import LIBRARY
from tests.test_loader_parse import readelf_metadata

TABLES = "loader_tables.cl"
EXTERN = "loader_extern.cl"


class Handle(ctypes.Structure):
    _fields_ = [("handle", ctypes.c_uint64)]


SYMBOL_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, Handle, Handle, ctypes.c_void_p)
AGENT_SYMBOL_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, Handle, Handle, Handle, ctypes.c_void_p)


class Hsa:
    """The library's exports with hsa_t handles passed by value, as C passes them."""

    def __init__(self):
        self.lib = ctypes.CDLL(LIBRARY)
        assert self.lib.hsa_init() == 0
        from core import runtime
        self.session = runtime.require()
        self.gpu = Handle(self.session.agents.gpus[0].handle)
        self.cpu = Handle(self.session.agents.cpu.handle)

    def __getattr__(self, name):
        return getattr(self.lib, name)

    def reader(self, path):
        reader = Handle()
        fd = os.open(path, os.O_RDONLY)
        try:
            assert self.lib.hsa_code_object_reader_create_from_file(fd, ctypes.byref(reader)) == 0
        finally:
            os.close(fd)
        return reader

    def executable(self):
        executable = Handle()
        assert self.lib.hsa_executable_create_alt(1, 0, None, ctypes.byref(executable)) == 0
        return executable

    def load(self, path, agent=None, executable=None):
        """(status, executable, reader) of loading `path` for `agent` (default: the GPU)."""
        executable = executable or self.executable()
        reader = self.reader(path)
        status = self.lib.hsa_executable_load_agent_code_object(executable, agent or self.gpu, reader,
                                                                None, None)
        return status, executable, reader

    def loaded(self, path, **kw):
        status, executable, _ = self.load(path, **kw)
        assert status == 0, hex(status)
        assert self.lib.hsa_executable_freeze(executable, None) == 0
        return executable

    def symbol(self, executable, name, agent=True):
        symbol = Handle()
        agent_pointer = ctypes.byref(self.gpu) if agent else None
        status = self.lib.hsa_executable_get_symbol_by_name(executable, name.encode(), agent_pointer,
                                                            ctypes.byref(symbol))
        assert status == 0, f"{name}: {status:#x}"
        return symbol

    def info(self, symbol, attribute, ctype=ctypes.c_uint32):
        value = ctype()
        status = self.lib.hsa_executable_symbol_get_info(symbol, attribute, ctypes.byref(value))
        assert status == 0, f"{SymInfo(attribute).name}: {status:#x}"
        return value.value

    def info_status(self, symbol, attribute):
        """The status of a query; string attributes get a buffer of the length the symbol reports."""
        lengths = {SymInfo.NAME: SymInfo.NAME_LENGTH, SymInfo.MODULE_NAME: SymInfo.MODULE_NAME_LENGTH}
        size = self.info(symbol, lengths[attribute]) + 1 if attribute in lengths else 8
        return self.lib.hsa_executable_symbol_get_info(symbol, attribute, ctypes.create_string_buffer(size))

    def name(self, symbol):
        length = self.info(symbol, SymInfo.NAME_LENGTH)
        buffer = ctypes.create_string_buffer(length + 1)
        assert self.lib.hsa_executable_symbol_get_info(symbol, SymInfo.NAME, buffer) == 0
        return buffer.value.decode()

    def symbols(self, executable):
        found = []

        def collect(_, symbol, __):
            found.append(Handle(symbol.handle))
            return 0
        assert self.lib.hsa_executable_iterate_symbols(executable, SYMBOL_CALLBACK(collect), None) == 0
        return found


@pytest.fixture(scope="module")
def hsa():
    api = Hsa()
    yield api
    assert api.lib.hsa_shut_down() == 0


def device_bytes(hsa, address, size):
    return hsa.session.arena.view(address, size).tobytes()


@pytest.mark.parametrize("build", [lambda: compile_opencl(TABLES, code_object=4),
                                   lambda: compile_opencl(TABLES, code_object=5),
                                   lambda: compile_hip("loader_hip.hip")], ids=["v4", "v5", "hip"])
def test_kernel_symbols_answer_what_the_compiler_recorded(hsa, build):
    path = build()
    executable = hsa.loaded(path)
    kernels = readelf_metadata(path)["amdhsa.kernels"]
    for meta in kernels:
        symbol = hsa.symbol(executable, meta[".symbol"])
        assert hsa.info(symbol, SymInfo.TYPE) == HsaSymbolKind.KERNEL
        assert hsa.name(symbol) == meta[".symbol"]
        assert hsa.info(symbol, SymInfo.MODULE_NAME_LENGTH) == 0
        assert hsa.info(symbol, SymInfo.LINKAGE) == 1            # HSA_SYMBOL_LINKAGE_PROGRAM
        assert hsa.info(symbol, SymInfo.IS_DEFINITION, ctypes.c_bool) is True
        assert hsa.info(symbol, SymInfo.AGENT, ctypes.c_uint64) == hsa.gpu.handle
        assert hsa.info(symbol, SymInfo.KERNEL_KERNARG_SEGMENT_SIZE) == meta[".kernarg_segment_size"]
        assert hsa.info(symbol, SymInfo.KERNEL_KERNARG_SEGMENT_ALIGNMENT) == max(16, meta[".kernarg_segment_align"])
        assert hsa.info(symbol, SymInfo.KERNEL_GROUP_SEGMENT_SIZE) == meta[".group_segment_fixed_size"]
        assert hsa.info(symbol, SymInfo.KERNEL_PRIVATE_SEGMENT_SIZE) == meta[".private_segment_fixed_size"]
        assert hsa.info(symbol, SymInfo.KERNEL_DYNAMIC_CALLSTACK, ctypes.c_bool) is meta[".uses_dynamic_stack"]
        assert hsa.info(symbol, SymInfo.KERNEL_CALL_CONVENTION) == 0
        kernel_object = hsa.info(symbol, SymInfo.KERNEL_OBJECT, ctypes.c_uint64)
        kernel = find_kernel(hsa.session, kernel_object)
        assert kernel.name == meta[".name"] and kernel.metadata == meta
        for attribute in (SymInfo.VARIABLE_SIZE, SymInfo.VARIABLE_SEGMENT, SymInfo.INDIRECT_FUNCTION_OBJECT):
            assert hsa.info_status(symbol, attribute) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_destroy(executable) == 0


def test_kernel_object_is_the_loaded_descriptor_and_entry_its_code(hsa):
    path = compile_opencl(TABLES, code_object=5)
    executable = hsa.loaded(path)
    code = CodeObject(open(path, "rb").read())
    for sym, meta in code.kernel_symbols():
        kernel_object = hsa.info(hsa.symbol(executable, sym.name), SymInfo.KERNEL_OBJECT, ctypes.c_uint64)
        kernel = find_kernel(hsa.session, kernel_object)
        assert device_bytes(hsa, kernel_object, 64) == code.file_bytes(sym.value, 64)
        assert kernel.descriptor == descriptor.decode(code.file_bytes(sym.value, 64))
        function = next(s for s in code.symbols if s.name == meta[".name"])
        assert kernel.entry - kernel_object == function.value - sym.value
        assert device_bytes(hsa, kernel.entry, function.size) == code.file_bytes(function.value, function.size)
        assert kernel.entry % 256 == 0
    hsa.hsa_executable_destroy(executable)
    assert find_kernel(hsa.session, kernel_object) is None


def test_variables_hold_their_initial_values_in_device_memory(hsa):
    executable = hsa.loaded(compile_opencl(TABLES))
    counter = hsa.symbol(executable, "loader_counter")
    squares = hsa.symbol(executable, "loader_squares")
    buffer = hsa.symbol(executable, "loader_buffer")
    for symbol in (counter, squares, buffer):
        assert hsa.info(symbol, SymInfo.TYPE) == HsaSymbolKind.VARIABLE
        assert hsa.info(symbol, SymInfo.VARIABLE_ALLOCATION) == HsaVariableAllocation.AGENT
        assert hsa.info_status(symbol, SymInfo.KERNEL_KERNARG_SEGMENT_SIZE) == Status.ERROR_INVALID_ARGUMENT
    address = hsa.info(counter, SymInfo.VARIABLE_ADDRESS, ctypes.c_uint64)
    assert np.frombuffer(device_bytes(hsa, address, 4), np.int32)[0] == 5
    assert hsa.info(counter, SymInfo.VARIABLE_SIZE) == 4
    assert hsa.info(counter, SymInfo.VARIABLE_SEGMENT) == HsaVariableSegment.GLOBAL
    assert hsa.info(counter, SymInfo.VARIABLE_IS_CONST, ctypes.c_bool) is False
    address = hsa.info(squares, SymInfo.VARIABLE_ADDRESS, ctypes.c_uint64)
    assert list(np.frombuffer(device_bytes(hsa, address, 32), np.int32)) == [0, 1, 4, 9, 16, 25, 36, 49]
    assert hsa.info(squares, SymInfo.VARIABLE_SEGMENT) == HsaVariableSegment.READONLY
    assert hsa.info(squares, SymInfo.VARIABLE_IS_CONST, ctypes.c_bool) is True
    address = hsa.info(buffer, SymInfo.VARIABLE_ADDRESS, ctypes.c_uint64)
    assert device_bytes(hsa, address, 64) == bytes(64)           # bss reads zero
    assert hsa.info(buffer, SymInfo.VARIABLE_SIZE) == 64
    assert hsa.info(buffer, SymInfo.VARIABLE_ALIGNMENT) >= 4
    hsa.hsa_executable_destroy(executable)


def test_relocations_point_into_the_loaded_image(hsa):
    path = compile_opencl(TABLES)
    executable = hsa.loaded(path)
    code = CodeObject(open(path, "rb").read())
    lco = next(l for l in loaded_code_objects(hsa.session) if l.executable.handle == executable.handle)
    relative = [r for r in code.relocations if r.type == 13]
    absolute = [r for r in code.relocations if r.type == 3]
    assert len(relative) == 2 and len(absolute) == 3          # slot_table's pointers; GOT entries
    for r in relative:
        (value,) = np.frombuffer(device_bytes(hsa, lco.load_base + r.offset, 8), np.uint64)
        assert value == lco.load_base + r.addend
    for r in absolute:
        name = code.symbols[r.symbol].name
        (value,) = np.frombuffer(device_bytes(hsa, lco.load_base + r.offset, 8), np.uint64)
        assert value == hsa.info(hsa.symbol(executable, name), SymInfo.VARIABLE_ADDRESS, ctypes.c_uint64)
    hsa.hsa_executable_destroy(executable)


def test_application_defined_variables_resolve_undefined_symbols(hsa):
    path = compile_opencl(EXTERN)
    executable = hsa.executable()
    value = ctypes.c_int(41)
    table = (ctypes.c_int * 4)(1, 2, 3, 4)
    status, _, _ = hsa.load(path, executable=executable)
    assert status == Status.ERROR_VARIABLE_UNDEFINED
    assert hsa.hsa_executable_agent_global_variable_define(executable, hsa.gpu, b"app_value",
                                                           ctypes.byref(value)) == 0
    status, _, _ = hsa.load(path, executable=executable)
    assert status == Status.ERROR_VARIABLE_UNDEFINED          # app_table is still missing
    assert hsa.hsa_executable_readonly_variable_define(executable, hsa.gpu, b"app_table", table) == 0
    assert hsa.hsa_executable_agent_global_variable_define(executable, hsa.gpu, b"app_value",
                                                           ctypes.byref(value)) == Status.ERROR_VARIABLE_ALREADY_DEFINED
    status, _, _ = hsa.load(path, executable=executable)
    assert status == 0
    code = CodeObject(open(path, "rb").read())
    lco = next(l for l in loaded_code_objects(hsa.session) if l.executable.handle == executable.handle)
    got = {code.symbols[r.symbol].name: np.frombuffer(device_bytes(hsa, lco.load_base + r.offset, 8),
                                                      np.uint64)[0] for r in code.relocations}
    assert got == {"app_value": ctypes.addressof(value), "app_table": ctypes.addressof(table)}
    symbol = hsa.symbol(executable, "app_table")
    assert hsa.info(symbol, SymInfo.VARIABLE_SEGMENT) == HsaVariableSegment.READONLY
    assert hsa.info(symbol, SymInfo.VARIABLE_ADDRESS, ctypes.c_uint64) == ctypes.addressof(table)
    assert hsa.info(symbol, SymInfo.AGENT, ctypes.c_uint64) == hsa.gpu.handle
    hsa.hsa_executable_destroy(executable)


def test_program_variables_resolve_and_are_program_symbols(hsa):
    executable = hsa.executable()
    value, table = ctypes.c_int(1), (ctypes.c_int * 4)()
    assert hsa.hsa_executable_global_variable_define(executable, b"app_value", ctypes.byref(value)) == 0
    assert hsa.hsa_executable_global_variable_define(executable, b"app_table", table) == 0
    assert hsa.hsa_executable_global_variable_define(executable, b"app_table", table) == \
        Status.ERROR_VARIABLE_ALREADY_DEFINED
    status, _, _ = hsa.load(compile_opencl(EXTERN), executable=executable)
    assert status == 0
    symbol = hsa.symbol(executable, "app_value", agent=False)
    assert hsa.info(symbol, SymInfo.VARIABLE_ALLOCATION) == HsaVariableAllocation.PROGRAM
    assert hsa.info(symbol, SymInfo.AGENT, ctypes.c_uint64) == 0
    program = []
    callback = SYMBOL_CALLBACK(lambda e, s, d: program.append(hsa.name(Handle(s.handle))) or 0)
    assert hsa.hsa_executable_iterate_program_symbols(executable, callback, None) == 0
    assert program == ["app_table", "app_value"]
    agent_symbols = []
    callback = AGENT_SYMBOL_CALLBACK(lambda e, a, s, d: agent_symbols.append(hsa.name(Handle(s.handle))) or 0)
    assert hsa.hsa_executable_iterate_agent_symbols(executable, hsa.gpu, callback, None) == 0
    assert agent_symbols == ["read_app_variables.kd"]
    hsa.hsa_executable_destroy(executable)


def test_iteration_stops_at_the_callbacks_status(hsa):
    executable = hsa.loaded(compile_opencl(TABLES))
    seen = []
    callback = SYMBOL_CALLBACK(lambda e, s, d: seen.append(1) or (Status.INFO_BREAK if len(seen) == 2 else 0))
    assert hsa.hsa_executable_iterate_symbols(executable, callback, None) == Status.INFO_BREAK
    assert len(seen) == 2
    names = sorted(hsa.name(s) for s in hsa.symbols(executable))
    assert names == ["bump_counter.kd", "follow_pointer.kd", "loader_buffer", "loader_counter",
                     "loader_squares", "lookup_tables.kd", "scratch_walk.kd", "stage_in_lds.kd"]
    hsa.hsa_executable_destroy(executable)


def test_get_symbol_follows_rocr_lookup(hsa):
    executable = hsa.loaded(compile_opencl(TABLES))
    symbol = Handle()
    assert hsa.hsa_executable_get_symbol(executable, None, b"lookup_tables.kd", hsa.gpu, 0,
                                         ctypes.byref(symbol)) == 0
    assert hsa.name(symbol) == "lookup_tables.kd"
    for name, agent in ((b"lookup_tables", ctypes.byref(hsa.gpu)),     # kernels are named by descriptor
                        (b"lookup_tables.kd", None),                   # agent symbols need the agent
                        (b"hidden_primes", ctypes.byref(hsa.gpu)),     # local symbols are not exported
                        (b"", ctypes.byref(hsa.gpu))):
        assert hsa.hsa_executable_get_symbol_by_name(executable, name, agent, ctypes.byref(symbol)) == \
            Status.ERROR_INVALID_SYMBOL_NAME
    assert hsa.hsa_executable_get_symbol(executable, b"module", b"lookup_tables.kd", hsa.gpu, 0,
                                         ctypes.byref(symbol)) == Status.ERROR_INVALID_SYMBOL_NAME
    assert hsa.hsa_executable_get_symbol_by_name(executable, None, None, ctypes.byref(symbol)) == \
        Status.ERROR_INVALID_ARGUMENT
    hsa.hsa_executable_destroy(executable)


def test_executable_lifecycle_statuses(hsa):
    executable = Handle()
    assert hsa.hsa_executable_create(2, 0, None, ctypes.byref(executable)) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_create(1, 7, None, ctypes.byref(executable)) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_create_alt(1, 9, None, ctypes.byref(executable)) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_create(1, 0, None, None) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_create(0, HsaExecutableState.FROZEN, None, ctypes.byref(executable)) == 0
    state, profile = ctypes.c_uint32(), ctypes.c_uint32()
    assert hsa.hsa_executable_get_info(executable, 2, ctypes.byref(state)) == 0
    assert hsa.hsa_executable_get_info(executable, 1, ctypes.byref(profile)) == 0
    assert (state.value, profile.value) == (HsaExecutableState.FROZEN, 0)
    assert hsa.hsa_executable_get_info(executable, 99, ctypes.byref(state)) == Status.ERROR_INVALID_ARGUMENT
    status, _, _ = hsa.load(compile_opencl(TABLES), executable=executable)
    assert status == Status.ERROR_FROZEN_EXECUTABLE
    assert hsa.hsa_executable_global_variable_define(executable, b"x", ctypes.byref(state)) == \
        Status.ERROR_FROZEN_EXECUTABLE
    assert hsa.hsa_executable_freeze(executable, None) == Status.ERROR_FROZEN_EXECUTABLE
    result = ctypes.c_uint32(7)
    assert hsa.hsa_executable_validate(executable, ctypes.byref(result)) == 0 and result.value == 0
    assert hsa.hsa_executable_destroy(executable) == 0
    for call in (lambda: hsa.hsa_executable_destroy(executable),
                 lambda: hsa.hsa_executable_freeze(executable, None),
                 lambda: hsa.hsa_executable_get_info(executable, 1, ctypes.byref(state)),
                 lambda: hsa.hsa_executable_validate(executable, ctypes.byref(result))):
        assert call() == Status.ERROR_INVALID_EXECUTABLE


def test_symbols_die_with_their_executable(hsa):
    executable = hsa.loaded(compile_opencl(TABLES))
    symbol = hsa.symbol(executable, "loader_counter")
    arena_used = hsa.session.arena.used
    assert hsa.hsa_executable_destroy(executable) == 0
    assert hsa.session.arena.used < arena_used
    assert hsa.info_status(symbol, SymInfo.TYPE) == Status.ERROR_INVALID_EXECUTABLE_SYMBOL
    assert hsa.info_status(Handle(12345), SymInfo.TYPE) == Status.ERROR_INVALID_EXECUTABLE_SYMBOL


def test_second_definition_of_the_same_kernels_is_refused_whole(hsa):
    path = compile_opencl(TABLES)
    executable = hsa.executable()
    assert hsa.load(path, executable=executable)[0] == 0
    used = hsa.session.arena.used
    assert hsa.load(path, executable=executable)[0] == Status.ERROR_VARIABLE_ALREADY_DEFINED
    assert hsa.session.arena.used == used                     # nothing of the failed load stays
    assert len(hsa.symbols(executable)) == 8
    hsa.hsa_executable_destroy(executable)


def test_object_for_another_gpu_or_the_cpu_is_incompatible(hsa):
    gfx90a = compile_opencl(TABLES, mcpu="gfx90a")
    assert hsa.load(gfx90a)[0] == Status.ERROR_INCOMPATIBLE_ARGUMENTS
    assert hsa.load(compile_opencl(TABLES), agent=hsa.cpu)[0] == Status.ERROR_INCOMPATIBLE_ARGUMENTS
    # ROCr asks an agent that does not exist for its ISAs, finds none: incompatible too.
    assert hsa.load(compile_opencl(TABLES), agent=Handle(0x1234))[0] == Status.ERROR_INCOMPATIBLE_ARGUMENTS


def test_agent_zero_loads_fail_as_rocr_segment_allocation_does(hsa):
    # ROCr allocates the code segment by asking agent {0} its profile: that fails, so a
    # program load (and an agent load for handle 0) answers OUT_OF_RESOURCES and leaves
    # the executable as it was; with a real agent the same reader loads.
    executable = hsa.executable()
    reader = hsa.reader(compile_opencl(TABLES))
    loaded = Handle(77)
    used = hsa.session.arena.used
    assert hsa.hsa_executable_load_program_code_object(executable, reader, None, ctypes.byref(loaded)) == \
        Status.ERROR_OUT_OF_RESOURCES
    assert hsa.hsa_executable_load_agent_code_object(executable, Handle(0), reader, None, ctypes.byref(loaded)) == \
        Status.ERROR_OUT_OF_RESOURCES
    assert loaded.handle == 77 and hsa.session.arena.used == used
    assert hsa.symbols(executable) == []
    assert hsa.hsa_executable_load_agent_code_object(executable, hsa.gpu, reader, None, ctypes.byref(loaded)) == 0
    assert loaded.handle != 77
    hsa.hsa_executable_destroy(executable)


def test_object_for_an_isa_rocr_does_not_register_is_an_invalid_isa_name(hsa):
    # gfx600 is a machine ROCr's ELF reader names but its ISA registry lacks: INVALID_ISA_NAME,
    # checked before the agent (so agent {0} gets it too, not OUT_OF_RESOURCES).
    gfx600 = compile_opencl(TABLES, mcpu="gfx600")
    assert hsa.load(gfx600)[0] == Status.ERROR_INVALID_ISA_NAME
    executable = hsa.executable()
    assert hsa.hsa_executable_load_program_code_object(executable, hsa.reader(gfx600), None, None) == \
        Status.ERROR_INVALID_ISA_NAME
    hsa.hsa_executable_destroy(executable)


def test_readers_from_memory_and_their_errors(hsa):
    data = open(compile_opencl(TABLES, code_object=5), "rb").read()
    buffer = ctypes.create_string_buffer(data, len(data))
    reader = Handle()
    assert hsa.hsa_code_object_reader_create_from_memory(buffer, len(data), ctypes.byref(reader)) == 0
    executable = hsa.executable()
    assert hsa.hsa_executable_load_agent_code_object(executable, hsa.gpu, reader, None, None) == 0
    lco = next(l for l in loaded_code_objects(hsa.session) if l.executable.handle == executable.handle)
    assert lco.uri == f"memory://{os.getpid()}#offset={ctypes.addressof(buffer):#x}&size={len(data)}"
    assert lco.storage_base == ctypes.addressof(buffer)
    assert hsa.hsa_code_object_reader_destroy(reader) == 0
    assert hsa.hsa_code_object_reader_destroy(reader) == Status.ERROR_INVALID_CODE_OBJECT_READER
    assert hsa.hsa_executable_load_agent_code_object(executable, hsa.gpu, reader, None, None) == \
        Status.ERROR_INVALID_CODE_OBJECT_READER
    assert hsa.hsa_code_object_reader_create_from_memory(None, 10, ctypes.byref(reader)) == \
        Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_code_object_reader_create_from_memory(buffer, 0, ctypes.byref(reader)) == \
        Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_code_object_reader_create_from_memory(buffer, len(data), None) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_code_object_reader_create_from_file(-1, ctypes.byref(reader)) == Status.ERROR_INVALID_FILE
    hsa.hsa_executable_destroy(executable)


@pytest.mark.parametrize("corrupt", [
    lambda d: d[:len(d) // 2],                                   # truncated
    lambda d: b"\x7fELF" + bytes(200),                           # empty ELF header
    lambda d: d[:7] + b"\x03" + d[8:],                           # another OS ABI
    lambda d: d[:8] + b"\x09" + d[9:],                           # unknown code object version
    lambda d: d[:0x30] + b"\xff\xff" + d[0x32:],                 # e_flags machine 0xffff... byte
    lambda d: open("/bin/true", "rb").read(),                    # an x86-64 executable
], ids=["truncated", "zeros", "os-abi", "abi-version", "e_flags", "x86-64"])
def test_corrupt_objects_are_invalid_code_objects(hsa, corrupt):
    data = corrupt(open(compile_opencl(TABLES), "rb").read())
    buffer = ctypes.create_string_buffer(data, len(data))
    reader, executable = Handle(), hsa.executable()
    assert hsa.hsa_code_object_reader_create_from_memory(buffer, len(data), ctypes.byref(reader)) == 0
    assert hsa.hsa_executable_load_agent_code_object(executable, hsa.gpu, reader, None, None) == \
        Status.ERROR_INVALID_CODE_OBJECT
    # The executable is untouched and still loads a good object.
    assert hsa.load(compile_opencl(TABLES), executable=executable)[0] == 0
    hsa.hsa_executable_destroy(executable)


# ---- the v2 code object API ---------------------------------------------------------------
def test_v2_code_object_api_on_a_v4_object(hsa):
    data = open(compile_opencl(TABLES), "rb").read()
    buffer = ctypes.create_string_buffer(data, len(data))
    code_object = Handle()
    assert hsa.hsa_code_object_deserialize(buffer, len(data), None, ctypes.byref(code_object)) == 0
    kind = ctypes.c_uint32(9)
    assert hsa.hsa_code_object_get_info(code_object, HsaCodeObjectInfo.TYPE, ctypes.byref(kind)) == 0
    assert kind.value == 0                                    # HSA_CODE_OBJECT_TYPE_PROGRAM
    # v3+ objects carry none of the v2 notes ROCr reads these from.
    version = ctypes.create_string_buffer(64)
    for attribute in (HsaCodeObjectInfo.VERSION, HsaCodeObjectInfo.PROFILE,
                      HsaCodeObjectInfo.MACHINE_MODEL, HsaCodeObjectInfo.DEFAULT_FLOAT_ROUNDING_MODE):
        assert hsa.hsa_code_object_get_info(code_object, attribute, version) == Status.ERROR_INVALID_CODE_OBJECT
    symbol = Handle()
    assert hsa.hsa_code_object_get_symbol(code_object, b"lookup_tables.kd", ctypes.byref(symbol)) == 0
    size = ctypes.c_uint32()
    assert hsa.hsa_code_symbol_get_info(symbol, SymInfo.KERNEL_KERNARG_SEGMENT_SIZE, ctypes.byref(size)) == 0
    assert size.value == CodeObject(data).kernel_metadata["lookup_tables.kd"][".kernarg_segment_size"]
    assert hsa.hsa_code_object_get_symbol(code_object, b"nope", ctypes.byref(symbol)) == \
        Status.ERROR_INVALID_SYMBOL_NAME
    executable = hsa.executable()
    assert hsa.hsa_executable_load_code_object(executable, hsa.gpu, code_object, None) == 0
    kernel_object = hsa.info(hsa.symbol(executable, "lookup_tables.kd"), SymInfo.KERNEL_OBJECT, ctypes.c_uint64)
    assert find_kernel(hsa.session, kernel_object).name == "lookup_tables"
    assert hsa.hsa_code_object_destroy(code_object) == 0
    assert hsa.hsa_code_object_destroy(code_object) == Status.ERROR_INVALID_CODE_OBJECT
    assert hsa.hsa_code_symbol_get_info(symbol, SymInfo.TYPE, ctypes.byref(size)) == Status.ERROR_INVALID_CODE_SYMBOL
    hsa.hsa_executable_destroy(executable)


def test_a_v2_code_object_handle_is_the_address_of_its_copy(hsa):
    """As in ROCr, clients read the ELF through the handle (LLVM's OpenMP offloading plugin
    does); a destroyed handle never resolves again, nor is its address handed out again."""
    data = open(compile_opencl(TABLES), "rb").read()
    buffer = ctypes.create_string_buffer(data, len(data))
    first, second = Handle(), Handle()
    assert hsa.hsa_code_object_deserialize(buffer, len(data), None, ctypes.byref(first)) == 0
    assert first.handle != ctypes.addressof(buffer)
    assert ctypes.string_at(first.handle, len(data)) == data
    assert hsa.hsa_code_object_destroy(first) == 0
    kind = ctypes.c_uint32()
    for _ in range(20):                 # the allocator would hand the freed copy back soon
        assert hsa.hsa_code_object_deserialize(buffer, len(data), None, ctypes.byref(second)) == 0
        assert second.handle != first.handle and ctypes.string_at(second.handle, 4) == b"\x7fELF"
        assert hsa.hsa_code_object_get_info(first, HsaCodeObjectInfo.TYPE, ctypes.byref(kind)) == \
            Status.ERROR_INVALID_CODE_OBJECT
        assert hsa.hsa_code_object_destroy(second) == 0


def test_v2_api_takes_garbage_bytes_then_refuses_to_use_them(hsa):
    garbage = ctypes.create_string_buffer(b"not a code object", 17)
    code_object = Handle()
    assert hsa.hsa_code_object_deserialize(garbage, 17, None, ctypes.byref(code_object)) == 0
    kind = ctypes.c_uint32()
    assert hsa.hsa_code_object_get_info(code_object, HsaCodeObjectInfo.TYPE, ctypes.byref(kind)) == \
        Status.ERROR_INVALID_CODE_OBJECT
    executable = hsa.executable()
    assert hsa.hsa_executable_load_code_object(executable, hsa.gpu, code_object, None) == \
        Status.ERROR_INVALID_CODE_OBJECT
    assert hsa.hsa_code_object_deserialize(garbage, 0, None, ctypes.byref(code_object)) == \
        Status.ERROR_INVALID_ARGUMENT
    hsa.hsa_executable_destroy(executable)


ALLOC_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_size_t, ctypes.c_uint64, ctypes.POINTER(ctypes.c_void_p))
CODE_SYMBOL_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, Handle, Handle, ctypes.c_void_p)


def test_v2_serialize_iterate_and_isa(hsa):
    data = open(compile_opencl(TABLES, code_object=5), "rb").read()
    buffer = ctypes.create_string_buffer(data, len(data))
    code_object = Handle()
    assert hsa.hsa_code_object_deserialize(buffer, len(data), None, ctypes.byref(code_object)) == 0
    kept = []

    def allocate(size, _, address):
        kept.append(ctypes.create_string_buffer(size))
        address[0] = ctypes.addressof(kept[-1])
        return 0
    out, size = ctypes.c_void_p(), ctypes.c_size_t()
    assert hsa.hsa_code_object_serialize(code_object, ALLOC_CALLBACK(allocate), 0, None, ctypes.byref(out),
                                         ctypes.byref(size)) == 0
    assert ctypes.string_at(out.value, size.value) == data
    refuse = ALLOC_CALLBACK(lambda size, _, address: Status.ERROR_OUT_OF_RESOURCES)
    assert hsa.hsa_code_object_serialize(code_object, refuse, 0, None, ctypes.byref(out), ctypes.byref(size)) == \
        Status.ERROR_OUT_OF_RESOURCES
    names = []

    def collect(_, symbol, __):
        length = ctypes.c_uint32()
        assert hsa.hsa_code_symbol_get_info(symbol, SymInfo.NAME_LENGTH, ctypes.byref(length)) == 0
        name = ctypes.create_string_buffer(length.value + 1)
        assert hsa.hsa_code_symbol_get_info(symbol, SymInfo.NAME, name) == 0
        names.append(name.value.decode())
        return 0
    assert hsa.hsa_code_object_iterate_symbols(code_object, CODE_SYMBOL_CALLBACK(collect), None) == 0
    executable = hsa.loaded(compile_opencl(TABLES, code_object=5))
    assert sorted(names) == sorted(hsa.name(s) for s in hsa.symbols(executable))
    hsa.hsa_executable_destroy(executable)
    # ROCr names ISAs of v2 objects only (from their "AMD:AMDGPU:x:y:z" note).
    isa = ctypes.c_uint64(5)
    assert hsa.hsa_code_object_get_info(code_object, HsaCodeObjectInfo.ISA, ctypes.byref(isa)) == \
        Status.ERROR_INVALID_ISA_NAME
    assert isa.value == 5
    assert hsa.hsa_code_object_get_info(code_object, 77, ctypes.byref(isa)) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_code_object_destroy(code_object) == 0


def test_unknown_symbol_attribute_is_an_invalid_argument(hsa):
    executable = hsa.loaded(compile_opencl(TABLES))
    symbol = hsa.symbol(executable, "loader_counter")
    value = ctypes.c_uint64(0xABCD)
    assert hsa.hsa_executable_symbol_get_info(symbol, 99, ctypes.byref(value)) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_symbol_get_info(symbol, SymInfo.TYPE, None) == Status.ERROR_INVALID_ARGUMENT
    assert value.value == 0xABCD
    hsa.hsa_executable_destroy(executable)


def test_several_bad_arguments_get_the_status_rocr_checks_first(hsa):
    forged = Handle(0x777)
    assert hsa.hsa_executable_load_agent_code_object(forged, hsa.gpu, forged, None, None) == \
        Status.ERROR_INVALID_EXECUTABLE
    assert hsa.hsa_executable_load_program_code_object(forged, forged, None, None) == Status.ERROR_INVALID_EXECUTABLE
    assert hsa.hsa_executable_load_code_object(forged, forged, forged, None) == Status.ERROR_INVALID_EXECUTABLE
    symbol = Handle()
    assert hsa.hsa_executable_get_symbol(forged, None, b"", hsa.gpu, 0, ctypes.byref(symbol)) == \
        Status.ERROR_INVALID_SYMBOL_NAME
    callback = AGENT_SYMBOL_CALLBACK(lambda *args: 0)
    assert hsa.hsa_executable_iterate_agent_symbols(forged, forged, callback, None) == Status.ERROR_INVALID_AGENT
    assert hsa.hsa_executable_iterate_agent_symbols(forged, hsa.gpu, None, None) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_create(7, 7, None, None) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_global_variable_define(forged, None, None) == Status.ERROR_INVALID_ARGUMENT
    assert hsa.hsa_executable_global_variable_define(forged, b"x", None) == Status.ERROR_INVALID_EXECUTABLE


def test_loads_and_destroys_are_traced(hsa, tmp_path, monkeypatch):
    monkeypatch.setenv("SOFTGPU_TRACE", str(tmp_path / "trace.jsonl"))
    executable = hsa.loaded(compile_opencl(TABLES))
    kernel_object = hsa.info(hsa.symbol(executable, "scratch_walk.kd"), SymInfo.KERNEL_OBJECT, ctypes.c_uint64)
    hsa.hsa_executable_destroy(executable)
    events = [json.loads(line) for line in open(tmp_path / "trace.jsonl")]
    load = next(e for e in events if e.get("api") == "loader.load")
    assert load["executable"] == executable.handle and load["agent"] == hsa.session.agents.gpus[0].name
    assert load["kernels"]["scratch_walk"] == hex(kernel_object)
    assert load["uri"].startswith("file://")
    assert any(e.get("api") == "loader.destroy" and e["executable"] == executable.handle for e in events)


def test_loads_from_several_threads_at_once(hsa):
    path = compile_opencl(TABLES, code_object=5)
    executables, errors = [], []

    def load():
        try:
            executables.append(hsa.loaded(path))
        except AssertionError as error:
            errors.append(error)
    threads = [threading.Thread(target=load) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(executables) == 6
    objects = {hsa.info(hsa.symbol(e, "lookup_tables.kd"), SymInfo.KERNEL_OBJECT, ctypes.c_uint64)
               for e in executables}
    assert len(objects) == 6
    assert all(find_kernel(hsa.session, o).name == "lookup_tables" for o in objects)
    for executable in executables:
        assert hsa.hsa_executable_destroy(executable) == 0
