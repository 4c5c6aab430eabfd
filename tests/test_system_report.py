"""`softgpu info` without a file lists the system as rocminfo does, from the public API: it
agrees, field by field, with a C client of the official headers (examples/list_agents.c)."""
import os
import subprocess
import sys

import pytest

from tests.support import cprog
from tests.support.paths import ROOT

# Fields both listings print in the same form.
SHARED = ("Name:", "Uuid:", "Marketing Name:", "Vendor Name:", "Device Type:", "Profile:", "Node:",
          "Chip ID:", "Compute Unit:", "Max Clock Freq. (MHz):", "Cacheline Size:", "BDFID:",
          "SIMDs per CU:", "Shader Engines:", "Shader Arrs. per Eng.:")


def agents(text):
    """[{label: value}] per agent block, for the SHARED labels (first occurrence in the block)."""
    found = []
    for block in text.split("*******\nAgent ")[1:]:
        fields = {}
        for line in block.splitlines():
            label = next((s for s in SHARED if line.strip().startswith(s)), None)
            if label and line.startswith("  ") and not line.startswith("    ") and label not in fields:
                fields[label] = line.strip()[len(label):].strip()
        found.append(fields)
    return found


def listing(profile):
    env = cprog.env(SOFTGPU_PROFILE=profile)
    proc = subprocess.run([sys.executable, "-m", "core.cli", "info"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("profile", ["gfx1030", "generic"])
def test_info_agrees_with_a_c_client_of_the_api(profile, tmp_path):
    exe = tmp_path / "list_agents"
    subprocess.run(["gcc", "-o", str(exe), os.path.join(ROOT, "examples", "list_agents.c"), "-L", cprog.LIBDIR,
                    "-lhsa-runtime64"], check=True)
    c_client = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300,
                              env=cprog.env(SOFTGPU_PROFILE=profile))
    assert c_client.returncode == 0, c_client.stderr
    ours, theirs = agents(listing(profile)), agents(c_client.stdout)
    assert len(ours) == len(theirs) >= 2
    for mine, reference in zip(ours, theirs):
        shared = set(mine) & set(reference)
        assert {"Name:", "Device Type:", "Compute Unit:"} <= shared
        assert {k: mine[k] for k in shared} == {k: reference[k] for k in shared}


def test_info_shows_pools_isas_and_the_profiles_fidelity():
    lines = [" ".join(line.split()) for line in listing("generic").splitlines()]
    gpu = lines[lines.index("Device Type: GPU"):]
    assert "Compute Unit: 8" in gpu
    assert "Segment: GLOBAL; FLAGS: COARSE GRAINED" in gpu
    assert "Name: amdgcn-amd-amdhsa--gfx1030" in gpu
    assert any(line.startswith("SoftGPU Profile: generic") for line in lines)
    assert any(line.startswith("SoftGPU Fidelity: functional") for line in lines)
