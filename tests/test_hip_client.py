"""AMD's HIP runtime (libamdhip64 5.2.3, a real HSA client written by others) runs a
hipcc-built program on SoftGPU: it must load our library, find the GPU and run
its kernels (and its own blit kernels for memset/copies) with correct results."""
import os
import subprocess

import pytest

from tests.support import cprog
from tests.support.paths import ROOT


@pytest.fixture(scope="module")
def hip_program(tmp_path_factory):
    exe = tmp_path_factory.mktemp("hip") / "hip_client"
    env = dict(os.environ, HIP_PLATFORM="amd")
    subprocess.run(["hipcc", "--offload-arch=gfx1030", "-O2", "-o", str(exe),
                    os.path.join(ROOT, "tests", "hip", "hip_client.cpp")], check=True, env=env)
    return str(exe)


def test_hip_runtime_runs_kernels_on_softgpu(hip_program, tmp_path):
    trace = tmp_path / "trace.jsonl"
    proc = subprocess.run([hip_program], env=cprog.env(SOFTGPU_TRACE=trace), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "HIP CLIENT OK" in proc.stdout
    events = trace.read_text()
    assert '"event": "dispatch"' in events
    assert '"event": "internal"' not in events
