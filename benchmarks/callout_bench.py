"""Callout benchmark (not a test): an image kernel whose image instruction runs as a callout
on the native tier, against the same kernel on the interpreter, min and median of repeats.

    python3 benchmarks/callout_bench.py [--repeat 7] [--items 65536] [--threads 1]

images.cl's sample_2d (one image_sample_lz a work-item, bilinear, wave32) over `items`
coordinates in workgroups of 64, dispatch only, warm (translated and decoded once before).
Each wave hands its one image instruction to the interpreter (one callout a wave), so the
figure per callout is the native time over the waves. The figures go to
benchmarks/results/callout_bench.json (benchmarks/results.py: date, machine, commit) as well
as to stdout.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.results import write  # noqa: E402


def worker(repeat, items):
    import ctypes
    import numpy as np
    from tests.support.paths import LIBRARY
    assert ctypes.CDLL(LIBRARY).hsa_init() == 0
    from core import runtime
    from softgpu_shim.hsa_abi import (HsaExtImageChannelOrder as Order, HsaExtImageChannelType as Type,
                                      HsaExtImageGeometry as Geometry, HsaExtSamplerAddressingMode as Address,
                                      HsaExtSamplerCoordinateMode as Coordinates,
                                      HsaExtSamplerFilterMode as Filter)
    from tests.support.differential import engine
    from tests.support.images import Image, Sampler
    from tests.support.kernels import compile_opencl
    from tests.support.launch import launch
    session = runtime.require()
    co = compile_opencl("images.cl", opt="-O2")
    rng = np.random.default_rng(1)
    pixels = rng.uniform(-2, 2, (1, 64, 64, 4)).astype(np.float32)
    args = [Image(Geometry.GEOMETRY_2D, Order.RGBA, Type.FLOAT, pixels),
            Sampler(Coordinates.NORMALIZED, Filter.LINEAR, Address.REPEAT),
            rng.uniform(0, 1, (items, 2)).astype(np.float32), np.zeros((items, 4), np.float32)]
    for tier in ("native", "interp"):
        with engine(tier):
            launch(session, co, "sample_2d", args, items, 64)          # warm
            times, waves = [], 0
            for _ in range(repeat):
                out, stats = launch(session, co, "sample_2d", args, items, 64, with_stats=True)
                times.append(stats.seconds)
                waves = stats.waves
        print(tier, stats.tier, waves, " ".join(f"{t:.6f}" for t in times), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--items", type=int, default=1 << 16)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.repeat, args.items)
        return
    env = dict(os.environ, SOFTGPU_THREADS=str(args.threads))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--worker", "--repeat", str(args.repeat),
                           "--items", str(args.items)], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True)
    figures, recorded = {}, {"threads": args.threads, "items": args.items, "repeat": args.repeat}
    for line in done.stdout.splitlines():
        tier, ran_on, waves, *times = line.split()
        times = [float(t) for t in times]
        figures[tier] = (min(times), statistics.median(times))
        recorded[tier] = {"ran_on": ran_on, "waves": int(waves), "min_seconds": min(times),
                          "median_seconds": statistics.median(times)}
        print(f"{tier:7} (ran on {ran_on}): {int(waves)} waves, min {1e3 * min(times):.2f} ms, "
              f"median {1e3 * statistics.median(times):.2f} ms, "
              f"{1e6 * statistics.median(times) / int(waves):.1f} us a wave")
    native, interp = figures["native"], figures["interp"]
    print(f"native / interpreter: {native[0] / interp[0]:.2f}x min, {native[1] / interp[1]:.2f}x median "
          f"({args.threads} thread(s), {time.perf_counter() - start:.0f} s)")
    print("results:", write("callout_bench", recorded, sys.argv[1:]))


if __name__ == "__main__":
    main()
