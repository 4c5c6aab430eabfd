"""Build libhsa-runtime64.so.1: the C ABI edge of SoftGPU, with cffi's embedding mode.

Every export returning hsa_status_t is an embedding_api function that forwards into
Python (softgpu_shim.glue), except exports_table.C_STATUS_EXPORTS (hsa_init and
hsa_shut_down in fastpath_exports.c, hsa_agent_get_info in answers.c, which reach Python
through internal entries when they must); those and every other export (signal values,
waits, queue indices) are C fast paths that never take the GIL. A version script
puts every export at ROCR_1 and hides everything else, and the SONAME matches ROCr's,
so binaries linked against ROCr bind to this library without warnings. The Python
packages the library runs are byte-compiled too: a process's first hsa_init then reads
bytecode instead of compiling source (40 ms of it where PYTHONDONTWRITEBYTECODE is set,
and on the first run everywhere else).

Beside it goes libsoftgpu-driver.so (driver_stand_in.c), which `softgpu run` preloads.

Usage: python3 build_shim.py [OUTDIR] [--force]   (default: build/lib; rebuilds only when an
input changed). `pip install .` builds it into the wheel too (pyproject.toml's cmdclass).
"""
import compileall
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import cffi  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core import settings  # noqa: E402
from core.host_cpu import read_text  # noqa: E402
from softgpu_shim.exports_table import all_exports, python_entries  # noqa: E402
from core.location import DRIVER_STAND_IN  # noqa: E402

ROOT = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(ROOT, "softgpu_shim")
SONAME = "libhsa-runtime64.so.1"
MODULE = "_softgpu_hsa"
# The newest ROCr's headers, vendored: the library is compiled against them whatever the
# machine's /usr/include/hsa holds (5.2.3 on Debian 12, 6.4 on sid), so one build serves both.
INCLUDE = os.path.join(SHIM, "include")
NATIVE_TIER = os.path.join(ROOT, "core", "isa", "native")
# One translation unit, in this order (static helpers shared between files are declared in
# fastpath.h; each file includes what it uses, shim.h first, and also compiles on its own:
# tests/test_c_sources.py). The native tier's runner (core/isa/native/runner.*) is C the
# engine calls without the GIL.
C_SOURCES = ("fastpath.c", "ipc_shared.c", "safe_memory.c", "fastpath_exports.c",
             "embedding_paths.c", "processor.c", "answers.c", "debugger_rendezvous.c",
             os.path.join(NATIVE_TIER, "runner.c"))
# What the sources are compiled with besides -O2 (tests/test_c_sources.py compiles each file
# alone with the same), and where their includes are found (with the generated header's
# directory).
C_FLAGS = ("-std=gnu11", "-D_GNU_SOURCE", "-Wall", "-Wno-unused-function")
C_INCLUDE_DIRS = (INCLUDE, SHIM, NATIVE_TIER)
# Headers the sources include (not cdef'd): part of the build's inputs.
C_HEADERS = ("shim.h", "fastpath.h")
# Generated into the build's temporary directory from core/settings.py (settings_source);
# shim.h includes it.
SETTINGS_HEADER = "sg_settings.h"
# Declared to cffi: the ABI types and the C helpers Python calls.
CDEF_HEADERS = ("abi_types.h", os.path.join(NATIVE_TIER, "runner.h"), "native.h", "safe_memory.h",
                "embedding_paths.h")
# Python functions the C side calls (ffi.def_extern): the native tier's hand-over of waves at
# an instruction it does not translate to the interpreter (core/isa/native/handover.py), and
# its lookup of memory allocated while a dispatch runs (core/isa/native/live_memory.py), and
# its report of a dispatch that has run long (core/isa/native/dispatch.py).
CDEF_PYTHON = ('extern "Python" int64_t sg_handover(const sg_env *, uint8_t *, uint64_t, uint64_t, '
               'const uint32_t *, const uint32_t *, uint8_t **, uint64_t);\n'
               'extern "Python" int sg_live_range(void *, uint64_t, uint64_t, sg_range *);\n'
               'extern "Python" void sg_long_dispatch(const char *, uint64_t, const uint64_t *, uint64_t);')
