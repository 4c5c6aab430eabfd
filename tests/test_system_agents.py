"""System attributes, extensions, agents, ISAs, wavefronts and caches, through the C programs
a client would write against the official headers."""
import json

import pytest

from core import host_cpu
from tests.support import cprog
from tests.support.paths import ROOT


@pytest.mark.parametrize("program", ["system_info.c", "agents_info.c", "agents_handles.c"])
def test_c_program(program):
    cprog.check(program, SOFTGPU_PROFILE="gfx1030")


def test_isas_caches_and_rocr_wavefront_quirk():
    """gfx1030's profile keeps ROCr 5.2's answer: one 64-lane wavefront for every ISA."""
    cprog.check("agents_isa.c", "64", SOFTGPU_PROFILE="gfx1030")


def test_isa_wavefronts_without_the_quirk(tmp_path):
    """Without the quirk the ISA lists gfx1030's real wavefronts, wave32 (the default) first."""
    with open(f"{ROOT}/profiles/gfx1030.json") as f:
        data = json.load(f)
    data["quirks"]["rocr_wavefront_size_64"] = False
    path = tmp_path / "wave32.json"
    path.write_text(json.dumps(data))
    cprog.check("agents_isa.c", "32,64", SOFTGPU_PROFILE=str(path))


def test_list_agents_example_prints_agents_isas_and_caches():
    proc = cprog.run(f"{ROOT}/examples/list_agents.c", SOFTGPU_PROFILE="gfx1030")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "Runtime Version:         1.1" in out
    assert out.index(host_cpu.model_name()) < out.index("AMD Radeon RX 6800 XT")
    assert "Compute Unit:            72" in out
    assert "Uuid:                    GPU-5f3c9a1e0d2b4c67" in out
    assert "Name:                    amdgcn-amd-amdhsa--gfx1030" in out
    assert "L2:                      4096 KB" in out


def test_isa_registry_names_follow_rocr_target_ids():
    from core.isa_info import known_isa_names
    names = known_isa_names()
    gfx906 = [n for n in names if n.startswith("amdgcn-amd-amdhsa--gfx906")]
    assert gfx906 == ["amdgcn-amd-amdhsa--gfx906" + s for s in
                      ("", ":xnack-", ":xnack+", ":sramecc-", ":sramecc-:xnack-", ":sramecc-:xnack+",
                       ":sramecc+", ":sramecc+:xnack-", ":sramecc+:xnack+")]
    assert [n for n in names if "gfx1030" in n] == ["amdgcn-amd-amdhsa--gfx1030"]
    assert len(names) == len(set(names))


def test_isa_compatibility_is_rocr_rule():
    from core.errors import InvalidIsaName
    from core.isa_info import IsaRegistry
    registry = IsaRegistry()
    isa = registry.from_name
    try:
        assert isa("amdgcn-amd-amdhsa--gfx90a").compatible_with(isa("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"))
        assert isa("amdgcn-amd-amdhsa--gfx90a:xnack-").compatible_with(isa("amdgcn-amd-amdhsa--gfx90a:xnack-"))
        assert not isa("amdgcn-amd-amdhsa--gfx90a:xnack+").compatible_with(isa("amdgcn-amd-amdhsa--gfx90a:xnack-"))
        assert not isa("amdgcn-amd-amdhsa--gfx1030").compatible_with(isa("amdgcn-amd-amdhsa--gfx1031"))
        with pytest.raises(InvalidIsaName):
            isa("amdgcn-amd-amdhsa--gfx1030:sramecc+")
    finally:
        registry.close()
