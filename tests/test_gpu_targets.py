"""GPUs of every target SoftGPU runs: the MI210 (gfx90a), MI300X (gfx942), MI355X (gfx950),
RX 7900 XTX (gfx1100), RX 9070 XT (gfx1201) and RX 9060 XT (gfx1200) profiles answer as rocminfo
reports those boards, a machine may mix boards of different targets, and
each GPU agent loads only the code objects its ISA accepts (ROCr's rule, target features
included: gfx90a:xnack+ code does not load on an MI210, whose ISA is gfx90a:sramecc+:xnack-)."""
import ctypes
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from core import profile
from core.errors import InvalidProfile
from core.isa.faults import KernelFault
from softgpu_shim.hsa_abi import Status
from tests.support import cprog
from tests.support.kernels import compile_opencl
from tests.support.launch import launch
from tests.support.paths import LIBRARY, ROOT

BOARDS = {
    "mi210": ["Name:                    gfx90a", "Marketing Name:          AMD Instinct MI210",
              "Chip ID:                 29711(0x740f)", "Compute Unit:            104",
              "SIMDs per CU:            4", "Shader Engines:          8",
              "Max Clock Freq. (MHz):   1700", "Wavefront Size:          64",
              "L1:                      16 KB", "L2:                      8192 KB",
              "Name:                    amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"],
    "mi300x": ["Name:                    gfx942", "Marketing Name:          AMD Instinct MI300X",
               "Chip ID:                 29857(0x74a1)", "Compute Unit:            304",
               "SIMDs per CU:            4", "Shader Engines:          32",
               "Max Clock Freq. (MHz):   2100", "Wavefront Size:          64",
               "L1:                      32 KB", "L2:                      4096 KB",
               "L3:                      262144 KB",
               "Name:                    amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"],
    # MI355X: rocminfo's Compute Unit 256, Name gfx950, the ISA name and the GROUP pool's 160 KB
    # are from real boards' listings; the chip id is its PCI device id (1002:75A3).
    "mi355x": ["Name:                    gfx950", "Marketing Name:          AMD Instinct MI355X",
               "Chip ID:                 30115(0x75a3)", "Compute Unit:            256",
               "SIMDs per CU:            4", "Wavefront Size:          64",
               "Max Clock Freq. (MHz):   2400", "L2:                      4096 KB",
               "L3:                      262144 KB",
               "Name:                    amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-"],
    "rx7900xtx": ["Name:                    gfx1100", "Marketing Name:          Radeon RX 7900 XTX",
                  "Chip ID:                 29772(0x744c)", "Compute Unit:            96",
                  "SIMDs per CU:            2", "Shader Engines:          6",
                  "Shader Arrs. per Eng.:   2", "Wavefront Size:          32",
                  "L2:                      6144 KB", "L3:                      98304 KB",
                  "Name:                    amdgcn-amd-amdhsa--gfx1100"],
    # RX 9070 XT: every line is in the rocminfo listing of github.com/ROCm/ROCm/issues/6290
    # (ROCm 7.2.3; Max Clock is that board's, others print 2460 to 2570).
    "rx9070xt": ["Name:                    gfx1201", "Marketing Name:          AMD Radeon RX 9070 XT",
                 "Chip ID:                 30032(0x7550)", "Compute Unit:            64",
                 "SIMDs per CU:            2", "Shader Engines:          4",
                 "Shader Arrs. per Eng.:   2", "Max Clock Freq. (MHz):   2400",
                 "Cacheline Size:          256", "Wavefront Size:          32",
                 "Max Waves Per CU:        32", "L1:                      32 KB",
                 "L2:                      8192 KB", "L3:                      65536 KB",
                 "Name:                    amdgcn-amd-amdhsa--gfx1201"],
    # RX 9060 XT: every line is in the rocminfo listing of github.com/ROCm/ROCm/issues/5997
    # (ROCm 7.2.0; Max Clock is that board's, others print 2620 to 2840).
    "rx9060xt": ["Name:                    gfx1200", "Marketing Name:          AMD Radeon RX 9060 XT",
                 "Chip ID:                 30096(0x7590)", "Compute Unit:            32",
                 "SIMDs per CU:            2", "Shader Engines:          2",
                 "Shader Arrs. per Eng.:   2", "Max Clock Freq. (MHz):   2780",
                 "Cacheline Size:          256", "Wavefront Size:          32",
                 "Max Waves Per CU:        32", "L1:                      32 KB",
                 "L2:                      4096 KB", "L3:                      32768 KB",
                 "Name:                    amdgcn-amd-amdhsa--gfx1200"],
}


