"""`softgpu info` and the subcommand registry, run as people run them."""
import subprocess
import sys

import pytest

from core import cli
from tests.support.kernels import compile_opencl
from tests.support.paths import ROOT


def softgpu(*args):
    return subprocess.run([sys.executable, "-m", "core.cli", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_info_lists_kernels_and_descriptors():
    done = softgpu("info", "--args", compile_opencl("loader_tables.cl", code_object=5))
    assert done.returncode == 0, done.stderr
    assert "code object v5  target amdgcn-amd-amdhsa--gfx1030" in done.stdout
    assert "kernel follow_pointer  (follow_pointer.kd" in done.stdout
    assert "arg offset=8  size=4  type_name=int  value_kind=by_value" in done.stdout
    assert "      enable_wavefront_size32 = 1" in done.stdout
    assert "  constant loader_squares" in done.stdout and "  variable loader_counter" in done.stdout


def test_info_names_a_generic_target_and_its_version():
    import os
    from tests.support.kernels import KERNELS
    from tests.support.objects import llvm_kernel
    with open(os.path.join(KERNELS, "scale.ll")) as f:
        ir = f.read()
    done = softgpu("info", llvm_kernel(ir, "gfx11-generic"))
    assert done.returncode == 0, done.stderr
    assert "code object v6  target amdgcn-amd-amdhsa--gfx11-generic  (e_flags 0x1000054, " \
           "xnack unsupported, sramecc unsupported, generic version 1)" in done.stdout
    done = softgpu("info", llvm_kernel(ir, "gfx1100"))
    assert "code object v6  target amdgcn-amd-amdhsa--gfx1100  (e_flags 0x41, " \
           "xnack unsupported, sramecc unsupported)" in done.stdout


def test_info_names_undefined_symbols():
    done = softgpu("info", compile_opencl("loader_extern.cl"))
    assert "  undefined app_value" in done.stdout and "  undefined app_table" in done.stdout


@pytest.mark.parametrize("path,message", [("/nonexistent.co", "No such file"),
                                          ("/bin/sh", "not a loadable code object")])
def test_info_refuses_what_the_loader_refuses(path, message):
    done = softgpu("info", path)
    assert done.returncode == 1
    assert message in done.stderr and done.stdout == ""


def test_subcommands_register_once():
    assert "info" in cli.parser().format_help()
    with pytest.raises(RuntimeError, match="registered twice"):
        cli.command("info", help="again")(lambda parser: None)


def test_a_subcommand_is_required():
    done = softgpu()
    assert done.returncode == 2 and "COMMAND" in done.stderr
