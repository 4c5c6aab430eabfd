"""Clients nobody on the team wrote, used as their users use them, on SoftGPU: ROCm libraries
with their own precompiled gfx1030 kernels (rocSPARSE, rocRAND) and their portable layers
(hipSPARSE, hipRAND), header-only device algorithms (rocPRIM), run-time compilation (hipRTC
through comgr), OpenMP target offloading (clang-15's libomptarget), and rocminfo and
rocm_agent_enumerator under `softgpu run`.

Each program under tests/clients/ checks every result against a host reference and prints
"<NAME> OK"; here SoftGPU must also have recorded no internal error and no unsupported
export. ci/setup.sh installs the Debian packages these need (librocsparse-dev,
librocrand-dev, libhiprand-dev, libhipsparse-dev, librocprim-dev, libomp-15-dev, rocminfo).
Sizes are small: every program runs in seconds on the interpreter."""
import os
import subprocess
import sys

import pytest

from tests.support import cprog, hipprog
from tests.support.paths import BITCODE, ROOT

CLIENTS = os.path.join(ROOT, "tests", "clients")
HIP_TESTS = os.path.join(ROOT, "tests", "hip")      # hip_check.h, which client_check.h builds on


def client(name, *libraries, flags=()):
    return hipprog.program(os.path.join(CLIENTS, name), flags=flags, libraries=libraries,
                           includes=(HIP_TESTS,))


def dispatched(recorded):
    return {e["kernel"] for e in recorded if e["event"] == "dispatch"}


