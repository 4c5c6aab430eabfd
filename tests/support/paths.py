import os

from core.toolchain import BITCODE  # noqa: F401  (the C and client tests link with it)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# SOFTGPU_LIBDIR lets a developer test a library built elsewhere (python3 build_shim.py DIR).
LIBDIR = os.environ.get("SOFTGPU_LIBDIR") or os.path.join(ROOT, "build", "lib")
LIBRARY = os.path.join(LIBDIR, "libhsa-runtime64.so.1")
C_TESTS = os.path.join(ROOT, "tests", "c")
