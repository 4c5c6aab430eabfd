"""Installed like a Python tool: `pip install .` makes a wheel that carries the library, and from
any directory, with no checkout, the installed package serves `softgpu run`, `softgpu info`,
`softgpu lib` and ctypes — also in a Python that is not the one it was installed into."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.support.kernels import compile_opencl
from tests.support.paths import ROOT
from tests.support.tools import missing, require_tool

DEBIAN_PYTHON = "/usr/bin/python3"


def run(args, cwd, **environ):
    env = {k: v for k, v in os.environ.items() if k not in ("SOFTGPU_LIBDIR", "PYTHONPATH")}
    env.update(environ)
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900, env=env)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    # pip builds in the source tree (build/wheel, the egg-info): from a copy of the checkout,
    # so two test processes (pytest -n) that both need the wheel never build in one tree.
    tree = tmp_path_factory.mktemp("checkout") / "softgpu"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", "build", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache"))
    out = tmp_path_factory.mktemp("wheel")
    proc = run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(tree)], cwd=str(out))
    assert proc.returncode == 0, proc.stderr
    wheels = [p for p in os.listdir(out) if p.endswith(".whl")]
    assert len(wheels) == 1 and "linux_x86_64" in wheels[0]         # a platform wheel: it holds a .so
    return str(out / wheels[0])


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh virtual environment with SoftGPU and its dependencies installed from the wheel."""
    where = tmp_path_factory.mktemp("venv")
    assert run([sys.executable, "-m", "venv", str(where)], cwd=str(where)).returncode == 0
    proc = run([str(where / "bin" / "pip"), "install", "-q", wheel], cwd=str(where))
    assert proc.returncode == 0, proc.stderr
    return where


