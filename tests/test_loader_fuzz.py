"""Mutated code objects never crash the loader: every input parses or is refused with an HSA status.

Mutations start from real clang-15 objects and aim where parsers break: the ELF header,
program and section headers, the dynamic symbol table, the metadata note, relocations,
plus truncation and random splices anywhere.
"""
import ctypes

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from core.errors import HsaError
from core.loader.elf import CodeObject
from softgpu_shim.hsa_abi import Status
from tests.support.kernels import compile_hip, compile_opencl
from tests.test_loader_api import Handle, Hsa

SEEDS = {
    "v4": lambda: compile_opencl("loader_tables.cl", code_object=4),
    "v5": lambda: compile_opencl("loader_tables.cl", code_object=5),
    "extern": lambda: compile_opencl("loader_extern.cl"),
    "hip": lambda: compile_hip("loader_hip.hip"),
}
_SEED_BYTES = {}

# What a mutated object may get from hsa_executable_load_agent_code_object. HSA_STATUS_ERROR
# is not among them: the glue answers it only when an unexpected exception reached it.
LOAD_STATUSES = {Status.SUCCESS, Status.ERROR_INVALID_CODE_OBJECT, Status.ERROR_VARIABLE_UNDEFINED,
                 Status.ERROR_INCOMPATIBLE_ARGUMENTS, Status.ERROR_VARIABLE_ALREADY_DEFINED,
                 Status.ERROR_OUT_OF_RESOURCES}


def seed(name):
    if name not in _SEED_BYTES:
        with open(SEEDS[name](), "rb") as f:
            _SEED_BYTES[name] = f.read()
    return _SEED_BYTES[name]


def _regions(data):
    """(start, end) byte ranges of the structures worth hitting, from the intact object."""
    code = CodeObject(data)
    e_phoff = int.from_bytes(data[0x20:0x28], "little")
    e_shoff = int.from_bytes(data[0x28:0x30], "little")
    regions = [(0, 0x40), (e_phoff, e_phoff + 56 * 9), (e_shoff, len(data))]
    regions += [(s.offset, s.offset + s.filesz) for s in code.segments]
    return regions


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SEEDS)))
    data = bytearray(seed(name))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["byte", "word", "splice", "truncate"]))
        start, end = draw(st.sampled_from(_regions(bytes(seed(name)))))
        end = min(end, len(data))
        if end <= start:
            continue
        at = draw(st.integers(start, end - 1))
        if kind == "byte":
            data[at] = draw(st.integers(0, 255))
        elif kind == "word":
            value = draw(st.sampled_from([0, 1, 0x7F, 0xFFFF, 0xFFFFFFFF, 1 << 63, (1 << 64) - 1,
                                          len(data), len(data) + 1]))
            data[at:at + 8] = value.to_bytes(8, "little")[:len(data[at:at + 8])]
        elif kind == "splice":
            data[at:at + 16] = draw(st.binary(min_size=1, max_size=16))
        else:
            del data[at:]
    return bytes(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_parser_accepts_or_refuses_with_a_status(data):
    try:
        CodeObject(data)
    except HsaError as error:
        assert error.status in (Status.ERROR_INVALID_CODE_OBJECT, Status.ERROR_OUT_OF_RESOURCES)


@pytest.fixture(scope="module")
def hsa():
    api = Hsa()
    yield api
    assert api.lib.hsa_shut_down() == 0


def test_loading_mutated_objects_through_the_exports(hsa):
    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                       HealthCheck.function_scoped_fixture])
    @given(mutated())
    def load(data):
        buffer = ctypes.create_string_buffer(data, len(data))
        reader = Handle()
        status = hsa.hsa_code_object_reader_create_from_memory(buffer, len(data), ctypes.byref(reader))
        if not data:
            assert status == Status.ERROR_INVALID_ARGUMENT      # ROCr refuses a 0-byte object here
            return
        assert status == 0
        executable = hsa.executable()
        status = hsa.hsa_executable_load_agent_code_object(executable, hsa.gpu, reader, None, None)
        assert status in LOAD_STATUSES, hex(status)
        if status == Status.SUCCESS:
            assert hsa.hsa_executable_freeze(executable, None) == 0
            for symbol in hsa.symbols(executable):
                for attribute in range(24):
                    assert hsa.info_status(symbol, attribute) in (Status.SUCCESS, Status.ERROR_INVALID_ARGUMENT)
        assert hsa.hsa_executable_destroy(executable) == 0
        assert hsa.hsa_code_object_reader_destroy(reader) == 0
    load()
