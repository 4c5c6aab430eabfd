"""Accesses whose last byte wraps past 2**64 (found by the kernarg fuzzer): they fault like
any access outside memory, on both tiers. Before, the range check wrapped too and passed them,
and the load then failed inside the engine with an internal error; the native tier's fast test
of an access against the range its site hit last must refuse a range that wraps as well."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from core.isa.layout import layout
from core.isa.native.dispatch import Fallback, native_for
from tests.support.differential import engine
from tests.support.launch import fresh_kernel, launch
from softgpu_shim.hsa_abi import Status
from tests.support.kernels import compile_opencl

THROUGH = """
kernel void through(global int *out, ulong address) {
  global int *p = (global int *)address;
  out[0] = p[0];
  p[0] = 7;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("address", [2**64 - 1, 2**64 - 2, 2**64 - 4])
def test_an_access_wrapping_past_the_address_space_faults(session, tier, address):
    out = np.full(1, -1, np.int32)
    path = compile_opencl(THROUGH, opt="-O2")
    kernel, executable = fresh_kernel(session, path, "through")
    try:
        with engine(tier), pytest.raises(KernelFault) as caught:
            launch(session, path, "through", [out, np.uint64(address)], 1, 1, kernel=kernel)
        _assert_translated(session, kernel, tier)
    finally:
        session.loader.destroy_executable(executable)
    _assert_wrapping_fault(caught.value)
    assert out[0] == -1


EACH = """
kernel void through_each(global int *out, global const ulong *addresses, int count) {
  #pragma clang loop unroll(disable)
  for (int k = 0; k < count; k++) {
    ulong a = addresses[k];
    global int *p = a ? (global int *)a : out + 15;     /* 0: a cell of out */
    out[k] = *p;
  }
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("address", [2**64 - 1, 2**64 - 4])
def test_a_wrapping_access_faults_where_the_same_load_read_memory_before(session, tier, address):
    """The native tier remembers, per load, the range its last access fell in: the load that
    has just read out[15] is then given a wrapping address (its first byte above that range's
    start, its wrapped end below the range's end), which must still fault."""
    path = compile_opencl(EACH, opt="-O2")
    kernel, executable = fresh_kernel(session, path, "through_each")
    out = np.full(16, -1, np.int32)
    try:
        with engine(tier):
            done, _ = launch(session, path, "through_each",
                             [out, np.array([0, 0], np.uint64), np.int32(2)], 1, 1, kernel=kernel)
            np.testing.assert_array_equal(done[:2], -1)         # both reads of out[15] landed
            with pytest.raises(KernelFault) as caught:
                launch(session, path, "through_each",
                       [out, np.array([0, address], np.uint64), np.int32(2)], 1, 1, kernel=kernel)
        _assert_translated(session, kernel, tier)
    finally:
        session.loader.destroy_executable(executable)
    _assert_wrapping_fault(caught.value)


def _assert_translated(session, kernel, tier):
    """On the native tier the kernel ran translated (a fallback would test the interpreter)."""
    if tier == "native":
        translation = native_for(session, kernel, layout(kernel))
        assert not isinstance(translation, Fallback), translation.error


def _assert_wrapping_fault(fault):
    assert fault.status == Status.ERROR_MEMORY_APERTURE_VIOLATION
    assert 2**64 - 4 <= fault.report["address"] < 2**64
