"""Compile real kernels with clang-15 for gfx1030 and rocm-device-libs.

compile_opencl("vadd.cl", opt="-O2", wave64=False, code_object=4) returns the path
of a code object, cached by content so each variant is built once per machine.
"""
import hashlib
import os
import subprocess
import tempfile

from tests.support.paths import BITCODE, ROOT

KERNELS = os.path.join(ROOT, "tests", "kernels")
_CACHE = os.path.join(tempfile.gettempdir(), "softgpu-test-kernels")


def _cached(key_parts, build):
    digest = hashlib.sha1("\0".join(key_parts).encode()).hexdigest()[:16]
    os.makedirs(_CACHE, exist_ok=True)
    out = os.path.join(_CACHE, digest + ".co")
    if not os.path.exists(out):
        build(out + ".tmp")
        os.replace(out + ".tmp", out)
    return out


def compile_opencl(source, opt="-O2", wave64=False, code_object=4, mcpu="gfx1030", extra=()):
    """Compile tests/kernels/<source> (or a path, or OpenCL text containing 'kernel')."""
    text = _source_text(source)
    flags = ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}", opt,
             f"-mcode-object-version={code_object}", f"--rocm-device-lib-path={BITCODE}",
             "-Xclang", "-finclude-default-header", *extra]
    if wave64:
        flags.append("-mwavefrontsize64")

    def build(out):
        subprocess.run(["clang-15", *flags, "-o", out, "-"], input=text.encode(), check=True,
                       capture_output=True)
    return _cached([text, *flags], build)


def compile_hip(source, opt="-O2", code_object=4, mcpu="gfx1030"):
    """Compile a HIP device-only code object (no host code) with clang-15."""
    text = _source_text(source)
    flags = ["-x", "hip", "--cuda-device-only", f"--offload-arch={mcpu}", opt, "-nogpuinc",
             f"-mcode-object-version={code_object}", f"--rocm-device-lib-path={BITCODE}",
             "--hip-version=5.2"]

    def build(out):
        subprocess.run(["clang-15", *flags, "-o", out, "-"], input=text.encode(), check=True,
                       capture_output=True)
    return _cached([text, *flags], build)


def _source_text(source):
    if "kernel" in source and "\n" in source:
        return source
    path = source if os.path.isabs(source) else os.path.join(KERNELS, source)
    with open(path) as f:
        return f.read()
