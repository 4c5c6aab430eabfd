"""The host program's signals are its own (issue 23, D6): SoftGPU and the Python it embeds
change no signal disposition and block no signal, and a SIGINT in the middle of a dispatch
acts as the program set it — the default kills the process, a handler of the program's own
runs and the program goes on — on both engine tiers."""
import signal
import subprocess

import pytest

from tests.support import cprog
from tests.support.kernels import compile_opencl

TIERS = ["interp", "native"]


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl("robustness.cl", opt="-O2")


@pytest.mark.parametrize("engine", TIERS)
def test_dispositions_and_mask_are_as_the_host_left_them(code_object, engine):
    cprog.check("host_signals.c", code_object, "dispositions", SOFTGPU_ENGINE=engine, timeout=300)


def _sigint_as_a_shell_leaves_it():
    """In the child before it runs the program: SIGINT at its default and not blocked. Both
    are inherited, and a test process may have SIGINT ignored (pytest-xdist's workers ran
    the program with it ignored, and the default mode then spun until its timeout)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _interrupt_mid_dispatch(code_object, mode, engine):
    """Start a dispatch that spins until told to stop, send SIGINT once it runs."""
    exe = cprog.build("host_signals.c")
    proc = subprocess.Popen([exe, code_object, mode], env=cprog.env(SOFTGPU_ENGINE=engine),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_sigint_as_a_shell_leaves_it)
    try:
        assert proc.stdout.readline() == "spinning\n", proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


@pytest.mark.parametrize("engine", TIERS)
def test_sigint_with_the_default_disposition_kills_the_program_mid_dispatch(code_object, engine):
    returncode, out, err = _interrupt_mid_dispatch(code_object, "default", engine)
    assert returncode == -signal.SIGINT, out + err


@pytest.mark.parametrize("engine", TIERS)
def test_sigint_runs_the_programs_own_handler_and_the_program_goes_on(code_object, engine):
    returncode, out, err = _interrupt_mid_dispatch(code_object, "handler", engine)
    assert returncode == 0, out + err
    assert out == "handled=1 seen=7\n", out + err