def site_packages(venv):
    return str(venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages")


def _needs_the_same_minor_version(proc):
    """The system Python got the library's own refusal (embedding_paths.c): the test needs it to
    be the minor version SoftGPU was built with."""
    if "this process runs Python" in proc.stderr:
        missing("the system Python is not the minor version SoftGPU was built for")


def test_softgpu_lib_names_the_installed_library(venv, tmp_path):
    proc = run([str(venv / "bin" / "softgpu"), "lib"], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == os.path.join(site_packages(venv), "softgpu_shim", "lib")
    assert os.path.exists(os.path.join(proc.stdout.strip(), "libhsa-runtime64.so.1"))


def test_ctypes_loads_the_installed_runtime_not_a_checkout(venv, tmp_path):
    code = ("import ctypes, softgpu_shim, sys; lib = ctypes.CDLL(softgpu_shim.library_path()); "
            "assert lib.hsa_init() == 0; import core; print(core.__file__); assert lib.hsa_shut_down() == 0")
    proc = run([str(venv / "bin" / "python"), "-c", code], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith(site_packages(venv))


def test_softgpu_run_executes_a_program_from_anywhere(venv, tmp_path):
    exe = tmp_path / "vector_add"
    subprocess.run(["gcc", "-std=gnu11", "-O2", "-o", str(exe), os.path.join(ROOT, "examples", "vector_add.c"),
                    "-lhsa-runtime64"], check=True)
    code_object = compile_opencl(os.path.join(ROOT, "examples", "vector_add.cl"))
    proc = run([str(venv / "bin" / "softgpu"), "run", "--", str(exe), code_object, "3000"], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "3000 elements, verified" in proc.stdout


def test_softgpu_run_shows_rocminfo_the_driver_from_the_installed_package(venv, tmp_path):
    """The wheel carries libsoftgpu-driver.so and the executable lsmod `softgpu run` puts first."""
    proc = run([str(venv / "bin" / "softgpu"), "run", "--", "rocminfo"], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ROCk module is loaded" in proc.stdout and "amdgcn-amd-amdhsa--gfx1030" in proc.stdout


def test_softgpu_info_lists_the_system_from_the_installed_profiles(venv, tmp_path):
    proc = run([str(venv / "bin" / "softgpu"), "info"], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "AMD Radeon RX 6800 XT" in proc.stdout and "amdgcn-amd-amdhsa--gfx1030" in proc.stdout


def test_another_python_finds_the_packages_of_the_librarys_environment(venv, tmp_path):
    require_tool(DEBIAN_PYTHON, "a system Python to load the library into")
    library = os.path.join(site_packages(venv), "softgpu_shim", "lib", "libhsa-runtime64.so.1")
    code = f"import ctypes; lib = ctypes.CDLL({library!r}); print(lib.hsa_init()); import numpy; print(numpy.__file__)"
    proc = run([DEBIAN_PYTHON, "-S", "-c", code], cwd=str(tmp_path))
    _needs_the_same_minor_version(proc)
    assert proc.returncode == 0, proc.stderr
    status, numpy_path = proc.stdout.split()
    assert status == "0" and numpy_path.startswith(site_packages(venv))


def test_a_python_without_the_dependencies_is_told_what_is_missing(wheel, tmp_path):
    """SoftGPU alone (no dependencies) loaded into a bare Python: first without cffi's backend,
    then with it; each time hsa_init fails with a status and a message naming what to install."""
    require_tool(DEBIAN_PYTHON, "a system Python to load the library into")
    import _cffi_backend
    target = tmp_path / "bare"
    proc = run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), wheel],
               cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    library = str(target / "softgpu_shim" / "lib" / "libhsa-runtime64.so.1")
    code = f"import ctypes; print(ctypes.CDLL({library!r}).hsa_init())"

    proc = run([DEBIAN_PYTHON, "-S", "-c", code], cwd=str(tmp_path))
    _needs_the_same_minor_version(proc)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) != 0                     # HSA_STATUS_ERROR, not cffi's silent 0
    assert "python3 -m pip install cffi numpy pyelftools msgpack" in proc.stderr

    shutil.copy(_cffi_backend.__file__, target)
    proc = run([DEBIAN_PYTHON, "-S", "-c", code], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) != 0
    assert "cannot import numpy, pyelftools, msgpack" in proc.stderr
    assert "python3 -m pip install numpy pyelftools msgpack" in proc.stderr


def test_every_subcommand_works_from_the_installed_package(venv, tmp_path):
    """Every `softgpu` subcommand, run from a directory with no checkout, does its work: what a
    pip user has. A subcommand added later fails here until it is exercised."""
    softgpu = str(venv / "bin" / "softgpu")
    listed = run([str(venv / "bin" / "python"), "-c",
                  "from core import cli; cli.parser(); print(' '.join(sorted(cli._COMMANDS)))"], cwd=str(tmp_path))
    assert listed.returncode == 0, listed.stderr
    exe = tmp_path / "vector_add"
    subprocess.run(["gcc", "-std=gnu11", "-O2", "-o", str(exe), os.path.join(ROOT, "examples", "vector_add.c"),
                    "-lhsa-runtime64"], check=True)
    code_object = compile_opencl(os.path.join(ROOT, "examples", "vector_add.cl"))
    captures, trace, timeline = tmp_path / "captures", tmp_path / "trace.jsonl", tmp_path / "timeline.json"
    checks = {
        "lib": (["lib"], lambda p: os.path.isdir(p.stdout.strip())),
        "info": (["info", code_object], lambda p: "kernel vector_add  (vector_add.kd" in p.stdout),
        "disasm": (["disasm", code_object], lambda p: "s_endpgm" in p.stdout),
        # The evidence for "tested" ships with the package (D2: no checkout's tests to import).
        "isa-report": (["isa-report", "--status", "tested"], lambda p: "v_add_f32" in p.stdout),
        "settings": (["settings"], lambda p: "SOFTGPU_ENGINE" in p.stdout),
        "run": (["run", "--trace", str(trace), "--capture", str(captures), "--stats", "--", str(exe), code_object,
                 "3000"], lambda p: "3000 elements, verified" in p.stdout and "kernel statistics" in p.stderr),
        # D1: replay finds the installed library, not site-packages/build/lib.
        "replay": (["replay", str(captures)], lambda p: "identical" in p.stdout),
        "timeline": (["timeline", str(trace), "-o", str(timeline)], lambda p: timeline.stat().st_size > 0),
        # warm fills the test's own cache (XDG_CACHE_HOME below) and cache counts what it holds.
        "warm": (["warm", code_object], lambda p: "1: 1 translated" in p.stdout),
        "cache": (["cache"], lambda p: int(re.search(r"^entries: (\d+)$", p.stdout, re.M)[1]) >= 1),
    }
    assert sorted(checks) == listed.stdout.split()
    for name, (args, works) in checks.items():         # in order: replay and timeline use run's files
        proc = run([softgpu, *args], cwd=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
        assert proc.returncode == 0 and works(proc), f"softgpu {name}: {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr, proc.stderr


def test_a_subcommand_that_cannot_work_says_why_in_one_line(venv, tmp_path):
    softgpu = str(venv / "bin" / "softgpu")
    missing = str(tmp_path / "missing")
    for args in (["info", missing], ["disasm", missing], ["isa-report", missing], ["replay", missing],
                 ["timeline", missing, "-o", str(tmp_path / "t.json")],
                 ["run", "--timeline", os.path.join(missing, "t.json"), "--", "true"]):
        proc = run([softgpu, *args], cwd=str(tmp_path))
        assert proc.returncode != 0 and proc.stderr.count("\n") == 1 and missing in proc.stderr, (args, proc.stderr)


def test_the_installed_package_builds_kernels_for_gfx1100(venv, tmp_path):
    """Debian's rocm-device-libs lacks gfx1100's ISA constant: the package's own recipe
    (core.toolchain.device_libs) makes it, in a fresh cache, with no checkout around."""
    code = ("import sys; from core.toolchain import compile_opencl, device_libs; "
            "print(device_libs('gfx1100')); print(compile_opencl(sys.argv[1], mcpu='gfx1100'))")
    proc = run([str(venv / "bin" / "python"), "-c", code, os.path.join(ROOT, "examples", "vector_add.cl")],
               cwd=str(tmp_path), TMPDIR=str(tmp_path))          # a cache of its own: the recipe runs
    assert proc.returncode == 0, proc.stderr
    libs, code_object = proc.stdout.split()
    assert libs.startswith(str(tmp_path)) and os.path.exists(os.path.join(libs, "oclc_isa_version_1100.bc"))
    info = run([str(venv / "bin" / "softgpu"), "info", code_object], cwd=str(tmp_path))
    assert info.returncode == 0 and "amdgcn-amd-amdhsa--gfx1100" in info.stdout, info.stderr
