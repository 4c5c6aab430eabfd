"""ISA engine benchmark (not a test): a streaming kernel and a compute-bound kernel, timed
against the same work in C compiled with gcc -O2 in the same run.

    python3 benchmarks/engine_bench.py [--add-items 4194304] [--fma-items 65536] [--iters 1024]

Prints, per kernel, the engine's time, the C time, their ratio, and emulated
lane-instructions per second (active lanes x instructions the engine executed / time).
The engine's time is the dispatch alone (DispatchStats.seconds), best of --repeat runs;
buffer copies in and out of the arena are not counted, as C's are not either.
"""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

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
    from tests.support.launch import launch
    a = np.arange(add_items, dtype=np.float32)
    b = np.full(add_items, 2.0, np.float32)
    best = {}
    for _ in range(repeat):
        (_, _, c), stats = launch(session, code_object, "vadd", [a, b, np.zeros_like(a)],
                                  add_items, 256, with_stats=True)
        assert np.array_equal(c, a + b), "vadd result differs from numpy"
        best["vadd"] = min(best.get("vadd", (stats.seconds, stats)), (stats.seconds, stats),
                           key=lambda pair: pair[0])
        x = (np.arange(fma_items) % 1000 * 0.001).astype(np.float32)
        (_,), stats = launch(session, code_object, "fma_loop", [x, np.int32(iters)], fma_items, 256,
                             with_stats=True)
        best["fma"] = min(best.get("fma", (stats.seconds, stats)), (stats.seconds, stats),
                          key=lambda pair: pair[0])
    return best


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
    best = engine(session, code_object, options.add_items, options.fma_items, options.iters,
                  options.repeat)
    rows = (("vadd", f"vector add, {options.add_items} items", c_add),
            ("fma", f"FMA loop, {options.fma_items} items x {options.iters} iterations", c_fma))
    for key, label, c_seconds in rows:
        seconds, stats = best[key]
        print(f"{label}:")
        print(f"  engine  {seconds:9.4f} s   ({stats.waves} waves, {stats.wave_instructions} wave-"
              f"instructions, {stats.lane_instructions} lane-instructions, {stats.batches} chunks)")
        print(f"  C -O2   {c_seconds:9.4f} s")
        print(f"  ratio   {seconds / c_seconds:9.1f} x slower")
        print(f"  rate    {stats.lane_instructions / seconds / 1e6:9.1f} M lane-instructions/s")
    library.hsa_shut_down()


if __name__ == "__main__":
    main()
