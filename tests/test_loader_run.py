"""Loaded kernels run: what relocations, initial data and bss placement produce is what
the kernel computes with (the engine runs the loaded code; numpy gives the answers)."""
import numpy as np
import pytest

from tests.support.launch import Local, launch
from tests.support.kernels import compile_hip, compile_opencl
from tests.test_loader_api import Hsa

SQUARES = np.arange(8) ** 2
PRIMES = np.array([2, 3, 5, 7, 11, 13, 17, 19])
COUNTER = 5


@pytest.fixture(scope="module")
def session():
    api = Hsa()
    yield api.session
    assert api.lib.hsa_shut_down() == 0


@pytest.fixture(scope="module", params=[4, 5], ids=["v4", "v5"])
def tables(request, session):
    return session, compile_opencl("loader_tables.cl", code_object=request.param)


def test_constant_tables_through_got_and_pc_relative_addressing(tables):
    session, path = tables
    (out,) = launch(session, path, "lookup_tables", [np.zeros(32, np.int32)], 32, 16)
    i = np.arange(32)
    assert list(out) == list(SQUARES[i & 7] + PRIMES[(i + 1) & 7] + COUNTER)


def test_pointer_table_relocated_to_the_load_address(tables):
    session, path = tables
    for which, expected in ((0, 100), (1, 200)):
        (out,) = launch(session, path, "follow_pointer", [np.zeros(4, np.int32), which], 4, 4)
        assert list(out) == [expected] * 4


def test_lds_and_scratch_sizes_from_the_descriptor_suffice(tables):
    session, path = tables
    data = np.arange(64, dtype=np.float32)
    _, out = launch(session, path, "stage_in_lds", [data, np.zeros(64, np.float32), Local(64 * 4)], 64, 64)
    l = np.arange(64)
    assert np.array_equal(out, 2 * data[(l + 1) % 64] + data[63 - l])
    (out,) = launch(session, path, "scratch_walk", [np.zeros(16, np.int32), 3], 16, 16)
    assert list(out) == list(((np.arange(16) + 3) % 40) * 3)


def test_hip_kernel_reads_its_device_and_constant_globals(session):
    path = compile_hip("loader_hip.hip")
    data = np.linspace(-4, 4, 40, dtype=np.float32)
    out, _ = launch(session, path, "hip_scale_add", [np.zeros(40, np.float32), data, 37, 16], 40, 16)
    i = np.arange(40)
    scale = np.array([1, 2, 4, 8], np.float32)
    assert np.array_equal(out[:37], data[:37] * scale[i[:37] & 3] + 11)
    assert not out[37:].any()
