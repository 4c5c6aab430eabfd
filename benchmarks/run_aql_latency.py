"""Build and run benchmarks/aql_latency.c on SoftGPU (a benchmark, not a test): what one
dispatch or barrier costs through an AQL queue (latency: min, median, p99 microseconds) and
how many a queue takes per second. The figures go to benchmarks/results/aql_latency.json
(benchmarks/results.py: date, machine, commit) as well as to stdout.

usage: python3 benchmarks/run_aql_latency.py [SAMPLES]   (default 1000)
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from benchmarks.results import write  # noqa: E402
from core.toolchain import compile_opencl  # noqa: E402
from core.location import library_dir, library_environment as env  # noqa: E402

LIBDIR = library_dir()
KERNELS = os.path.join(ROOT, "tests", "kernels")      # the kernel sources, not the test code

LATENCY = re.compile(r"^(?P<name>.+?)\s+(?P<min>[\d.]+)\s+(?P<median>[\d.]+)\s+(?P<p99>[\d.]+)(\s+(?P<ratio>[\d.]+)x)?$")
RATE = re.compile(r"^(?P<name>.+?)\s+(?P<best>[\d.]+)\s+(?P<median>[\d.]*)\s+(packets|round trips)/s$")


def figures(output):
    """{"latency_us": {row: {min, median, p99[, ratio]}}, "per_second": {row: {best, median}}}
    of aql_latency's printed table."""
    out = {"latency_us": {}, "per_second": {}}
    for line in output.splitlines():
        rate = RATE.match(line.strip())
        if rate:
            out["per_second"][rate["name"].strip()] = {
                "best": float(rate["best"]), "median": float(rate["median"]) if rate["median"] else None}
            continue
        latency = LATENCY.match(line.strip())
        if latency:
            row = {k: float(latency[k]) for k in ("min", "median", "p99")}
            if latency["ratio"]:
                row["ratio_to_baseline"] = float(latency["ratio"])
            out["latency_us"][latency["name"].strip()] = row
    return out


def main():
    exe = os.path.join(ROOT, "build", "aql_latency")
    subprocess.run(["gcc", "-std=gnu11", "-O2", "-o", exe, os.path.join(HERE, "aql_latency.c"),
                    "-L", LIBDIR, "-lhsa-runtime64", "-lpthread"], check=True)
    done = subprocess.run([exe, compile_opencl(os.path.join(KERNELS, "aql_kernels.cl")), *sys.argv[1:]], env=env(),
                          stdout=subprocess.PIPE, text=True)
    sys.stdout.write(done.stdout)
    if done.returncode == 0:
        print("results:", write("aql_latency", figures(done.stdout), sys.argv[1:]))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
