"""Build benchmarks/fastpath_bench.c against the official headers, link it to SoftGPU
(build/lib, or SOFTGPU_LIBDIR) as a client links to ROCr, and run it.

Usage: python3 benchmarks/run_fastpath.py [iterations]
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBDIR = os.environ.get("SOFTGPU_LIBDIR") or os.path.join(ROOT, "build", "lib")


def main(argv):
    source = os.path.join(ROOT, "benchmarks", "fastpath_bench.c")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "fastpath_bench")
        subprocess.run(["gcc", "-std=gnu11", "-O2", "-Wall", "-o", exe, source, "-L", LIBDIR,
                        "-lhsa-runtime64"], check=True)
        env = dict(os.environ, LD_LIBRARY_PATH=LIBDIR)
        return subprocess.run([exe, *argv], env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