def softgpu_run(*args, **environ):
    env = dict(os.environ, **environ)
    return subprocess.run([sys.executable, "-m", "core.cli", "run", "--", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_rocsparse_csrmv_solves_csrmm_bsrmv_ilu0_gtsv(tmp_path):
    """rocSPARSE's own kernels: csrmv (plain and adaptive), csrsv/csrsm with analysis (their
    waves wait on each other's rows), csrmm, csr2bsr + bsrmv, csrilu0, gtsv."""
    recorded = hipprog.check_ok(client("rocsparse_solvers.cpp", "-lrocsparse"), tmp_path=tmp_path,
                                marker="ROCSPARSE SOLVERS OK")
    kernels = dispatched(recorded)
    assert any("csrsv" in k for k in kernels) and any("csrilu0" in k for k in kernels)


def test_rocsparse_generic_api_for_every_value_type(tmp_path):
    """SpMV in five algorithms (and transposed), SpSV, SpMM in six, SpGEMM, SDDMM and the
    conversions and vector ops for float, double, complex float and complex double."""
    hipprog.check_ok(client("rocsparse_generic.cpp", "-lrocsparse"), tmp_path=tmp_path,
                     marker="ROCSPARSE GENERIC OK")


def test_rocrand_host_and_device_apis(tmp_path):
    """Philox, MRG32k3a and Sobol32 exactly as the engines run on the host; MTGP32 and
    Poisson by their moments; XORWOW, Philox and MRG32k3a device APIs in a user kernel."""
    recorded = hipprog.check_ok(client("rocrand_generators.cpp", "-lrocrand"), tmp_path=tmp_path,
                                marker="ROCRAND GENERATORS OK")
    assert any(k.startswith("_ZN12rocrand_host") for k in dispatched(recorded))


def test_hiprand_and_hipsparse(tmp_path):
    exe = client("hip_wrappers.cpp", "-lhiprand", "-lrocrand", "-lhipsparse")
    hipprog.check_ok(exe, tmp_path=tmp_path, marker="HIP WRAPPERS OK")


def test_hiprtc_compiles_loads_and_launches(tmp_path):
    """Source strings compiled at run time (options, name expressions, shared memory),
    loaded as modules and launched; a broken source reports its error."""
    recorded = hipprog.check_ok(client("hiprtc_kernels.cpp"), tmp_path=tmp_path, marker="HIPRTC OK")
    assert {"saxpy", "block_sum"} <= dispatched(recorded)


def test_rocprim_device_algorithms(tmp_path):
    """Single-pass scans whose workgroups wait on earlier ones, radix and merge sorts,
    select, run-length encode, histogram, segmented reduce."""
    hipprog.check_ok(client("rocprim_algorithms.cpp", flags=("-std=c++17",)), tmp_path=tmp_path,
                     marker="ROCPRIM OK")


def test_hip_device_runtime_features(tmp_path):
    """Device heap, virtual calls, recursion, private arrays, cross-lane intrinsics, system
    atomics on host memory, half2 math; clock64() and wall_clock64() tick at the rates HIP
    and HSA report (clockRate 2575 MHz, 100 MHz), so the intervals they time agree."""
    hipprog.check_ok(client("hip_device_runtime.cpp"), tmp_path=tmp_path,
                     marker="HIP DEVICE RUNTIME OK")


OPENMP = ["clang-15", "-fopenmp", "-fopenmp-targets=amdgcn-amd-amdhsa",
          "-Xopenmp-target=amdgcn-amd-amdhsa", "-march=gfx1030", f"--rocm-device-lib-path={BITCODE}",
          "-O2"]


def test_openmp_target_offloading(tmp_path):
    """LLVM's OpenMP offloading plugin dlopens the runtime (RTLD_LOCAL) and reads the code
    object through its hsa_code_object_t; SPMD and generic-mode regions, reductions, target
    data, declare target, omp_target_alloc and device atomics run on the GPU."""
    exe = hipprog.build(os.path.join(CLIENTS, "openmp_offload.c"), OPENMP)
    recorded = hipprog.check_ok(exe, tmp_path=tmp_path, marker="OPENMP OFFLOAD OK")
    assert len([k for k in dispatched(recorded) if k.startswith("__omp_offloading_")]) == 6


def test_rocminfo_lists_the_profiles_agents():
    """rocminfo checks for the amdgpu module and /dev/kfd before it calls HSA; under
    `softgpu run` both are there, and it lists what the profile describes."""
    proc = softgpu_run("rocminfo")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "ROCk module is loaded" in out and out.rstrip().endswith("*** Done ***")
    lines = [" ".join(line.split()) for line in out.splitlines()]
    for expected in ("Name: gfx1030", "Marketing Name: AMD Radeon RX 6800 XT", "Device Type: GPU",
                     "Compute Unit: 72", "Wavefront Size: 32(0x20)", "Max Clock Freq. (MHz): 2575",
                     "Chip ID: 29631(0x73bf)", "Name: amdgcn-amd-amdhsa--gfx1030",
                     "Device Type: CPU",
                     "Segment: GLOBAL; FLAGS: KERNARG, FINE GRAINED", "Segment: GROUP"):
        assert expected in lines, expected


def test_driver_probes_see_a_driver_only_under_softgpu_run():
    """Every open entry point (fortified ones too) opens an absent /dev/kfd under
    `softgpu run` and only there; other paths keep the C library's errno."""
    exe = cprog.build("driver_probes.c", extra_flags=("-D_FORTIFY_SOURCE=2",))
    proc = softgpu_run(exe, "run")
    assert proc.returncode == 0 and "PASSED" in proc.stdout, proc.stdout + proc.stderr
    plain = subprocess.run([exe, "plain"], env=cprog.env(), capture_output=True, text=True,
                           timeout=60)
    assert plain.returncode == 0 and "PASSED" in plain.stdout, plain.stdout + plain.stderr


def test_rocm_agent_enumerator_names_the_profiles_gpu(tmp_path):
    """hipcc and HIP's CMake files ask rocm_agent_enumerator which GPUs to build for; without
    a driver it would read /sys/class/kfd and fail. A target list of the user's wins."""
    proc = softgpu_run("rocm_agent_enumerator")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["gfx000", "gfx1030"]
    mine = tmp_path / "target.lst"
    mine.write_text("gfx90a\n")
    proc = softgpu_run("rocm_agent_enumerator", ROCM_TARGET_LST=str(mine))
    assert proc.stdout.split() == ["gfx000", "gfx90a"], proc.stderr


@pytest.mark.parametrize("threads", [1, 2])
def test_rocprim_lookback_scan_states_across_threads(tmp_path, threads):
    """Decoupled look-back with each scan state rocPRIM has (a prefix packed with its flag in
    one 64-bit atomic; values apart from their flags, ordered by volatile accesses and device
    fences), scan and reduce by key among them: workgroups on different host threads read
    prefixes others publish, so a translated access or fence that is not ordered or not
    single-copy atomic across threads gives wrong sums."""
    hipprog.check_ok(client("rocprim_lookback.cpp", flags=("-std=c++17",)), 200000, tmp_path=tmp_path,
                     marker="LOOKBACK OK", SOFTGPU_THREADS=threads, SOFTGPU_ENGINE="native")
