"""Accesses whose last byte wraps past 2**64 (found by the kernarg fuzzer): they fault like
any access outside memory. Before, the range check wrapped too and passed them, and the
load then failed inside the engine with an internal error."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from tests.support.launch import launch
from softgpu_shim.hsa_abi import Status
from tests.support.kernels import compile_opencl

THROUGH = """
kernel void through(global int *out, ulong address) {
  global int *p = (global int *)address;
  out[0] = p[0];
  p[0] = 7;
}
"""


@pytest.mark.parametrize("address", [2**64 - 1, 2**64 - 2, 2**64 - 4])
def test_an_access_wrapping_past_the_address_space_faults(session, address):
    out = np.full(1, -1, np.int32)
    with pytest.raises(KernelFault) as caught:
        launch(session, compile_opencl(THROUGH, opt="-O2"), "through", [out, np.uint64(address)], 1, 1)
    assert caught.value.status == Status.ERROR_MEMORY_APERTURE_VIOLATION
    assert 2**64 - 4 <= caught.value.report["address"] < 2**64
    assert out[0] == -1
