"""Cold-start benchmark (not a test): what a program that runs many small kernels once pays for
translation, as ratios measured in the same run, min and median of --repeat runs.

    python3 benchmarks/cold_start.py [--repeat 3] [--quick] [--columns interp,auto] [--results FILE]

1. The suite run: a fixed, named list of kernel suite builds (tests/kernels/suite.py, gfx1030
   wave32: SMALL, ~60 -O2 builds of 20-400 instructions, and BIG, a few of 2,000-5,000) run one
   after the other in one process, timed from the first load to the last result (hsa_init and
   the inputs excluded), with SOFTGPU_ENGINE=native and an empty translation cache (a fresh
   XDG_CACHE_HOME per repeat: "cold"), native again on the cache that run filled ("warm"),
   the interpreter alone ("interp"), and SOFTGPU_ENGINE=auto on an empty cache when
   core.settings accepts that value ("auto"). The columns take turns within each repeat, so a
   busy moment of the machine weighs on all alike. --columns measures some of them (interp
   always among them: the ratios are to it; warm brings cold, whose cache it runs on; without
   cold, the first dispatch is not measured).
2. The first dispatch: vector add of 2^22 floats (engine_bench's kernel) in a new process
   whose translation is in the disk cache, against a later dispatch in that process, and
   against a first dispatch with an empty cache; each is the wall time of the launch (buffers
   in and out included, the same for all).
The first hsa_init is benchmarks/run_startup.py's. The figures go to
benchmarks/results/cold_start.json (benchmarks/results.py: date, machine, commit).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

# (case name, optimisation level) of the kernel suite, built for gfx1030, wave32, v4.
SMALL = tuple((name, "-O2") for name in """
atomic64 atomic_minmax_bits big_partial_reduce byte_short_stores cmpxchg_add convert_64bit
convert_int_narrow counter_slots crc32_table divergent_switch double_convert double_special
dpp_permlane float4_ops float_denormals float_denormals_ftz float_div_sqrt_cr float_minmax
float_misc float_pow float_sin_cos fminmax_specials generic_pointers half_arith half_round_cmp
half_sqrt_div hip_block_sum hip_dynamic_shared hip_saxpy hip_template_double int2_ops
int_bitfield int_bitops int_mad24_hadd int_shifts local_arg_reverse local_atomics
local_double_transpose lookback_scan loops_break_continue mad_family ndrange_1d_offset
ndrange_3d noinline_calls program_globals round_down round_toward_zero rounding_signs
scalar_uniform stream_triad struct_fields subgroup_collectives uchar4_ops unaligned_vectors
vload3_vstore3 wg_reduce image_atomic_forms image_read_r_float image_sample_1d_array_nearest
image_sample_3d_linear""".split())
BIG = (("float_special_values", "-O0"), ("private_sort", "-O2"), ("ndrange_2d", "-O0"),
       ("double_transcendental", "-O0"))
QUICK = (("int_shifts", "-O2"), ("stream_triad", "-O2"), ("float4_ops", "-O2"))

ENGINES = {"cold": "native", "warm": "native", "interp": "interp", "auto": "auto"}


def columns():
    """The columns this SoftGPU can measure: "auto" only where SOFTGPU_ENGINE accepts it."""
    from core import settings
    try:
        settings.get("SOFTGPU_ENGINE", {"SOFTGPU_ENGINE": "auto"})
    except settings.InvalidSetting:
        return ["cold", "warm", "interp"]
    return ["cold", "warm", "interp", "auto"]


def _cases(kernels):
    from tests.kernels.suite import CASES
    by_name = {case.name: case for case in CASES}
    missing = [name for name, _ in kernels if name not in by_name]
    if missing:
        sys.exit(f"not in the kernel suite: {', '.join(missing)}")
    return [(by_name[name], opt) for name, opt in kernels]


def _session():
    import ctypes
    from core.location import library_path
    library = ctypes.CDLL(library_path())
    if library.hsa_init() != 0:
        sys.exit("hsa_init failed")
    from core import runtime
    return runtime.require()


def suite_worker(kernels):
    """Runs `kernels` (with their inputs made beforehand); prints {"seconds": ...}."""
    from core.harness.launch import launch
    session = _session()
    runs = []
    for case, opt in _cases(kernels):
        args, _ = case.inputs(32)
        runs.append((case, case.compile(opt, 32), args))
    start = time.perf_counter()
    for case, path, args in runs:
        launch(session, path, case.kernel, args, case.grid, case.workgroup,
               group_segment_size=case.group_segment, global_offset=case.global_offset)
    print(json.dumps({"seconds": time.perf_counter() - start}))


def dispatch_worker(items, repeat):
    """Vector add of `items` floats `repeat` times; prints each launch's wall time."""
    from benchmarks.engine_bench import KERNELS
    from core.toolchain import compile_opencl
    from core.harness.launch import launch
    session = _session()
    path = compile_opencl(KERNELS, opt="-O2")
    a, b = np.arange(items, dtype=np.float32), np.full(items, 2.0, np.float32)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        _, _, c = launch(session, path, "vadd", [a, b, np.zeros_like(a)], items, 256)
        times.append(time.perf_counter() - start)
        assert np.array_equal(c, a + b), "vadd result differs from numpy"
    print(json.dumps({"seconds": times}))


