"""The steady-state figures of issue 25 in one command (not a test): it runs the benchmarks
that measure them and gathers their figures into benchmarks/results/steady_state.json.

    python3 benchmarks/steady_state.py [--repeat 5] [--startup-repeat 20]

- vector add of 2^22 floats on 1 and 2 threads against the C loop, and SGEMM 1024^3 on one
  thread against C's naive loop: native_bench.py --parts vadd,sgemm --sgemm 1024;
- SGEMM 512^3, the speed-up of 2 threads over 1: native_bench.py --parts sgemm --sgemm 512;
- the first hsa_init of a fresh process against the embedded interpreter's start:
  run_startup.py (which writes its own benchmarks/results/startup.json too).
PoCL is not measured: this machine has no PoCL OpenCL platform (NOT_MEASURED says so in the
results file rather than leaving the columns out silently).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks.results import DIRECTORY, write  # noqa: E402

NOT_MEASURED = ["PoCL (vector add, SGEMM 1024^3 on one core, SGEMM 512^3 2-core speed-up): "
                "no PoCL OpenCL platform on this machine"]


def native_bench(tmp, *args):
    """The figures of one native_bench.py run with `args`."""
    results = os.path.join(tmp, f"native_bench{len(os.listdir(tmp))}.json")
    subprocess.run([sys.executable, os.path.join(HERE, "native_bench.py"), *args, "--results", results],
                   check=True)
    with open(results) as f:
        return json.load(f)["figures"]


def startup(repeat):
    subprocess.run([sys.executable, os.path.join(HERE, "run_startup.py"), str(repeat)], check=True)
    with open(os.path.join(DIRECTORY, "startup.json")) as f:
        return json.load(f)["figures"]


def speed_up(row):
    one, two = row["1_thread"], row["2_threads"]
    return {"min": one["min"] / two["min"], "median": one["median"] / two["median"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="native_bench.py --repeat")
    parser.add_argument("--startup-repeat", type=int, default=20, help="run_startup.py REPEATS")
    parser.add_argument("--results", help="the results file (default: benchmarks/results/steady_state.json)")
    options = parser.parse_args()
    repeat = ["--repeat", str(options.repeat)]
    with tempfile.TemporaryDirectory() as tmp:
        big = native_bench(tmp, "--parts", "vadd,sgemm", "--sgemm", "1024", *repeat)
        small = native_bench(tmp, "--parts", "sgemm", "--sgemm", "512", *repeat)
    start = startup(options.startup_repeat)
    sgemm_1024 = big["sgemm_1024_seconds"]["1_thread"]
    figures = {
        "vadd_2^22": {"c_seconds": big["c_vadd_seconds"], "1_thread_seconds": big["vadd_1_thread_seconds"],
                      "2_threads_seconds": big["vadd_2_thread_seconds"]},
        "sgemm_1024_1_thread": {"seconds": sgemm_1024, "c_naive_seconds": big["c_sgemm_seconds"],
                                "c_naive_to_engine_min": big["c_sgemm_seconds"] / sgemm_1024["min"]},
        "sgemm_512_2_threads": {"seconds": small["sgemm_512_seconds"],
                                "speed_up": speed_up(small["sgemm_512_seconds"])},
        "first_hsa_init_ms": start["first_hsa_init"],
        "embedded_python_start_ms": start["embedded_python_start"],
        "not_measured": NOT_MEASURED,
    }
    v1, v2, c = figures["vadd_2^22"]["1_thread_seconds"], figures["vadd_2^22"]["2_threads_seconds"], big["c_vadd_seconds"]
    s = figures["sgemm_512_2_threads"]["speed_up"]
    print("steady state (min / median):")
    print(f"  vector add 2^22: 1 thread {v1['min'] * 1e3:.2f} / {v1['median'] * 1e3:.2f} ms, 2 threads "
          f"{v2['min'] * 1e3:.2f} / {v2['median'] * 1e3:.2f} ms, C {c['min'] * 1e3:.2f} / {c['median'] * 1e3:.2f} ms"
          f" (1 thread / C, medians: {v1['ratio_to_c_median']:.2f}x)")
    print(f"  SGEMM 1024^3, 1 thread: {sgemm_1024['min']:.3f} / {sgemm_1024['median']:.3f} s; "
          f"C naive loop {big['c_sgemm_seconds']:.3f} s")
    print(f"  SGEMM 512^3, 2 threads over 1: {s['min']:.2f}x / {s['median']:.2f}x")
    print(f"  first hsa_init: {start['first_hsa_init']['min_ms']:.1f} / {start['first_hsa_init']['median_ms']:.1f} ms"
          f" (embedded Python start {start['embedded_python_start']['median_ms']:.1f} ms median)")
    for line in NOT_MEASURED:
        print(f"  not measured: {line}")
    print("results:", write("steady_state", figures, sys.argv[1:], options.results))


if __name__ == "__main__":
    main()
