"""Build benchmarks/fastpath_bench.c against the official headers, link it to SoftGPU
(the library directory core.location finds) as a client links to ROCr and to its baseline library
(benchmarks/fastpath_baseline.c, a shared object of its own), and run it; its report (one line
per fast path) also goes to benchmarks/results/fastpath.json.

Usage: python3 benchmarks/run_fastpath.py [iterations]
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import results  # noqa: E402
from core.location import library_dir  # noqa: E402

LIBDIR = library_dir()


def main(argv):
    source = os.path.join(ROOT, "benchmarks", "fastpath_bench.c")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "fastpath_bench")
        subprocess.run(["gcc", "-std=gnu11", "-O2", "-shared", "-fPIC", "-o", os.path.join(tmp, "libbaseline.so"),
                        os.path.join(ROOT, "benchmarks", "fastpath_baseline.c")], check=True)
        subprocess.run(["gcc", "-std=gnu11", "-O2", "-Wall", "-o", exe, source, "-L", LIBDIR, "-L", tmp,
                        "-lhsa-runtime64", "-lbaseline"], check=True)
        env = dict(os.environ, LD_LIBRARY_PATH=LIBDIR + ":" + tmp)
        done = subprocess.run([exe, *argv], env=env, stdout=subprocess.PIPE, text=True)
        sys.stdout.write(done.stdout)
        if done.returncode == 0:
            print(results.write("fastpath", {"report": done.stdout.splitlines()},
                                command=" ".join(["run_fastpath.py", *argv])))
        return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
