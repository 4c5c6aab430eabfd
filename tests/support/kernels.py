"""Compile real kernels with clang-15 for gfx1030 and rocm-device-libs.

compile_opencl("vadd.cl", opt="-O2", wave64=False, code_object=4) and compile_hip(...)
return the path of a code object, cached by content so each variant is built once per
machine. A source rejected by clang raises CompileError with clang's diagnostics.
"""
import hashlib
import os
import subprocess
import tempfile

from tests.support.paths import BITCODE, ROOT

KERNELS = os.path.join(ROOT, "tests", "kernels")
_CACHE = os.path.join(tempfile.gettempdir(), "softgpu-test-kernels")


class CompileError(AssertionError):
    """clang-15 rejected a kernel source; the message carries clang's diagnostics."""


def _cached(key_parts, build):
    digest = hashlib.sha1("\0".join(key_parts).encode()).hexdigest()[:16]
    os.makedirs(_CACHE, exist_ok=True)
    out = os.path.join(_CACHE, digest + ".co")
    if not os.path.exists(out):
        # A private temporary name: parallel test processes may build the same variant.
        fd, tmp = tempfile.mkstemp(suffix=".co", dir=_CACHE)
        os.close(fd)
        try:
            build(tmp)
            os.replace(tmp, out)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return out


def _clang(flags, text):
    def build(out):
        done = subprocess.run(["clang-15", *flags, "-o", out, "-"], input=text.encode(),
                              capture_output=True)
        if done.returncode:
            raise CompileError(f"clang-15 {' '.join(flags)} failed:\n{done.stderr.decode()}")
    return _cached([text, *flags], build)


def compile_opencl(source, opt="-O2", wave64=False, code_object=4, mcpu="gfx1030", extra=()):
    """Compile tests/kernels/<source> (or a path, or OpenCL text containing 'kernel')."""
    flags = ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}", opt,
             f"-mcode-object-version={code_object}", f"--rocm-device-lib-path={BITCODE}",
             "-Xclang", "-finclude-default-header", *extra]
    if wave64:
        flags.append("-mwavefrontsize64")
    return _clang(flags, _source_text(source))


def compile_hip(source, opt="-O2", wave64=False, code_object=4, mcpu="gfx1030", extra=()):
    """Compile a HIP device-only code object (no host code, no offload bundle) with clang-15.

    HIP headers come from Debian's libamdhip64-dev (/usr/include/hip, found through
    --rocm-path=/usr); --no-gpu-bundle-output writes the plain ELF code object instead of
    a clang-offload-bundler archive (that tool is not packaged).
    """
    flags = ["-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output", f"--offload-arch={mcpu}",
             opt, "--rocm-path=/usr", f"--rocm-device-lib-path={BITCODE}",
             f"-mcode-object-version={code_object}", *extra]
    if wave64:
        flags.append("-mwavefrontsize64")
    return _clang(flags, _source_text(source))


def _source_text(source):
    if "\n" in source:      # kernel text, not a file name
        return source
    path = source if os.path.isabs(source) else os.path.join(KERNELS, source)
    with open(path) as f:
        return f.read()