# `softgpu run` preloads DRIVER_STAND_IN beside the runtime: /dev/kfd for clients that probe for it.
DRIVER_SOURCE = "driver_stand_in.c"


def read(name):
    with open(os.path.join(SHIM, name)) as f:
        return f.read()


def make_ffi(version_script, site_paths):
    ffi = cffi.FFI()
    for header in CDEF_HEADERS:
        ffi.cdef(read(header))
    ffi.cdef(CDEF_PYTHON)
    ffi.embedding_api("\n".join(proto for _, proto in python_entries()))
    tmpdir = os.path.dirname(os.path.abspath(version_script))
    with open(os.path.join(tmpdir, SETTINGS_HEADER), "w") as f:
        f.write(settings_source())
    ffi.set_source(MODULE, _paths_source(site_paths) + "".join(read(name) for name in C_SOURCES),
                   include_dirs=[*C_INCLUDE_DIRS, tmpdir],
                   extra_compile_args=["-O2", *C_FLAGS],
                   extra_link_args=["-Wl,-soname," + SONAME,
                                    "-Wl,--version-script=" + version_script])
    ffi.embedding_init_code(INIT_CODE)
    return ffi


# The library's embedding init code: the package paths (embedding_paths.c) — already in place
# when a running Python loaded the library — then the glue, or a clean failure of every call.
# Python's signal module installs a SIGINT handler when first imported (its C part, _signal,
# does: that is all imported here, as hsa_init has no use for the Python module's enums), and
# its readline module one for SIGWINCH (pyelftools imports pdb, whose rlcompleter imports readline from
# Python 3.13 on): both are imported here, between saving and restoring the host's
# dispositions (embedding_paths.c), so no later import can take Ctrl-C or window-size changes
# from the host program.
INIT_CODE = """
from _softgpu_hsa import ffi, lib
lib.sg_host_signals_save()
try:
    import _signal
    try:
        import readline
    except ImportError:       # a Python built without it installs no handler either
        pass
    lib.sg_add_package_paths()
    from softgpu_shim import bootstrap
    bootstrap.start(ffi.string(lib.sg_package_root()).decode(errors="replace"))
finally:
    lib.sg_host_signals_restore()
"""


def _paths_source(site_paths):
    """The C macros embedding_paths.c needs: the checkout it is built from and the
    site-packages of the building Python."""
    def literal(text):
        return json.dumps(text)          # a JSON string is a valid C string literal for paths
    entries = "".join(literal(p) + ", " for p in site_paths)
    return f"#define SG_BUILT_ROOT {literal(ROOT)}\n#define SG_BUILD_SITE_PATHS_LIST {entries}\n"


def settings_source():
    """sg_settings.h: the C side's names of the SOFTGPU_* variables (core/settings.py defines
    them), an id per variable and the list of their names, for fastpath.c's sg_setting."""
    ids = "".join(f"    SG_SETTING_{s.name},\n" for s in settings.SETTINGS)
    names = "".join(f"{json.dumps(s.name)}, " for s in settings.SETTINGS)
    return ("#ifndef SG_SETTINGS_H\n#define SG_SETTINGS_H\n"
            f"typedef enum {{\n{ids}}} sg_setting_id;\n"
            f"#define SG_SETTING_NAMES_LIST {names}\n"
            "const char *sg_setting(sg_setting_id id);\n#endif\n")


def _build_site_paths():
    import site
    return [p for p in site.getsitepackages() + [site.getusersitepackages()] if os.path.isdir(p)]


def write_version_script(path):
    with open(path, "w") as f:
        f.write("ROCR_1 {\n  global:\n")
        f.writelines(f"    {name};\n" for name in all_exports())
        f.write("  local: *;\n};\n")


