"""Today's ROCm on SoftGPU, inside the ROCm 6.4 Debian sid root (ci/rocm64_root.sh): HIP 6.4.3
programs built by hipcc 7.0.2 (clang-21, code object v6) for every profile's GPU run on that
profile, and a subset of the ROCm libraries' own gtest suites (their -tests packages) pass.

The subsets keep CI's time: one or a few broad gtest runs per library, each a reproducible
gtest shard. ci/rocm64_suites.py runs the libraries' quick levels (or stated samples of them).
Without the root these tests skip on a developer's machine and fail in CI."""
import json
import os
import struct

import pytest

from core.profile import load as load_profile
from tests.support import rocm64
from tests.support.paths import ROOT
from tests.support.rocm64 import Gtest

HIP_TESTS = os.path.join(ROOT, "tests", "hip")
PROFILES = sorted(name[:-5] for name in os.listdir(os.path.join(ROOT, "profiles"))
                  if name.endswith(".json") and name != "schema.json")
EM_AMDGPU = 224
ELFABIVERSION_AMDGPU_HSA_V6 = 4
# GPUs the root's HIP (6.4.3) has no device for, and why: hipcc 7.0.2 builds for them, but
# HIP's runtime (CLR) refuses the agent ("Unsupported HSA device") and reports no device.
HIP_LACKS = {"gfx950": "HIP 6.4.3's runtime (CLR) knows no gfx950 device"}
EF_AMDGPU_MACH = {"gfx1030": 0x36, "gfx90a": 0x3f, "gfx942": 0x4c, "gfx950": 0x4f, "gfx1100": 0x41,
                  "gfx1200": 0x48, "gfx1201": 0x4e}


@pytest.fixture(scope="module")
def root():
    return rocm64.require()


def gpu_of(profile):
    return load_profile(profile).gpu["name"]


def amdgpu_objects(path):
    """(EI_ABIVERSION, machine) of every AMDGPU ELF inside a HIP executable's fat binary."""
    with open(path, "rb") as f:
        data = f.read()
    found, at = [], data.find(b"\x7fELF", 1)
    while at >= 0:
        if struct.unpack_from("<H", data, at + 18)[0] == EM_AMDGPU:
            found.append((data[at + 8], struct.unpack_from("<I", data, at + 48)[0] & 0xFF))
        at = data.find(b"\x7fELF", at + 1)
    return found


@pytest.mark.parametrize("program,marker", [
    ("hip_client.cpp", "HIP CLIENT OK"), ("hip_kernels.cpp", "HIP KERNELS OK"),
    ("hip_streams.cpp", "HIP STREAMS OK"), ("hip_memory.cpp", "HIP MEMORY OK")])
@pytest.mark.parametrize("profile", PROFILES)
def test_hip64_programs_built_by_hipcc7_run_on_every_profile(root, profile, program, marker):
    """hipcc 7.0.2 builds code object v6 for the profile's GPU by default; HIP 6.4.3 finds that
    GPU on SoftGPU, loads the program's kernels and its own, and every check holds."""
    gpu = gpu_of(profile)
    exe = rocm64.hipcc(os.path.join(HIP_TESTS, program), gpu, "-O2")
    assert amdgpu_objects(rocm64.host_path(exe)) == [(ELFABIVERSION_AMDGPU_HSA_V6, EF_AMDGPU_MACH[gpu])]
    trace = f"{os.path.dirname(exe)}/trace.{profile}.jsonl"
    # The build's folder outlives the run (builds are kept by content): a trace an earlier
    # run appended to would be read as this run's.
    if os.path.exists(rocm64.host_path(trace)):
        os.unlink(rocm64.host_path(trace))
    args = (gpu,) if program == "hip_client.cpp" else ()
    environ = {"SOFTGPU_PROFILE": profile, "SOFTGPU_TRACE": trace, "AMD_LOG_LEVEL": "1"}
    proc = rocm64.softgpu_run(exe, *args, timeout=600, environ=environ)
    if gpu in HIP_LACKS:
        # SoftGPU lists the agent; HIP itself refuses it (strict: a HIP that runs it fails here).
        assert proc.returncode != 0 and f"Unsupported HSA device {gpu}" in proc.stderr, \
            proc.stdout + proc.stderr
        return
    assert proc.returncode == 0 and marker in proc.stdout, proc.stdout + proc.stderr
    with open(rocm64.host_path(trace)) as f:
        recorded = [json.loads(line) for line in f]
    assert any(e["event"] == "dispatch" for e in recorded)
    bad = [e for e in recorded if e["event"] in ("internal", "unsupported")]
    assert not bad, bad


