"""Fixtures for ISA engine tests: a live runtime session inside the pytest process, and the
ALU implementation (numpy or native) that the ALU's tests run against.

The library is cffi-embedded: loaded with ctypes into a process that already runs
Python, its exports run in this same interpreter, so after hsa_init the session that
`core.runtime.require()` returns is the one the library's own calls use.
"""
import ctypes

import pytest

from tests.isa import alu_support
from tests.support.paths import LIBRARY


@pytest.fixture(scope="module", params=["numpy", "native"])
def alu_impl(request):
    """The ALU implementation the module's tests run against (see tests/isa/alu_support.py)."""
    alu_support.use(request.param)
    yield request.param
    alu_support.use("numpy")


# Package scope: the session ends with the last test under tests/isa, so the runtime
# tests that follow (a small profile, exact object counts) start from a fresh hsa_init.
@pytest.fixture(scope="package")
def session():
    lib = ctypes.CDLL(LIBRARY)
    lib.hsa_init.restype = ctypes.c_int
    lib.hsa_shut_down.restype = ctypes.c_int
    status = lib.hsa_init()
    assert status == 0, f"hsa_init returned {status:#x}"
    from core import runtime
    yield runtime.require()
    assert lib.hsa_shut_down() == 0
