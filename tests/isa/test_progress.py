"""Progress of long dispatches, on either engine tier: shown on a terminal (or with
SOFTGPU_PROGRESS=1), never in a pipe."""
import numpy as np
import pytest

from core import progress
from tests.support.kernels import compile_opencl
from tests.support.launch import launch

SPIN = """
kernel void spin(global float *out, int rounds) {
  float x = get_global_id(0);
  for (int i = 0; i < rounds; i++) x = x * 0.999f + 1.0f;
  out[get_global_id(0)] = x;
}
"""


@pytest.fixture
def quick_display(monkeypatch):
    # The real thresholds are 2 s and 0.5 s; the behaviour, not the wait, is under test.
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.01)
    monkeypatch.setattr(progress, "REFRESH", 0.01)


# Rounds that make the spin long enough to show on each tier (the native tier is ~1000x faster).
LONG = {"interp": 200, "native": 200_000}


@pytest.fixture(params=sorted(LONG))
def tier(request, monkeypatch):
    monkeypatch.setenv("SOFTGPU_ENGINE", request.param)
    return request.param


def run_spin(session, rounds):
    co = compile_opencl(SPIN, opt="-O2")
    out, = launch(session, co, "spin", [np.zeros(4096, np.float32), rounds], 4096, 64)
    return out


def test_a_long_dispatch_shows_workgroups_done_of_total(session, tier, quick_display, monkeypatch,
                                                        capsys):
    monkeypatch.setenv("SOFTGPU_PROGRESS", "1")
    run_spin(session, LONG[tier])
    err = capsys.readouterr().err
    assert "softgpu spin" in err and "/64" in err and "wg" in err


@pytest.mark.parametrize("setting", [None, "0"])
def test_nothing_is_shown_in_a_pipe_or_when_turned_off(session, tier, quick_display, monkeypatch, capsys,
                                                       setting):
    if setting is None:
        monkeypatch.delenv("SOFTGPU_PROGRESS", raising=False)     # capsys's stderr is no terminal
    else:
        monkeypatch.setenv("SOFTGPU_PROGRESS", setting)
    run_spin(session, LONG[tier])
    assert capsys.readouterr().err == ""


def test_a_short_dispatch_shows_nothing(session, tier, monkeypatch, capsys):
    monkeypatch.setenv("SOFTGPU_PROGRESS", "1")
    run_spin(session, rounds=1)
    assert capsys.readouterr().err == ""
