"""A wave on the native tier returns to its thread once it has used up its turn (at a backward
branch, call or jump) and resumes exactly there, with the state it left: kernels whose waves
yield many times give the results a straight run gives.

The suite's other tests run the interpreter; these force the native tier (their loops are too
long for the interpreter to be worth the time) and check against numpy.
"""
import numpy as np
import pytest

from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import launch

# Calls per work-item: several of the native tier's turns (core.isa.native.dispatch.QUANTUM
# instructions, GROUP_TURN where a workgroup has several waves) for every wave.
CALLS = 12000


def _lcg_runs(seed, n):
    x = seed.astype(np.uint64)
    for k in range(int(n.max())):
        stepped = ((x * 1664525 + 1013904223) & 0xFFFFFFFF) ^ k
        x = np.where(k < n, stepped, x)
    return x.astype(np.uint32)


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_a_wave_yielding_at_a_backward_call_resumes_there(session, opt, wave):
    size = 128
    seed = np.random.default_rng(5).integers(0, 1 << 32, size, dtype=np.uint64).astype(np.uint32)
    co = compile_opencl("calls.cl", opt=opt, wave64=(wave == 64))
    with engine("native"):
        _, out = launch(session, co, "backward_calls", [seed, np.zeros(size, np.uint32),
                                                        np.int32(CALLS)], size, 64)
    np.testing.assert_array_equal(out, _lcg_runs(seed, CALLS + (np.arange(size) & 7)))
