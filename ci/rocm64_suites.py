"""The ROCm libraries' own gtest suites at their quick level, on SoftGPU inside the ROCm 6.4 root.

    python3 ci/rocm64_suites.py [--out FILE] [--timeout SECONDS] [LIBRARY ...]

Makes the root first (ci/rocm64_root.sh; cheap when it is ready), then runs each library's
suite under `softgpu run` and prints, per library, passed/failed/skipped and minutes, and every
failed test by name (a test that crashed or hit the time limit counts as failed). Writes the
same as JSON to FILE (default build/rocm64-suites.json). Exits 1 when any test failed.

A suite too large for a 2-core machine runs as a stated, reproducible sample: gtest's shard 0
of N (every N-th test of the filtered list, in gtest's order), as SAMPLES says.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.support import rocm64  # noqa: E402
from tests.support.rocm64 import Counts, Gtest  # noqa: E402

_ROCRAND = "librocrand1-tests"
# Per library: the gtest runs making its quick level (or its sample). The counts in the comments
# are the filtered lists' sizes in the 6.4.3 packages.
SAMPLES = {
    # Every test binary rocRAND ships, whole.
    "rocRAND": None,
    # Every test binary hipRAND ships, whole.
    "hipRAND": tuple(Gtest(f"libhiprand1-tests/{b}") for b in
                     ("test_hiprand_api", "test_hiprand_cpp_wrapper", "test_hiprand_kernel",
                      "test_hiprand_linkage")),
    # rocFFT's smoke test level (757 tests), every 4th.
    "rocFFT": (Gtest("librocfft0-tests/rocfft-test", ("--smoketest",), shards=4),),
    # rocSPARSE's quick level (110,023 tests), every 500th.
    "rocSPARSE": (Gtest("librocsparse1-tests/rocsparse-test", ("--gtest_filter=*quick*",), shards=500),),
    # hipSPARSE has no levels (42,611 tests): every 500th.
    "hipSPARSE": (Gtest("libhipsparse1-tests/hipsparse-test", (), shards=500),),
    # rocBLAS's quick level, every 200th (it parses its YAML data for over a minute per start).
    "rocBLAS": (Gtest("librocblas4-tests/rocblas-test", ("--gtest_filter=*quick*",), shards=200),),
    # rocSOLVER's check-in level (49,412 tests), every 500th.
    "rocSOLVER": (Gtest("librocsolver0-tests/rocsolver-test", ("--gtest_filter=*checkin*",), shards=500),),
    # MIOpen's smoke level (4,655 tests), every 50th.
    "MIOpen": (Gtest("libmiopen1-tests/miopen_gtest", ("--gtest_filter=Smoke*",), shards=50),),
}


def rocrand_binaries():
    folder = rocm64.host_path(f"{rocm64.TESTS}/{_ROCRAND}")
    return tuple(Gtest(f"{_ROCRAND}/{name}") for name in sorted(os.listdir(folder))
                 if name.startswith("test_"))


def run_library(name, timeout):
    total = Counts()
    for gtest in SAMPLES[name] or rocrand_binaries():
        counts = gtest.run(timeout=timeout)
        print(f"  {gtest.binary} {' '.join(gtest.args)}{f' (shard 0/{gtest.shards})' if gtest.shards > 1 else ''}: "
              f"{len(counts.passed)} passed, {len(counts.failed)} failed, {len(counts.skipped)} skipped, "
              f"{counts.seconds / 60:.1f} min", flush=True)
        if not (counts.passed or counts.failed or counts.skipped):
            # Nothing ran: the binary did not start (or the filter matched nothing); say so.
            counts.failed.append(f"{gtest.binary}: ran no test: {counts.output.strip()[-400:]}")
        total.add(counts)
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("libraries", nargs="*", help=f"any of {', '.join(SAMPLES)} (default: all)")
    parser.add_argument("--out", default=os.path.join(rocm64.ROOT, "build", "rocm64-suites.json"))
    parser.add_argument("--timeout", type=float, default=1800, help="per gtest binary, seconds")
    args = parser.parse_args()
    unknown = set(args.libraries) - set(SAMPLES)
    if unknown:
        parser.error(f"unknown libraries: {', '.join(sorted(unknown))}")
    subprocess.run(["bash", rocm64.SCRIPT], check=True)
    results = {}
    started = time.time()
    for name in args.libraries or SAMPLES:
        print(f"{name}:", flush=True)
        counts = run_library(name, args.timeout)
        results[name] = {"passed": len(counts.passed), "failed": len(counts.failed),
                         "skipped": len(counts.skipped), "minutes": round(counts.seconds / 60, 1),
                         "failures": counts.failed}
        print(f"{name}: {len(counts.passed)} passed, {len(counts.failed)} failed, "
              f"{len(counts.skipped)} skipped, {counts.seconds / 60:.1f} min", flush=True)
        for failure in counts.failed:
            print(f"  FAILED {failure}")
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump({"samples": {k: [g.__dict__ for g in (v or rocrand_binaries())]
                                   for k, v in SAMPLES.items() if k in results},
                       "results": results}, f, indent=1)
    print(f"{'library':10} {'passed':>7} {'failed':>7} {'skipped':>8} {'minutes':>8}")
    for name, r in results.items():
        print(f"{name:10} {r['passed']:7} {r['failed']:7} {r['skipped']:8} {r['minutes']:8}")
    print(f"all: {(time.time() - started) / 60:.1f} min; results in {args.out}")
    return 1 if any(r["failed"] for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
