"""ISA engine benchmark (not a test): a streaming kernel and a compute-bound kernel, timed
against the same work in C compiled with gcc -O2 in the same run.

    python3 benchmarks/engine_bench.py [--add-items 4194304] [--fma-items 65536] [--iters 1024]

Prints, per kernel, the engine's time, the C time, their ratio, and emulated
lane-instructions per second (active lanes x instructions the engine executed / time).
The engine's time is the dispatch alone (DispatchStats.seconds), min and median of --repeat
runs; buffer copies in and out of the arena are not counted, as C's are not either. The
figures go to benchmarks/results/engine_bench.json (benchmarks/results.py: date, machine,
commit) as well as to stdout.
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.results import write  # noqa: E402
from tests.support.kernels import compile_opencl  # noqa: E402
from tests.support.paths import LIBRARY  # noqa: E402

KERNELS = """
kernel void vadd(global const float *a, global const float *b, global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}

kernel void fma_loop(global float *x, int iters) {
  size_t i = get_global_id(0);
  float a = x[i], b = 1.0f - x[i];
  for (int k = 0; k < iters; k++) {
    a = a * 0.999f + 0.001f;
    b = b * 0.998f + a;
  }
  x[i] = a + b;
}
"""


def c_reference(add_items, fma_items, iters):
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine_bench_ref.c")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "engine_bench_ref")
        subprocess.run(["gcc", "-O2", "-o", exe, source], check=True)
        out = subprocess.run([exe, str(add_items), str(fma_items), str(iters)], check=True,
                             capture_output=True, text=True).stdout
    times = dict(line.split() for line in out.splitlines())
    return float(times["vadd"]), float(times["fma"])


def engine(session, code_object, add_items, fma_items, iters, repeat):
    """{kernel: [DispatchStats of each run]}."""
    from tests.support.launch import launch
    a = np.arange(add_items, dtype=np.float32)
    b = np.full(add_items, 2.0, np.float32)
    runs = {"vadd": [], "fma": []}
    for _ in range(repeat):
        (_, _, c), stats = launch(session, code_object, "vadd", [a, b, np.zeros_like(a)],
                                  add_items, 256, with_stats=True)
        assert np.array_equal(c, a + b), "vadd result differs from numpy"
        runs["vadd"].append(stats)
        x = (np.arange(fma_items) % 1000 * 0.001).astype(np.float32)
        (_,), stats = launch(session, code_object, "fma_loop", [x, np.int32(iters)], fma_items, 256,
                             with_stats=True)
        runs["fma"].append(stats)
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--add-items", type=int, default=1 << 22)
    parser.add_argument("--fma-items", type=int, default=1 << 16)
    parser.add_argument("--iters", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()

    library = ctypes.CDLL(LIBRARY)
    if library.hsa_init() != 0:
        sys.exit("hsa_init failed")
    from core import runtime
    session = runtime.require()
    code_object = compile_opencl(KERNELS, opt="-O2")

    c_add, c_fma = c_reference(options.add_items, options.fma_items, options.iters)
    runs = engine(session, code_object, options.add_items, options.fma_items, options.iters,
                  options.repeat)
    rows = (("vadd", f"vector add, {options.add_items} items", c_add),
            ("fma", f"FMA loop, {options.fma_items} items x {options.iters} iterations", c_fma))
    figures = {}
    for key, label, c_seconds in rows:
        stats = min(runs[key], key=lambda s: s.seconds)
        seconds, median = stats.seconds, statistics.median(s.seconds for s in runs[key])
        print(f"{label}:")
        print(f"  engine  {seconds:9.4f} s min, {median:.4f} s median   ({stats.waves} waves, "
              f"{stats.wave_instructions} wave-instructions, {stats.lane_instructions} lane-instructions, "
              f"{stats.batches} chunks)")
        print(f"  C -O2   {c_seconds:9.4f} s")
        print(f"  ratio   {seconds / c_seconds:9.1f} x slower")
        print(f"  rate    {stats.lane_instructions / seconds / 1e6:9.1f} M lane-instructions/s")
        figures[key] = {"label": label, "min_seconds": seconds, "median_seconds": median, "c_seconds": c_seconds,
                        "tier": stats.tier, "lane_instructions": stats.lane_instructions}
    print("results:", write("engine_bench", figures, sys.argv[1:]))
    library.hsa_shut_down()


if __name__ == "__main__":
    main()