# One broad run per library: (library, gtest run). Shards keep each well under two minutes here.
SUBSETS = [
    ("rocRAND", Gtest("librocrand1-tests/test_rocrand_kernel_philox4x32_10")),
    ("rocRAND", Gtest("librocrand1-tests/test_rocrand_philox_prng", shards=8)),
    # hipRAND's device API in kernels (every 5th: 1.2 min on a loaded 2-core machine); its host
    # API tests create every generator, MT19937's too, whose jump-ahead kernel takes minutes.
    ("hipRAND", Gtest("libhiprand1-tests/test_hiprand_kernel", shards=5)),
    ("rocFFT", Gtest("librocfft0-tests/rocfft-test", ("--smoketest",), shards=250)),
    ("rocSPARSE", Gtest("librocsparse1-tests/rocsparse-test", ("--gtest_filter=*quick*",), shards=5000)),
    ("hipSPARSE", Gtest("libhipsparse1-tests/hipsparse-test", (), shards=2000)),
    ("rocBLAS", Gtest("librocblas4-tests/rocblas-test", ("--gtest_filter=*quick*axpy*:*quick*dot*",), shards=20)),
    # GETRF (432 check-in tests) runs rocSOLVER's generic-target kernels (gfx10-3-generic);
    # the check-in level's SVDs take minutes each on SoftGPU.
    ("rocSOLVER", Gtest("librocsolver0-tests/rocsolver-test", ("--gtest_filter=checkin_lapack/GETRF.*",), shards=72)),
    # Kernels MIOpen compiles at run time as OpenCL; its HIP-source kernels do not build in sid
    # (its `-isystem /usr/include` hides libstdc++ 16's math.h), on any GPU.
    ("MIOpen", Gtest("libmiopen1-tests/miopen_gtest", ("--gtest_filter=Smoke/GPU_binaryTensorOps_cast_float_FP32.*",), shards=4)),
]


@pytest.mark.parametrize("library,gtest", SUBSETS,
                         ids=[f"{lib}-{g.binary.rsplit('/', 1)[1]}" for lib, g in SUBSETS])
def test_rocm_library_suites_pass_on_softgpu(root, library, gtest):
    """The library's own tests, unmodified, on SoftGPU: every test that ran passed (skips are
    the suite's own, for features the profile's GPU lacks) and none crashed."""
    counts = gtest.run(timeout=900)
    assert counts.passed, counts.output[-3000:]
    assert not counts.failed, (counts.failed, counts.output[-3000:])


GTEST_OUTPUT = """\
[==========] Running 4 tests from 1 test suite.
[ RUN      ] quick/axpy.float/0
[       OK ] quick/axpy.float/0 (12 ms)
[ RUN      ] quick/axpy.float/1
unrelated line
[  FAILED  ] quick/axpy.float/1, where GetParam() = 1 (3 ms)
[ RUN      ] quick/axpy.float/2
[  SKIPPED ] quick/axpy.float/2 (0 ms)
[ RUN      ] quick/axpy.float/3
"""


def test_gtest_counts_take_a_test_without_verdict_as_failed():
    """What the suite runs report: a test that started and never ended failed, named; one
    that ended counts under its verdict; the summary's FAILED list is no second count."""
    crashed = rocm64.count(GTEST_OUTPUT)
    assert (crashed.passed, crashed.skipped) == (["quick/axpy.float/0"], ["quick/axpy.float/2"])
    assert crashed.failed == ["quick/axpy.float/1", "quick/axpy.float/3 (crashed)"]
    stopped = rocm64.count(GTEST_OUTPUT, ended=False)
    assert stopped.failed[-1] == "quick/axpy.float/3 (time limit)"
    finished = rocm64.count(GTEST_OUTPUT + "[       OK ] quick/axpy.float/3 (1 ms)\n"
                            "[  FAILED  ] 1 test, listed below:\n"
                            "[  FAILED  ] quick/axpy.float/1, where GetParam() = 1\n")
    assert finished.passed == ["quick/axpy.float/0", "quick/axpy.float/3"]
    assert finished.failed == ["quick/axpy.float/1"]
