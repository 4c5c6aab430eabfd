"""The main job: an unmodified HSA program, linked against ROCr's own library, runs its
OpenCL kernel on SoftGPU — by library path (softgpu run), by LD_PRELOAD, on every board
profile with a kernel built for it, and the library also serves a Python process through
ctypes."""
import ctypes
import os
import subprocess
import sys

import pytest

from tests.support.kernels import compile_opencl
from tests.support.paths import LIBRARY, ROOT
from tests.support.tools import require_tool

ROCR = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1"


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    out = tmp_path_factory.mktemp("example")
    exe = out / "vector_add"
    # Linked against the installed ROCr, exactly as a ROCm user builds it.
    subprocess.run(["gcc", "-std=gnu11", "-O2", "-o", str(exe), os.path.join(ROOT, "examples", "vector_add.c"),
                    "-lhsa-runtime64"], check=True)
    return str(exe), compile_opencl(os.path.join(ROOT, "examples", "vector_add.cl"))


def softgpu(*args, **kw):
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, **kw)


def test_softgpu_run_executes_the_unmodified_example(example):
    exe, code_object = example
    proc = softgpu("run", "--", exe, code_object, "20000")
    assert proc.returncode == 0, proc.stderr
    assert "vector_add on gfx1030: 20000 elements, verified" in proc.stdout


@pytest.mark.parametrize("board,target", [("mi210", "gfx90a:sramecc+:xnack-"), ("rx7900xtx", "gfx1100")])
def test_the_example_runs_on_each_board_with_a_kernel_built_for_it(example, board, target):
    """What ci/example.sh does under SOFTGPU_PROFILE=mi210 or rx7900xtx: the kernel is built
    for the profile's ISA (wave64 on gfx90a, wave32 on gfx1100) and runs on that GPU."""
    exe, _ = example
    code_object = compile_opencl(os.path.join(ROOT, "examples", "vector_add.cl"), mcpu=target,
                                 wave64=target.startswith("gfx90a"))
    proc = softgpu("run", "--", exe, code_object, "20000", env=dict(os.environ, SOFTGPU_PROFILE=board))
    assert proc.returncode == 0, proc.stderr
    assert f"vector_add on {target.split(':')[0]}: 20000 elements, verified" in proc.stdout


def test_preloaded_over_rocr(example, tmp_path):
    require_tool(ROCR, "ROCr, to preload over")
    exe, code_object = example
    trace = tmp_path / "trace.jsonl"
    proc = softgpu("run", "--preload", "--trace", str(trace), "--", exe, code_object, "5000")
    assert proc.returncode == 0, proc.stderr
    assert "verified" in proc.stdout
    assert '"event": "dispatch"' in trace.read_text()


def test_run_reports_a_missing_program():
    proc = softgpu("run", "--", "/nonexistent/program")
    assert proc.returncode == 127
    assert "cannot run /nonexistent/program" in proc.stderr


def test_python_process_uses_the_library_through_ctypes():
    hsa = ctypes.CDLL(LIBRARY)
    assert hsa.hsa_init() == 0
    try:
        value = ctypes.c_uint16()
        assert hsa.hsa_system_get_info(0, ctypes.byref(value)) == 0  # HSA_SYSTEM_INFO_VERSION_MAJOR
        assert value.value == 1
    finally:
        assert hsa.hsa_shut_down() == 0
