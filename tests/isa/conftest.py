"""Fixtures for ISA engine tests: a live runtime session inside the pytest process, and the
ALU implementation (numpy or native) that the ALU's tests run against.

The library is cffi-embedded: loaded with ctypes into a process that already runs
Python, its exports run in this same interpreter, so after hsa_init the session that
`core.runtime.require()` returns is the one the library's own calls use. Its machine has one
GPU of each target the engine runs (the gfx1030 board first, then an MI210, an RX 7900 XTX,
an MI300X, an MI355X, an RX 9070 XT and an RX 9060 XT), so every target's kernels load on a GPU that accepts them.
"""
import ctypes
import json
import os

import pytest

from tests.isa import alu_support
from tests.support.paths import LIBRARY, ROOT


@pytest.fixture(scope="module", params=["numpy", "native"])
def alu_impl(request):
    """The ALU implementation the module's tests run against (see tests/isa/alu_support.py)."""
    alu_support.use(request.param)
    yield request.param
    alu_support.use("numpy")


# Package scope: the session ends with the last test under tests/isa, so the runtime
# tests that follow (a small profile, exact object counts) start from a fresh hsa_init.
@pytest.fixture(scope="package")
def session(tmp_path_factory):
    with open(os.path.join(ROOT, "profiles", "gfx1030.json")) as f:
        machine = json.load(f)
    machine["other_gpus"] = [{"profile": "mi210", "count": 1}, {"profile": "rx7900xtx", "count": 1},
                             {"profile": "mi300x", "count": 1}, {"profile": "mi355x", "count": 1},
                             {"profile": "rx9070xt", "count": 1}, {"profile": "rx9060xt", "count": 1}]
    path = tmp_path_factory.mktemp("profile") / "every_target.json"
    path.write_text(json.dumps(machine))
    lib = ctypes.CDLL(LIBRARY)
    lib.hsa_init.restype = ctypes.c_int
    lib.hsa_shut_down.restype = ctypes.c_int
    previous = os.environ.get("SOFTGPU_PROFILE")
    os.environ["SOFTGPU_PROFILE"] = str(path)
    try:
        status = lib.hsa_init()
    finally:
        if previous is None:
            del os.environ["SOFTGPU_PROFILE"]
        else:
            os.environ["SOFTGPU_PROFILE"] = previous
    assert status == 0, f"hsa_init returned {status:#x}"
    from core import runtime
    yield runtime.require()
    assert lib.hsa_shut_down() == 0