def worker(mode, engine, cache, *args):
    """Runs `mode` of this script in a fresh process; its JSON answer."""
    env = dict(os.environ, SOFTGPU_ENGINE=engine, XDG_CACHE_HOME=cache)
    done = subprocess.run([sys.executable, __file__, "--worker", mode, *map(str, args)], env=env,
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{mode} worker ({engine}) failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(values):
    return {"min": min(values), "median": statistics.median(values), "runs": values}


def ratio(times, over, under):
    return {"min": min(times[over]) / min(times[under]),
            "median": statistics.median(times[over]) / statistics.median(times[under])}


def suite_figures(kernels, repeat, measured):
    names = ",".join(f"{name}{opt}" for name, opt in kernels)
    times = {column: [] for column in measured}
    for _ in range(repeat):
        # warm runs on the cache cold filled; interp and auto each start from an empty one of
        # their own, as a fresh CI machine does (a cache another column filled would spare
        # them parsing the code objects).
        with tempfile.TemporaryDirectory(prefix="softgpu-cold-") as cache:
            for column in measured:
                with tempfile.TemporaryDirectory(prefix=f"softgpu-cold-{column}-") as own:
                    where = cache if column in ("cold", "warm") else own
                    times[column].append(worker("suite", ENGINES[column], where, names)["seconds"])
    ratios = {f"{column}_to_interp": ratio(times, column, "interp") for column in measured if column != "interp"}
    if {"cold", "warm"} <= set(measured):
        ratios["cold_to_warm"] = ratio(times, "cold", "warm")
    return {"seconds": {column: summary(values) for column, values in times.items()}, "ratios": ratios}


def dispatch_figures(items, repeat):
    """First dispatch in a new process (cache warm, and empty) against the later ones."""
    later_runs = max(3, repeat)
    first_cached, first_empty, later = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="softgpu-cold-") as cache:
            first_empty.append(worker("dispatch", "native", cache, items, later_runs)["seconds"][0])
            seconds = worker("dispatch", "native", cache, items, later_runs)["seconds"]
        first_cached.append(seconds[0])
        later.append(statistics.median(seconds[1:]))
    times = {"first_cached": first_cached, "first_empty_cache": first_empty, "later": later}
    return {"items": items, "seconds": {k: summary(v) for k, v in times.items()},
            "ratios": {"first_cached_to_later": ratio(times, "first_cached", "later"),
                       "first_empty_cache_to_later": ratio(times, "first_empty_cache", "later")}}


def report(suite, dispatch, kernels):
    print(f"suite run, {len(kernels)} kernels in one process, seconds (min / median), ratio to interp:")
    for column, row in suite["seconds"].items():
        to_interp = suite["ratios"].get(f"{column}_to_interp")
        tail = f"   {to_interp['min']:5.2f}x / {to_interp['median']:5.2f}x" if to_interp else ""
        print(f"  {column:7s} {row['min']:8.3f} / {row['median']:8.3f}{tail}")
    cw = suite["ratios"].get("cold_to_warm")
    if cw:
        print(f"  cold / warm: {cw['min']:.2f}x / {cw['median']:.2f}x")
    if dispatch is None:
        return
    print(f"vector add of {dispatch['items']} items, launch wall time in ms (min / median):")
    for name, row in dispatch["seconds"].items():
        print(f"  {name:18s} {row['min'] * 1e3:8.2f} / {row['median'] * 1e3:8.2f}")
    for name, row in dispatch["ratios"].items():
        print(f"  {name}: {row['min']:.2f}x / {row['median']:.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: three small kernels, one repeat, a 2^16-item vector add")
    parser.add_argument("--columns", help="comma-separated columns to measure (default: every one "
                        "this SoftGPU can; interp is always measured)")
    parser.add_argument("--results", help="the results file (default: benchmarks/results/cold_start.json)")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        mode, *args = options.worker
        if mode == "suite":
            suite_worker([(name[:name.rindex("-")], name[name.rindex("-"):]) for name in args[0].split(",")])
        else:
            dispatch_worker(int(args[0]), int(args[1]))
        return
    kernels = QUICK if options.quick else SMALL + BIG
    repeat = 1 if options.quick else options.repeat
    items = 1 << 16 if options.quick else 1 << 22
    measured = columns()
    if options.columns:
        asked = set(options.columns.split(",")) | {"interp"}
        if "warm" in asked:
            asked.add("cold")           # warm runs on the cache cold filled
        unknown = asked - set(measured)
        if unknown:
            parser.error(f"--columns: not measurable here: {', '.join(sorted(unknown))}")
        measured = [column for column in measured if column in asked]
    # Code objects are built (clang) here, once, so no column pays for them.
    for case, opt in _cases(kernels):
        case.compile(opt, 32)
    from benchmarks.engine_bench import KERNELS
    from core.toolchain import compile_opencl
    compile_opencl(KERNELS, opt="-O2")
    suite = suite_figures(kernels, repeat, measured)
    dispatch = dispatch_figures(items, repeat) if "cold" in measured else None
    report(suite, dispatch, kernels)
    figures = {"kernels": [f"{name}{opt}" for name, opt in kernels], "repeat": repeat,
               "columns": measured, "suite": suite, "first_dispatch": dispatch}
    from benchmarks.results import write
    print("results:", write("cold_start", figures, sys.argv[1:], options.results))


if __name__ == "__main__":
    main()
