"""Device printf latency (a benchmark, not a test): benchmarks/printf_latency.cpp built with
hipcc and run on SoftGPU; from a kernel's start (a flag it raises in pinned memory) to its
printf line on stdout, against the same line printed by host code in the same run.

usage: python3 benchmarks/run_printf_latency.py [ROUNDS]   (default 20)

The figures go to benchmarks/results/printf_latency.json (benchmarks/results.py: date,
machine, commit) as well as to stdout.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks.results import write  # noqa: E402
from softgpu_shim.location import library_environment as env  # noqa: E402


def main():
    rounds = sys.argv[1] if len(sys.argv) > 1 else "20"
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "printf_latency")
        subprocess.run(["hipcc", "--offload-arch=gfx1030", "-O2", "-o", exe, os.path.join(HERE, "printf_latency.cpp")],
                       check=True, env=dict(os.environ, HIP_PLATFORM="amd"))
        out = subprocess.run([exe, rounds], env=env(), capture_output=True, text=True, timeout=1200)
    if out.returncode != 0:
        sys.exit(out.stdout + out.stderr)
    times = {line.split()[0]: [float(v) for v in line.split()[1:]] for line in out.stdout.splitlines()}
    device, host = times["device"], times["host"]
    print(f"{'microseconds':44s} {'min':>10s} {'median':>10s}  ratio")
    print(f"{'host printf, call to line on stdout':44s} {host[0]:10.1f} {host[1]:10.1f}")
    print(f"{'device printf, kernel start to line (<= 1 ms)':44s} {device[0]:10.1f} {device[1]:10.1f}"
          f"  {device[1] / host[1]:6.0f}x")
    figures = {name: {"min_us": values[0], "median_us": values[1]}
               for name, values in (("host", host), ("device", device))}
    print("results:", write("printf_latency", figures, sys.argv[1:]))


if __name__ == "__main__":
    main()