@pytest.mark.parametrize("board", sorted(BOARDS))
def test_board_profiles_report_as_rocminfo_does_on_the_board(board):
    proc = cprog.run(f"{ROOT}/examples/list_agents.c", SOFTGPU_PROFILE=board)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [line.strip() for line in proc.stdout.splitlines()]
    for expected in BOARDS[board]:
        assert expected.strip() in lines, expected


@pytest.mark.parametrize("board", ["rx9070xt", "rx9060xt"])
def test_rdna4_boards_list_the_pools_rocminfo_lists(board):
    """Both boards' listings (the issues above) give the GPU 16695296 KB of coarse-grained memory
    (16 GiB less 80 MiB: the 16304 MiB amdgpu reports as VRAM) and the 64 KB GROUP segment, and
    no extended fine-grained pool (ROCr leaves it out on gfx12.0)."""
    proc = subprocess.run([sys.executable, "-m", "core.cli", "info"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env=cprog.env(SOFTGPU_PROFILE=board))
    assert proc.returncode == 0, proc.stderr
    gpu = proc.stdout.split("Agent 2")[1].splitlines()
    pools = [" ".join(line.split()) for line in gpu if line.strip().startswith(("Segment:", "Size:"))]
    assert pools == ["Segment: GLOBAL; FLAGS: COARSE GRAINED", "Size: 16695296(0xfec000) KB",
                     "Segment: GROUP", "Size: 64(0x40) KB"]


def _machine(tmp_path, *others):
    with open(os.path.join(ROOT, "profiles", "gfx1030.json")) as f:
        data = json.load(f)
    data["other_gpus"] = [{"profile": name, "count": count} for name, count in others]
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(data))
    return path


