"""Jumps whose target a kernel computes (s_getpc_b64 + a label offset, then s_setpc_b64), as
Tensile's assembly kernels make them: both tiers land on the label, and the native tier
translates them (resolving the target through the compare and branch on the offset's sign)
instead of faulting with "the program counter left the code object"."""
import numpy as np
import pytest

from core.isa.layout import layout
from core.isa.native.dispatch import Fallback, native_for
from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import fresh_kernel, launch


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_long_branches_forward_and_backward_land_on_their_labels(session, tier):
    path = compile_opencl("long_branch.cl")
    kernel, executable = fresh_kernel(session, path, "long_branch")
    try:
        with engine(tier):
            out, = launch(session, path, "long_branch", [np.zeros(64, np.int32)], 64, 32, kernel=kernel)
        np.testing.assert_array_equal(out, 110)     # +10 at .Lfwd, +100 at .Lback, no skipped add
        if tier == "native":
            translation = native_for(session, kernel, layout(kernel))
            assert not isinstance(translation, Fallback), translation.error
    finally:
        session.loader.destroy_executable(executable)
