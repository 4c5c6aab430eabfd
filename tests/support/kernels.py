"""The tests' kernel builds: core.toolchain's, with sources named relative to tests/kernels/.

compile_opencl("vadd.cl", ...) and compile_hip(...) take a file name under tests/kernels/,
a path, or kernel text; everything else is core.toolchain's (shipped with the package).
"""
import os

from core import toolchain
from core.toolchain import BITCODE, CompileError, device_libs  # noqa: F401  (the tests' names)
from tests.support.paths import ROOT

KERNELS = os.path.join(ROOT, "tests", "kernels")


def _located(source):
    return source if "\n" in source or os.path.isabs(source) else os.path.join(KERNELS, source)


def compile_opencl(source, *args, **kwargs):
    return toolchain.compile_opencl(_located(source), *args, **kwargs)


def compile_hip(source, *args, **kwargs):
    return toolchain.compile_hip(_located(source), *args, **kwargs)
