"""Code object v6 and generic targets, made by llvmlite's LLVM and ld.lld-19, and Tensile's
multi-note objects, made by clang-15 and ld.lld-15: parsed, loaded on the agents ROCr loads
them on (a generic object on a processor of its family, at or above ROCr's lowest generic
version), refused elsewhere with a reason naming why, and run on both tiers as the agent's
own processor."""
import os

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from core import target
from core.errors import IncompatibleArguments
from core.loader.elf import CodeObject
from tests.support.differential import engine
from tests.support.kernels import KERNELS
from tests.support.launch import fresh_kernel, launch
from tests.support.objects import linked_kernels, llvm_kernel

with open(os.path.join(KERNELS, "scale.ll")) as _f:
    SCALE = _f.read()

# cpu -> the processors of the session's GPUs (gfx1030, MI210's gfx90a, RX 7900 XTX's gfx1100,
# MI300X's gfx942, MI355X's gfx950, RX 9070 XT's gfx1201, RX 9060 XT's gfx1200) that ROCr
# loads its code on.
RUNS_ON = {
    "gfx1030": {"gfx1030"},
    "gfx10-3-generic": {"gfx1030"},
    "gfx11-generic": {"gfx1100"},
    "gfx9-generic": set(),               # gfx90a has no generic family
    "gfx9-4-generic": {"gfx942", "gfx950"},
    "gfx12-generic": {"gfx1200", "gfx1201"},
    "gfx1100": {"gfx1100"},
}


def _code(cpu):
    with open(llvm_kernel(SCALE, cpu), "rb") as f:
        return CodeObject(f.read())


@pytest.mark.parametrize("cpu", sorted(RUNS_ON))
def test_v6_header_names_target_and_generic_version(cpu):
    code = _code(cpu)
    assert (code.abi_version, code.version) == (4, 6)
    assert code.target.processor == cpu
    # LLVM writes generic version 1 (ROCr's minimum) into a generic object, none elsewhere.
    assert code.generic_version == (1 if code.target.is_generic else 0)
    kernel, = code.metadata["amdhsa.kernels"]
    assert kernel[".name"] == "scale"
    # v5's hidden arguments, which v6 keeps: the workgroup size the kernel reads at 12.
    assert {".offset": 28, ".size": 2, ".value_kind": "hidden_group_size_x"}.items() <= \
        next(a for a in kernel[".args"] if a[".value_kind"] == "hidden_group_size_x").items()
    assert code.metadata["amdhsa.version"][0] == 1


@pytest.mark.parametrize("cpu", sorted(RUNS_ON))
def test_generic_and_v6_objects_load_only_on_their_agents(session, cpu):
    path = llvm_kernel(SCALE, cpu)
    loader = session.loader
    for agent in session.agents.gpus:
        with open(path, "rb") as f:
            reader = loader.reader_from_file(f.fileno())
        executable = loader.create_executable()
        try:
            if agent.isa.processor in RUNS_ON[cpu]:
                lco = executable.load(reader, agent)
                assert lco.processor == agent.isa.processor
            else:
                with pytest.raises(IncompatibleArguments, match=f"cannot run on agent {agent.name}"):
                    executable.load(reader, agent)
        finally:
            loader.destroy_executable(executable)
            loader.destroy_reader(reader)


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("cpu", ["gfx10-3-generic", "gfx11-generic", "gfx9-4-generic",
                                 "gfx12-generic", "gfx1030"])
def test_generic_code_runs_as_the_agents_processor(session, tier, cpu):
    path = llvm_kernel(SCALE, cpu)
    data = np.arange(256, dtype=np.int32) * 5 - 100
    kernel, executable = fresh_kernel(session, path, "scale")
    try:
        assert kernel.code_object.processor in RUNS_ON[cpu]
        with engine(tier):
            out, _ = launch(session, path, "scale", [np.zeros(256, np.int32), data],
                            256, 64, kernel=kernel)
    finally:
        session.loader.destroy_executable(executable)
    np.testing.assert_array_equal(out, data * 3 + np.arange(256))


def test_generic_version_below_rocrs_minimum_is_refused():
    code, agent = target.Target("gfx10-3-generic"), target.Target("gfx1030")
    assert target.compatible(code, agent, generic_version=1)
    assert not target.compatible(code, agent, generic_version=0)
    assert "generic version 0 is below 1" in target.incompatibility(code, agent, 0)
    # Family and features: gfx1100 is gfx11-generic's; gfx9-4-generic pins sramecc.
    assert not target.compatible(code, target.Target("gfx1100"), 1)
    assert "gfx1100 belongs to gfx11-generic" in target.incompatibility(code, target.Target("gfx1100"), 1)
    pinned = target.Target("gfx9-4-generic", sramecc="on", xnack="any")
    assert target.compatible(pinned, target.Target("gfx942", sramecc="on", xnack="off"), 1)
    assert not target.compatible(pinned, target.Target("gfx942", sramecc="off", xnack="off"), 1)


SUM = """
kernel void add_one(global int *x) { x[get_global_id(0)] += 1; }
"""
TWICE = """
kernel void twice(global int *x) { x[get_global_id(0)] *= 2; }
"""


def test_linked_object_keeps_every_kernels_metadata_note(session):
    path = linked_kernels([SUM, TWICE])
    with open(path, "rb") as f:
        elf = ELFFile(f)
        notes = [n for s in elf.iter_segments() if s["p_type"] == "PT_NOTE" for n in s.iter_notes()
                 if n["n_name"] == "AMDGPU" and n["n_type"] == 32]
    assert len(notes) == 2                 # what Tensile's linked objects are made of
    with open(path, "rb") as f:
        code = CodeObject(f.read())
    assert sorted(code.kernel_metadata) == ["add_one.kd", "twice.kd"]
    data = np.arange(64, dtype=np.int32)
    out, = launch(session, path, "add_one", [data], 64, 64)
    np.testing.assert_array_equal(out, data + 1)
    out, = launch(session, path, "twice", [data], 64, 64)
    np.testing.assert_array_equal(out, data * 2)


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_kernarg_preload_code_runs_its_compatibility_prologue(session, tier):
    # `inreg` kernel arguments on gfx90a are preloaded into SGPRs by firmware that can, which
    # starts the wave 256 bytes into the code; from the entry, as here, the prologue LLVM
    # writes loads them itself, so a runtime without preloading computes the same.
    ir = SCALE.replace("@scale(ptr addrspace(1) %out, ptr addrspace(1) %in)",
                       "@scale(ptr addrspace(1) inreg %out, ptr addrspace(1) inreg %in)")
    path = llvm_kernel(ir, "gfx90a")
    data = np.arange(128, dtype=np.int32) - 7
    kernel, executable = fresh_kernel(session, path, "scale")
    try:
        assert kernel.code_object.processor == "gfx90a"
        with engine(tier):
            out, _ = launch(session, path, "scale", [np.zeros(128, np.int32), data], 128, 64, kernel=kernel)
    finally:
        session.loader.destroy_executable(executable)
    np.testing.assert_array_equal(out, data * 3 + np.arange(128))
