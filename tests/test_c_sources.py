"""Every C file of the library compiles on its own, with its own includes (build_shim.py
compiles them as one translation unit; editors, linters and readers take them one at a time).
The headers cffi reads (native.h, safe_memory.h, embedding_paths.h, runner.h) cannot include
anything, so shim.h, which every C file includes first, gives them what they use."""
import glob
import os
import subprocess
import sysconfig

import pytest

from build_shim import C_FLAGS, C_INCLUDE_DIRS, DRIVER_SOURCE, NATIVE_TIER, SETTINGS_HEADER, SHIM, settings_source

SOURCES = sorted(glob.glob(os.path.join(SHIM, "*.c")) + glob.glob(os.path.join(NATIVE_TIER, "*.c")))
# What build_shim.py gives every file: its flags, its include directories (and Python's, which
# cffi adds) and the build's two macros; warnings that hide a missing declaration fail.
FLAGS = ["-fsyntax-only", *C_FLAGS,
         "-Werror=implicit-function-declaration", "-Werror=implicit-int",
         "-Werror=incompatible-pointer-types", *(f"-I{d}" for d in C_INCLUDE_DIRS),
         "-I", sysconfig.get_paths()["include"],
         '-DSG_BUILT_ROOT="/checkout"', '-DSG_BUILD_SITE_PATHS_LIST="/site-packages",']


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """The directory of the header build_shim.py generates (the SOFTGPU_* ids)."""
    directory = tmp_path_factory.mktemp("generated")
    (directory / SETTINGS_HEADER).write_text(settings_source())
    return str(directory)


def compile_alone(path, generated):
    flags = FLAGS + ["-I", generated]
    if os.path.basename(path) == DRIVER_SOURCE:     # a library of its own, built without -D
        flags = [f for f in FLAGS if f != "-D_GNU_SOURCE"]
    return subprocess.run([os.environ.get("CC", "gcc"), *flags, path], capture_output=True,
                          text=True, timeout=120)


def test_the_sources_are_found():
    names = {os.path.basename(p) for p in SOURCES}
    assert {"processor.c", "answers.c", "fastpath_exports.c", "fastpath.c", "runner.c"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=os.path.basename)
def test_a_c_file_compiles_on_its_own(path, generated):
    result = compile_alone(path, generated)
    assert result.returncode == 0, result.stderr
    # Static helpers another file of the one translation unit defines are only declared here.
    other = [line for line in result.stderr.splitlines()
             if "warning:" in line and "used but never defined" not in line]
    assert not other, result.stderr


def test_a_file_missing_an_include_is_caught(tmp_path, generated):
    # The check itself: processor.c without its <stdlib.h> (calloc, free) fails.
    source = open(os.path.join(SHIM, "processor.c")).read()
    assert "#include <stdlib.h>\n" in source
    broken = tmp_path / "processor.c"
    broken.write_text(source.replace("#include <stdlib.h>\n", ""))
    result = compile_alone(str(broken), generated)
    assert result.returncode != 0 and "implicit declaration" in result.stderr
