"""The ROCm libraries' own gtest suites at their quick level, on SoftGPU inside the ROCm 6.4 root.

    python3 ci/rocm64_suites.py [--out FILE] [--timeout SECONDS] [LIBRARY ...]

Makes the root first (ci/rocm64_root.sh; cheap when it is ready), then runs each library's
suite under `softgpu run` and prints, per library, passed/failed/skipped and minutes, and every
failed test by name (a test that crashed or hit the time limit counts as failed). Writes the
same as JSON to FILE (default build/rocm64-suites.json), and each gtest run's output beside it
(FILE without .json, plus .logs/). Exits 1 when any test failed.

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
from ci import rocm64  # noqa: E402
from ci.rocm64 import Counts, Gtest  # noqa: E402

_ROCRAND = "librocrand1-tests"
# rocRAND's MT19937 test binary is left out of the sample: creating one MT19937 generator runs its
# jump-ahead kernel, 1.77e12 lane instructions (8,192 workgroups of 128), 3.6 minutes on SoftGPU's
# native tier here (under a load of 12 on 2 cores), and the binary creates dozens.
_ROCRAND_TOO_SLOW = ("test_rocrand_mt19937_prng",)
# Per library: the gtest runs making its sample of the quick level, a reproducible one: gtest's
# shard 0 of N (every N-th test of the filtered list). The sizes in the comments are the filtered
# lists' in sid's 6.4.3 packages.
SAMPLES = {
    # rocSPARSE's quick level (110,023 tests), every 2,000th.
    "rocSPARSE": (Gtest("librocsparse1-tests/rocsparse-test", ("--gtest_filter=*quick*",), shards=2000),),
    # hipSPARSE has no levels (42,611 tests): every 1,000th.
    "hipSPARSE": (Gtest("libhipsparse1-tests/hipsparse-test", (), shards=1000),),
    # rocBLAS's quick level, every 500th (it parses its YAML data for over a minute per start).
    "rocBLAS": (Gtest("librocblas4-tests/rocblas-test", ("--gtest_filter=*quick*",), shards=500),),
    # rocSOLVER's check-in level (49,412 tests), every 2,000th.
    "rocSOLVER": (Gtest("librocsolver0-tests/rocsolver-test", ("--gtest_filter=*checkin*",), shards=2000),),
    # rocFFT's smoke test level (757 tests), every 50th (each test compiles its kernels at run time).
    "rocFFT": (Gtest("librocfft0-tests/rocfft-test", ("--smoketest",), shards=50),),
    # MIOpen's smoke level (4,655 tests), every 200th.
    "MIOpen": (Gtest("libmiopen1-tests/miopen_gtest", ("--gtest_filter=Smoke*",), shards=200),),
    # hipRAND's four test binaries, every 5th test of each.
    "hipRAND": tuple(Gtest(f"libhiprand1-tests/{b}", shards=5) for b in
                     ("test_hiprand_api", "test_hiprand_cpp_wrapper", "test_hiprand_kernel",
                      "test_hiprand_linkage")),
    # rocRAND's test binaries but MT19937's, every 10th test of each (rocrand_binaries()).
    "rocRAND": None,
}


def rocrand_binaries():
    folder = rocm64.host_path(f"{rocm64.TESTS}/{_ROCRAND}")
    return tuple(Gtest(f"{_ROCRAND}/{name}", shards=10) for name in sorted(os.listdir(folder))
                 if name.startswith("test_") and name not in _ROCRAND_TOO_SLOW)


def run_library(name, timeout, logs):
    total = Counts()
    for gtest in SAMPLES[name] or rocrand_binaries():
        counts = gtest.run(timeout=timeout, log=os.path.join(logs, f"{name}.{os.path.basename(gtest.binary)}.log"))
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
    parser.add_argument("--timeout", type=float, default=3600, help="per gtest binary, seconds")
    args = parser.parse_args()
    unknown = set(args.libraries) - set(SAMPLES)
    if unknown:
        parser.error(f"unknown libraries: {', '.join(sorted(unknown))}")
    subprocess.run(["bash", rocm64.SCRIPT], check=True)
    results = {}
    started = time.time()
    # Each gtest run's whole output, written as it runs.
    logs = os.path.splitext(os.path.abspath(args.out))[0] + ".logs"
    os.makedirs(logs, exist_ok=True)
    for name in args.libraries or SAMPLES:
        print(f"{name}:", flush=True)
        counts = run_library(name, args.timeout, logs)
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
