"""Compile real kernels with clang-15 for a target (gfx1030 by default) and rocm-device-libs.

Shipped with the package, so a pip user builds kernels for every target SoftGPU runs as the
tests and benchmarks do. compile_opencl(path or text, opt="-O2", wave64=False,
code_object=4, mcpu="gfx1030") and compile_hip(...) return the path of a code object.
Holds these invariants:
- a build is cached by its source text and every flag, so each variant is built once per
  machine, and parallel processes building the same one never see a half-written file;
- a source clang rejects raises CompileError carrying clang's diagnostics;
- `device_libs(mcpu)` is a --rocm-device-lib-path that builds for `mcpu`, also for a target
  Debian's rocm-device-libs lacks (gfx1100).
"""
import hashlib
import os
import shutil
import subprocess
import tempfile

# Debian's rocm-device-libs (the libclang-common-15-dev bitcode clang-15 links kernels with).
BITCODE = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
# Content-addressed, so every checkout and installation on the machine shares it.
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


def device_libs(mcpu):
    """A bitcode directory clang takes for `mcpu`: the system's, or for a target Debian's
    rocm-device-libs has no oclc_isa_version_<N>.bc for (gfx1100), a directory of links to
    the system's files beside that one made here: it only defines the constant
    __oclc_ISA_version (major * 1000 + minor * 100 + stepping), so it is gfx1030's with the
    number changed, assembled by llvm-as-15. clang-15 reads only the last
    --rocm-device-lib-path it is given, so the directory must hold every file."""
    processor = mcpu.split(":")[0]          # gfx90a:xnack+ builds with gfx90a's bitcode
    name = f"oclc_isa_version_{processor[3:]}.bc"
    if os.path.exists(os.path.join(BITCODE, name)):
        return BITCODE
    out = os.path.join(_CACHE, f"device-libs-{processor}")
    if os.path.exists(os.path.join(out, name)):
        return out
    major, minor, stepping = int(processor[3:-2]), int(processor[-2], 16), int(processor[-1], 16)
    base = subprocess.run(["llvm-dis-15", os.path.join(BITCODE, "oclc_isa_version_1030.bc"),
                           "-o", "-"], capture_output=True, text=True, check=True).stdout
    text = base.replace("i32 10300", f"i32 {major * 1000 + minor * 100 + stepping}")
    os.makedirs(_CACHE, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=_CACHE)
    for bitcode in os.listdir(BITCODE):
        os.symlink(os.path.join(BITCODE, bitcode), os.path.join(tmp, bitcode))
    subprocess.run(["llvm-as-15", "-o", os.path.join(tmp, name), "-"], input=text.encode(),
                   check=True)
    try:
        os.rename(tmp, out)         # another process may have made it first: theirs is equal
    except OSError:
        shutil.rmtree(tmp)
    return out


def _clang(flags, text):
    def build(out):
        done = subprocess.run(["clang-15", *flags, "-o", out, "-"], input=text.encode(),
                              capture_output=True)
        if done.returncode:
            raise CompileError(f"clang-15 {' '.join(flags)} failed:\n{done.stderr.decode()}")
    return _cached([text, *flags], build)


def opencl_flags(mcpu="gfx1030", opt="-O2", code_object=4, wave64=False, extra=()):
    """clang-15's flags for an OpenCL kernel source of `mcpu` (it reads the source on stdin)."""
    flags = ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}", opt,
             f"-mcode-object-version={code_object}", f"--rocm-device-lib-path={device_libs(mcpu)}",
             "-Xclang", "-finclude-default-header", *extra]
    if wave64:
        flags.append("-mwavefrontsize64")
    return flags


def compile_opencl(source, opt="-O2", wave64=False, code_object=4, mcpu="gfx1030", extra=()):
    """Compile the OpenCL file at path `source` (or OpenCL text: anything with a newline)."""
    return _clang(opencl_flags(mcpu, opt, code_object, wave64, extra), _source_text(source))


def compile_hip(source, opt="-O2", wave64=False, code_object=4, mcpu="gfx1030", extra=()):
    """Compile a HIP device-only code object (no host code, no offload bundle) with clang-15.

    HIP headers come from Debian's libamdhip64-dev (/usr/include/hip, found through
    --rocm-path=/usr); --no-gpu-bundle-output writes the plain ELF code object instead of
    a clang-offload-bundler archive (that tool is not packaged).
    """
    flags = ["-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output", f"--offload-arch={mcpu}",
             opt, "--rocm-path=/usr", f"--rocm-device-lib-path={device_libs(mcpu)}",
             f"-mcode-object-version={code_object}", *extra]
    if wave64:
        flags.append("-mwavefrontsize64")
    return _clang(flags, _source_text(source))


def _source_text(source):
    if "\n" in source:      # kernel text, not a file name
        return source
    with open(source) as f:
        return f.read()
