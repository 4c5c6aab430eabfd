"""Where SoftGPU's files are: the library and the package root (the device profiles:
core/profile_files.py).

Holds this invariant: a checkout and an installed wheel answer alike — the checkout's
build/lib/, or the wheel's softgpu_shim/lib/ — and SOFTGPU_LIBDIR (a library built
elsewhere) wins over both.
"""
import os

from core import settings

SONAME = "libhsa-runtime64.so.1"
# Built beside the runtime; `softgpu run` preloads it (driver_stand_in.c).
DRIVER_STAND_IN = "libsoftgpu-driver.so"
PACKAGE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(PACKAGE)          # the checkout, or site-packages for a wheel


def library_dir():
    """The directory holding libhsa-runtime64.so.1 (what LD_LIBRARY_PATH needs)."""
    if settings.get("SOFTGPU_LIBDIR"):
        return settings.get("SOFTGPU_LIBDIR")
    installed = os.path.join(PACKAGE, "lib")
    if os.path.exists(os.path.join(installed, SONAME)):
        return installed
    return os.path.join(ROOT, "build", "lib")


def library_environment(environ=None):
    """A copy of `environ` (default: this process's) whose LD_LIBRARY_PATH finds this library
    first: what a program linked against ROCr needs to run on SoftGPU."""
    env = dict(os.environ if environ is None else environ)
    env["LD_LIBRARY_PATH"] = library_dir() + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def library_path():
    """The library file, for ctypes.CDLL(library_path())."""
    return os.path.join(library_dir(), SONAME)

