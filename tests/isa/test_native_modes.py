"""MODE on the native tier where it is not one value: a function that -O0 code calls both
before and after an s_setreg of the rounding mode reaches its instructions under two MODEs.
The translation keeps such code (one copy of each instruction per MODE, chosen by the wave's
MODE at run time) and rounds as the interpreter does under each caller's MODE.
"""
import numpy as np
import pytest

from tests.kernels.suite import CASES
from tests.support.differential import run_on

ROUNDING = ("round_up", "round_down", "round_toward_zero")


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("name", ROUNDING)
def test_code_reached_under_two_modes_rounds_as_each_caller_set(session, name, wave):
    case = next(c for c in CASES if c.name == name)
    path = case.compile("-O0", wave, 4, "gfx1030")
    native, _, fallback = run_on(session, case, path, wave, "native")
    assert fallback is None, fallback.reason
    oracle, _, _ = run_on(session, case, path, wave, "interp")
    for got, want in zip(native, oracle):
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
