"""The vendored ABI files are what the committed generators make from the vendored newest
headers, with no clang on the path: abi_types.h, exports.h and hsa_enums.py."""
import os
import shutil
import subprocess
import sys

from tests.support.paths import ROOT
from tests.test_exports import reference_exports

GEN = os.path.join(ROOT, "ci", "gen")
SHIM = os.path.join(ROOT, "softgpu_shim")


def _generators():
    sys.path.insert(0, GEN)
    try:
        import abi_headers
        import hsa_headers
    finally:
        sys.path.remove(GEN)
    return abi_headers, hsa_headers


def _path_without_clang(tmp_path):
    """A PATH holding only the C compiler's driver (the preprocessor and the enum dumper need it)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("cc", "gcc", "as", "ld"):
        found = shutil.which(tool)
        if found:
            os.symlink(found, bin_dir / tool)
    return str(bin_dir)


def test_abi_types_and_exports_are_generated_from_the_vendored_headers():
    abi_headers, hsa_headers = _generators()
    ast = hsa_headers.parse(headers=abi_headers.ABI_HEADERS)
    with open(os.path.join(SHIM, "abi_types.h")) as f:
        assert f.read() == abi_headers.types_header(ast)
    with open(os.path.join(SHIM, "exports.h")) as f:
        assert f.read() == abi_headers.exports_header(ast, reference_exports())


def test_enums_are_generated_without_clang(tmp_path):
    env = dict(os.environ, PATH=_path_without_clang(tmp_path))
    out = subprocess.run([sys.executable, os.path.join(GEN, "hsa_enums.py")], env=env, capture_output=True,
                         text=True, check=True).stdout
    with open(os.path.join(SHIM, "hsa_enums.py")) as f:
        assert f.read() == out


def test_the_newest_headers_are_vendored():
    """The interface version the generated files describe: the newest ROCr's (1.11)."""
    with open(os.path.join(SHIM, "include", "hsa", "hsa_ext_amd.h")) as f:
        text = f.read()
    assert "#define HSA_AMD_INTERFACE_VERSION_MINOR 11" in text
    assert "hsa_amd_memory_get_preferred_copy_engine" in text
