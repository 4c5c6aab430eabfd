"""Build and run benchmarks/aql_latency.c on SoftGPU (a benchmark, not a test).

usage: python3 benchmarks/run_aql_latency.py [SAMPLES]   (default 1000)
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from core.toolchain import compile_opencl  # noqa: E402
from softgpu_shim.location import library_dir, library_environment as env  # noqa: E402

LIBDIR = library_dir()
KERNELS = os.path.join(ROOT, "tests", "kernels")      # the kernel sources, not the test code


def main():
    exe = os.path.join(ROOT, "build", "aql_latency")
    subprocess.run(["gcc", "-std=gnu11", "-O2", "-o", exe, os.path.join(HERE, "aql_latency.c"),
                    "-L", LIBDIR, "-lhsa-runtime64", "-lpthread"], check=True)
    return subprocess.run([exe, compile_opencl(os.path.join(KERNELS, "aql_kernels.cl")), *sys.argv[1:]], env=env()).returncode


if __name__ == "__main__":
    sys.exit(main())
