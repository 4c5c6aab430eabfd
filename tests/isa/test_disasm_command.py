"""`softgpu disasm FILE` as a user runs it."""
import re
import subprocess
import sys

import pytest

from tests.support.kernels import compile_opencl
from tests.support.paths import ROOT

KERNEL = r"""
int helper(int x) { return x * x + 3; }
kernel void scale(global int *out, global const int *in) {
    int i = get_global_id(0);
    out[i] = helper(in[i]) >> 1;
}
"""


def softgpu(*args):
    return subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=ROOT,
                          capture_output=True, text=True)


def objdump_texts(path, wave64, mcpu="gfx1030"):
    cmd = ["llvm-objdump-15", "-d", f"--mcpu={mcpu}", path]
    if wave64:
        cmd.insert(3, "--mattr=+wavefrontsize64")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return re.findall(r"^\t(.*?)\s*// [0-9A-F]{12}:", out, re.M)


def test_disasm_lists_every_function_as_llvm_objdump_does():
    for wave64 in (False, True):
        path = compile_opencl(KERNEL, opt="-O0", wave64=wave64)
        done = softgpu("disasm", path)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        wave = 64 if wave64 else 32
        assert any(re.match(rf"scale  \(kernel, wave{wave}\) at 0x[0-9a-f]+:", l) for l in lines)
        assert any(l.startswith("helper  (function) at") for l in lines)
        texts = [m.group(1) for m in map(re.compile(r"^  0x[0-9a-f]+  (.*?)\s*//").match, lines)
                 if m]
        assert texts == objdump_texts(path, wave64)


@pytest.mark.parametrize("mcpu", ["gfx90a", "gfx1100"])
def test_disasm_decodes_as_the_processor_the_object_was_built_for(mcpu):
    """Not as gfx1030: a gfx90a or gfx1100 object lists what llvm-objdump lists for it."""
    path = compile_opencl(KERNEL, opt="-O2", mcpu=mcpu)
    done = softgpu("disasm", path)
    assert done.returncode == 0, done.stderr
    texts = [m.group(1) for m in map(re.compile(r"^  0x[0-9a-f]+  (.*?)\s*//").match, done.stdout.splitlines())
             if m]
    assert texts == objdump_texts(path, mcpu == "gfx90a", mcpu)


def test_disasm_refuses_a_processor_it_has_no_tables_for():
    path = compile_opencl(KERNEL, opt="-O2", mcpu="gfx906")
    done = softgpu("disasm", path)
    assert done.returncode == 1
    assert "gfx906" in done.stderr and "no ISA tables" in done.stderr


def test_disasm_refuses_what_the_loader_refuses(tmp_path):
    junk = tmp_path / "junk.co"
    junk.write_bytes(b"not an elf")
    done = softgpu("disasm", str(junk))
    assert done.returncode == 1
    assert "not a loadable code object" in done.stderr
    missing = softgpu("disasm", str(tmp_path / "missing.co"))
    assert missing.returncode == 1 and "No such file" in missing.stderr
