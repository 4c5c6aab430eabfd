"""Clients nobody on the team wrote, used as their users use them, on SoftGPU: ROCm libraries
with their own precompiled gfx1030 kernels (rocSPARSE, rocRAND) and their portable layers
(hipSPARSE, hipRAND), header-only device algorithms (rocPRIM), run-time compilation (hipRTC
through comgr).

Each program under tests/clients/ checks every result against a host reference and prints
"<NAME> OK"; here SoftGPU must also have recorded no internal error and no unsupported
export. ci/setup.sh installs the Debian packages these need (librocsparse-dev,
librocrand-dev, libhiprand-dev, libhipsparse-dev, librocprim-dev). Sizes are small:
every program runs in seconds on the interpreter."""
import os

from tests.support import hipprog
from tests.support.paths import ROOT

CLIENTS = os.path.join(ROOT, "tests", "clients")
HIP_TESTS = os.path.join(ROOT, "tests", "hip")      # hip_check.h, which client_check.h builds on


def client(name, *libraries, flags=()):
    return hipprog.program(os.path.join(CLIENTS, name), flags=flags, libraries=libraries, includes=(HIP_TESTS,))


def dispatched(recorded):
    return {e["kernel"] for e in recorded if e["event"] == "dispatch"}


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
    hipprog.check_ok(client("hip_wrappers.cpp", "-lhiprand", "-lrocrand", "-lhipsparse"), tmp_path=tmp_path,
                     marker="HIP WRAPPERS OK")


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
