"""The ROCm 6.4 test root for the tests: ci/rocm64.py's driver, and the verdict on a root that
cannot be used here: a skip on a developer's machine, a FAILURE in CI (tests.support.tools)."""
import os

from ci.rocm64 import (ROOT_DIR, STAMPS, TESTS, WORK, Counts, Gtest, absent, clang21, count,  # noqa: F401
                       hipcc, host_path, objdump, run, softgpu_run, up_to_date)
from tests.support.tools import missing


def require():
    """The root's folder, made ready for this checkout."""
    reason = absent()
    if reason:
        missing(reason)
    return up_to_date()


def require_tools():
    """The root's folder for its compilers and llvm tools only (clang-21, llvm-objdump-21):
    needs a complete root but not this checkout's SoftGPU in it."""
    reason = absent()
    if reason:
        missing(reason)
    return ROOT_DIR


def opencl_builds(folder, name, source, targets, *flags):
    """{target: code object} of OpenCL C `source` (written to folder/name.cl) built by the
    root's clang-21 for each target, -O2 and code object v5 unless `flags` say otherwise."""
    require_tools()
    path = folder / f"{name}.cl"
    path.write_text(source)
    return {t: clang21(str(path), t, *(flags or ("-O2", "-mcode-object-version=5"))) for t in targets}


def encodings(mcpu, lines):
    """llvm-mc-21's listing (`--show-encoding`) of the assembly `lines` for `mcpu`, from a
    source file of this process's own (test processes run side by side)."""
    require_tools()
    source = f"{WORK}/mc/{os.getpid()}.{mcpu}.s"
    os.makedirs(os.path.dirname(host_path(source)), exist_ok=True)
    with open(host_path(source), "w") as f:
        f.write("\n".join(lines) + "\n")
    return run("llvm-mc-21", "-arch=amdgcn", f"-mcpu={mcpu}", "--show-encoding", source, timeout=60)