def test_a_machine_lists_gpus_of_every_board_it_names(tmp_path):
    path = _machine(tmp_path, ("mi210", 2), ("rx7900xtx", 1))
    loaded = profile.load(str(path))
    sizes = [size for _, size in loaded.gpu_boards()]
    assert sizes == [17163091968, 68702699520, 68702699520, 25753026560]
    assert loaded.arena_bytes == sum(sizes) + loaded.system_bytes
    proc = cprog.run(f"{ROOT}/examples/list_agents.c", SOFTGPU_PROFILE=str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    isas = [line.split()[-1] for line in proc.stdout.splitlines() if "amdgcn-amd-amdhsa--" in line]
    assert isas == ["amdgcn-amd-amdhsa--gfx1030", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
                    "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx1100"]
    # Boards of one machine sit on consecutive PCI buses: their own bus, plus their index.
    bdfids = [int(line.split()[-1]) for line in proc.stdout.splitlines() if "BDFID" in line]
    assert bdfids == [768 + (0 << 8), 58112 + (1 << 8), 58112 + (2 << 8), 768 + (3 << 8)]


def test_other_gpus_must_name_plain_profiles(tmp_path):
    with pytest.raises(InvalidProfile, match=r"field 'other_gpus\[0\].profile': profile 'mi250': "
                                             r"no such profile"):
        profile.load(str(_machine(tmp_path, ("mi250", 1))))
    nested = _machine(tmp_path, ("mi210", 1))
    outer = tmp_path / "outer.json"
    with open(nested) as f:
        data = json.load(f)
    data["other_gpus"] = [{"profile": str(nested), "count": 1}]
    outer.write_text(json.dumps(data))
    with pytest.raises(InvalidProfile, match="'other_gpus' may not be used in a profile another "
                                             "one's other_gpus names"):
        profile.load(str(outer))


class Machine:
    """hsa_init in this process on a machine of one gfx1030, one MI210 and one RX 7900 XTX."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(LIBRARY)
        previous = os.environ.get("SOFTGPU_PROFILE")
        os.environ["SOFTGPU_PROFILE"] = str(path)
        try:
            assert self.lib.hsa_init() == 0
        finally:
            if previous is None:
                del os.environ["SOFTGPU_PROFILE"]
            else:
                os.environ["SOFTGPU_PROFILE"] = previous
        from core import runtime
        self.session = runtime.require()

    def load(self, path, agent):
        """The status of loading the code object file at `path` for `agent`."""
        reader, executable = ctypes.c_uint64(), ctypes.c_uint64()
        fd = os.open(path, os.O_RDONLY)
        try:
            assert self.lib.hsa_code_object_reader_create_from_file(fd, ctypes.byref(reader)) == 0
        finally:
            os.close(fd)
        assert self.lib.hsa_executable_create_alt(1, 0, None, ctypes.byref(executable)) == 0
        status = self.lib.hsa_executable_load_agent_code_object(
            executable, ctypes.c_uint64(agent.handle), reader, None, None)
        self.lib.hsa_executable_destroy(executable)
        self.lib.hsa_code_object_reader_destroy(reader)
        return status


def _gfx906_board(tmp_path):
    """A gfx1030 board with a gfx906 ISA: a GPU ROCr knows and SoftGPU has no ISA tables for."""
    with open(os.path.join(ROOT, "profiles", "gfx1030.json")) as f:
        data = json.load(f)
    data["gpu"].update(name="gfx906", isa="amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-",
                       wavefront_size=64)
    path = tmp_path / "gfx906.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("machine")
    m = Machine(_machine(tmp, ("mi210", 1), ("rx7900xtx", 1), (_gfx906_board(tmp), 1)))
    yield m
    assert m.lib.hsa_shut_down() == 0


KERNEL = "kernel void k(global int *p) {\n  p[get_global_id(0)] += 1;\n}\n"
OK, REFUSED = 0, Status.ERROR_INCOMPATIBLE_ARGUMENTS

# code object target -> load status on (gfx1030, gfx90a:sramecc+:xnack-, gfx1100,
# gfx906:sramecc+:xnack-) agents.
LOADS = {
    "gfx1030": (OK, REFUSED, REFUSED, REFUSED),
    "gfx90a": (REFUSED, OK, REFUSED, REFUSED),               # xnack and sramecc "any"
    "gfx90a:xnack-": (REFUSED, OK, REFUSED, REFUSED),
    "gfx90a:xnack+": (REFUSED, REFUSED, REFUSED, REFUSED),
    "gfx90a:sramecc+:xnack-": (REFUSED, OK, REFUSED, REFUSED),
    "gfx90a:sramecc-": (REFUSED, REFUSED, REFUSED, REFUSED),
    "gfx1100": (REFUSED, REFUSED, OK, REFUSED),
    "gfx906": (REFUSED, REFUSED, REFUSED, OK),
}


@pytest.mark.parametrize("target", sorted(LOADS))
def test_each_gpu_loads_only_code_its_isa_accepts(machine, target):
    path = compile_opencl(KERNEL, mcpu=target)
    statuses = tuple(machine.load(path, agent) for agent in machine.session.agents.gpus)
    assert statuses == LOADS[target]


def test_a_kernel_for_a_gpu_without_isa_tables_faults_naming_the_target(machine):
    """gfx906 code loads on the gfx906 board (ROCr's rule) but the engine has no tables for
    it: the dispatch ends in an illegal-instruction fault that says so, not a wrong result."""
    path = compile_opencl(KERNEL, mcpu="gfx906")
    with pytest.raises(KernelFault) as fault:
        launch(machine.session, path, "k", [np.zeros(64, np.int32)], 64, 64)
    assert fault.value.status == Status.ERROR_ILLEGAL_INSTRUCTION
    assert "no ISA tables for 'gfx906'" in str(fault.value)


@pytest.mark.parametrize("board,xccs", [("mi300x", 8), ("mi210", 1)])
def test_gpu_agents_report_their_xccs_and_a_scratch_aperture_per_xcc(board, xccs):
    """ROCr 6's NUM_XCC: the MI300X spreads its 304 CUs over 8 XCCs, an MI210 has one."""
    cprog.check("xcc_info.c", xccs, SOFTGPU_PROFILE=board)