def build(outdir, site_paths=None, force=False, tmpdir=None, dev_link=True):
    """Build the library into `outdir` unless the one there was built from the same inputs
    (every file make_ffi reads, this script, the export table and the init code's paths): a
    set-up checkout then rebuilds nothing. `site_paths`: where the runtime finds its
    dependencies besides the package root (default: this Python's site-packages). `tmpdir`:
    where the compiler's files go (default: OUTDIR/tmp); `dev_link`: also make the
    libhsa-runtime64.so link that `-lhsa-runtime64` needs."""
    outdir = os.path.abspath(outdir)
    for package in ("core", "softgpu_shim"):        # up-to-date files are skipped
        compileall.compile_dir(os.path.join(ROOT, package), quiet=1)
    site_paths = _build_site_paths() if site_paths is None else list(site_paths)
    target = os.path.join(outdir, SONAME)
    stamp = target + ".inputs"
    digest = _inputs_digest(site_paths)
    if not force and os.path.exists(target) and read_text(stamp) == digest:
        return target
    tmpdir = tmpdir or os.path.join(outdir, "tmp")
    os.makedirs(tmpdir, exist_ok=True)
    version_script = os.path.join(tmpdir, "exports.map")
    write_version_script(version_script)
    built = make_ffi(version_script, site_paths).compile(tmpdir=tmpdir, target=target, verbose=False)
    if os.path.abspath(built) != target:
        os.replace(built, target)
    subprocess.run([os.environ.get("CC", "gcc"), "-O2", "-Wall", "-shared", "-fPIC",
                    "-o", os.path.join(outdir, DRIVER_STAND_IN), os.path.join(SHIM, DRIVER_SOURCE),
                    "-ldl"], check=True)
    if dev_link:
        link = os.path.join(outdir, "libhsa-runtime64.so")
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(SONAME, link)
    with open(stamp, "w") as f:
        f.write(digest)
    return target


def _inputs_digest(site_paths):
    digest = hashlib.sha256(repr((ROOT, site_paths, sys.version)).encode())
    sources = CDEF_HEADERS + C_HEADERS + C_SOURCES + (DRIVER_SOURCE,)
    headers = sorted(os.path.join(INCLUDE, "hsa", name) for name in os.listdir(os.path.join(INCLUDE, "hsa")))
    for path in [os.path.join(SHIM, name) for name in sources] + headers + [
            os.path.abspath(__file__), os.path.join(SHIM, "exports_table.py"), os.path.join(SHIM, "exports.h")]:
        with open(path, "rb") as f:
            digest.update(f.read())
    digest.update(settings_source().encode())
    return digest.hexdigest()


def __getattr__(name):
    """pyproject.toml's cmdclass (BuildPy, BinaryWheel), made on first use so that a plain
    `python3 build_shim.py` does not pay for importing setuptools."""
    if name == "BuildPy":
        return _build_py_class()
    if name == "BinaryWheel":
        return _binary_wheel_class()
    raise AttributeError(f"module build_shim has no attribute {name!r}")


def _build_py_class():
    from setuptools.command.build_py import build_py

    class BuildPy(build_py):
        """setuptools' build_py, plus the library (softgpu_shim/lib/) and the device profiles
        (softgpu_shim/profiles/) in the package, so a wheel carries both. Editable installs
        skip it: a checkout uses build/lib/ (ci/setup.sh) and profiles/."""

        def run(self):
            super().run()
            if getattr(self, "editable_mode", False):
                return
            package = os.path.join(self.build_lib, "softgpu_shim")
            shutil.rmtree(os.path.join(package, "lib"), ignore_errors=True)     # no stale files
            # The wheel's own site-packages holds the dependencies: no build paths baked in;
            # wheels cannot hold symbolic links, and only the SONAME file is loaded.
            with tempfile.TemporaryDirectory() as tmpdir:
                build(os.path.join(package, "lib"), site_paths=(), force=True, tmpdir=tmpdir,
                      dev_link=False)
            self.copy_tree(os.path.join(ROOT, "profiles"), os.path.join(package, "profiles"))
    return BuildPy


def _binary_wheel_class():
    from setuptools.command.bdist_wheel import bdist_wheel   # setuptools >= 70.1 (pyproject.toml)

    class BinaryWheel(bdist_wheel):
        """The wheel holds a shared library built for this platform and Python: it is a
        platform wheel, its files at the root (platlib) as an extension module's would be."""

        def finalize_options(self):
            self.distribution.has_ext_modules = lambda: True
            super().finalize_options()
    return BinaryWheel


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--force"]
    print(build(args[0] if args else os.path.join(ROOT, "build", "lib"), force="--force" in sys.argv))
