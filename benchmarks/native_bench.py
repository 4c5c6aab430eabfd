"""Native engine tier benchmark (not a test): the figures of issue 9, as ratios against gcc -O2
C measured in the same run, min and median of repeats.

    python3 benchmarks/native_bench.py [--repeat 5] [--sgemm 1024] [--largest 8] [--target gfx1030]
                                       [--parts vadd,fma,sgemm,gather,mgemm,translate] [--results FILE]

Each measurement runs in a fresh process (SOFTGPU_THREADS is fixed when the thread pool
starts): vector add of 2^22 floats (dispatch only, warm translation), the FMA loop's
lane-instructions per second on one core, a 16x16 LDS-tiled SGEMM on one and on two threads,
a gather and a scatter of 2^22 floats through a permutation on one thread (against the same C
loops: the engine's cost of lanes that are not contiguous), peak RSS of the vector add beyond the process's size before its buffers, and translation time
(empty cache) of the --largest suite kernels and of a ~1,000-instruction one, in ms per 1,000
instructions, split into decoding, IR building, IR printing, IR parsing, optimisation, code
generation and loading (each timed around the call that does it). --target runs the kernels
built for another GPU on its board's profile (TARGET_PROFILES; clang-15 builds them for gfx1030,
gfx90a and gfx1100, the ROCm 6.4 root's clang-21 for the others), and `mgemm` times a Triton
tl.dot GEMM on fp16 tiles there, on the target's MFMA or WMMA (benchmarks/matrix_gemm.py),
against the C loop's SGEMM of the same size. The figures go to
benchmarks/results/native_bench.json (benchmarks/results.py: date, machine, commit).
"""
import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.engine_bench import KERNELS as ENGINE_KERNELS  # noqa: E402
from core.toolchain import compile_opencl  # noqa: E402

KERNELS = ENGINE_KERNELS + """
#define TILE 16
kernel void sgemm(global const float *A, global const float *B, global float *C, int n) {
  local float As[TILE][TILE], Bs[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; k++)
      acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * n + col] = acc;
}

kernel void gather(global const float *in, global const int *index, global float *out) {
  size_t i = get_global_id(0);
  out[i] = in[index[i]];
}

kernel void scatter(global const float *in, global const int *index, global float *out) {
  size_t i = get_global_id(0);
  out[index[i]] = in[i];
}
"""

C_REFERENCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
  long n = atol(argv[1]); int m = atoi(argv[2]), reps = atoi(argv[3]);
  float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
  for (long i = 0; i < n; i++) { a[i] = i; b[i] = 2; }
  double sum = 0;
  for (int r = 0; r < reps; r++) {
    double t = now();
    for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
    printf("vadd %.9f\n", now() - t); sum += c[r];
  }
  float *A = malloc((long)m * m * 4), *B = malloc((long)m * m * 4), *C = malloc((long)m * m * 4);
  for (long i = 0; i < (long)m * m; i++) { A[i] = (i % 7) * 0.25f; B[i] = (i % 5) * 0.5f; }
  double t = now();
  for (int i = 0; i < m; i++) for (int j = 0; j < m; j++) {
    float acc = 0; for (int k = 0; k < m; k++) acc += A[(long)i * m + k] * B[(long)k * m + j];
    C[(long)i * m + j] = acc; }
  printf("sgemm %.9f\n", now() - t);
  /* The permutation the benchmark's kernels use (permutation() in native_bench.py). */
  int *index = malloc(n * 4);
  for (long i = 0; i < n; i++) index[i] = (int)((i & ~255L) | ((i * 73) & 255));
  for (int r = 0; r < reps; r++) {
    t = now();
    for (long i = 0; i < n; i++) c[i] = a[index[i]];
    printf("gather %.9f\n", now() - t); sum += c[r];
    t = now();
    for (long i = 0; i < n; i++) c[index[i]] = a[i];
    printf("scatter %.9f\n", now() - t); sum += c[r];
  }
  printf("checksum %f\n", sum + C[m + 1]);
  return 0;
}
"""


def _session():
    import ctypes
    from core.location import library_path
    library = ctypes.CDLL(library_path())
    assert library.hsa_init() == 0
    from core import runtime
    return runtime.require()


def _peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# The board each target's kernels run on.
TARGET_PROFILES = {"gfx1030": "gfx1030", "gfx90a": "mi210", "gfx1100": "rx7900xtx",
                   "gfx942": "mi300x", "gfx950": "mi355x", "gfx1200": "rx9060xt", "gfx1201": "rx9070xt"}
CLANG15_TARGETS = ("gfx1030", "gfx90a", "gfx1100")


def build(target):
    """The benchmark kernels' code object for `target`."""
    if target in CLANG15_TARGETS:
        return compile_opencl(KERNELS, opt="-O2", mcpu=target, wave64=target == "gfx90a")
    from ci.rocm64 import clang21
    folder = tempfile.mkdtemp(prefix="softgpu-bench-")
    source = os.path.join(folder, "kernels.cl")
    with open(source, "w") as f:
        f.write(KERNELS)
    return clang21(source, target, "-O2", "-mcode-object-version=5")


def matrix_gemm(session, target, repeat, size):
    """Seconds of each of `repeat` runs of benchmarks/matrix_gemm.py's GEMM of size^3."""
    from benchmarks import matrix_gemm
    from core.harness.launch import launch
    from core.loader.elf import CodeObject
    path = os.path.join(tempfile.mkdtemp(prefix="softgpu-bench-"), "mgemm.hsaco")
    name, shared = matrix_gemm.compile_for(target, path)
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-4, 4, (size, size)).astype(np.float16) for _ in range(2))
    lanes = 4 * (32 if target.startswith("gfx1") else 64)
    blocks = size // matrix_gemm.TILE
    with open(path, "rb") as f:
        kernel, = CodeObject(f.read()).metadata["amdhsa.kernels"]
    explicit = [x for x in kernel[".args"] if not x[".value_kind"].startswith("hidden_")]
    args = [a.ravel(), b.ravel(), np.zeros(size * size, np.float32), np.int32(size)]
    args += [np.zeros(1, np.uint8)] * (len(explicit) - len(args))    # Triton's scratch pointers
    times = []
    for _ in range(repeat + 1):        # the first: the translation's, not timed
        (_, _, c, *_), stats = launch(session, path, name, args, (blocks * lanes, blocks), (lanes, 1),
                                      group_segment_size=shared, with_stats=True)
        times.append(stats.seconds)
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.array_equal(c.reshape(size, size), want.astype(np.float32))
    return times[1:]


def permutation(n):
    """Each run of 256 items shuffled within itself (73 is odd: a bijection of 0..255): no two
    neighbouring lanes touch neighbouring items, yet the data stays in cache, so the gather and
    scatter figures time the engine's per-lane work rather than the memory's. The C reference
    computes the same."""
    i = np.arange(n, dtype=np.int64)
    return ((i & ~255) | ((i * 73) & 255)).astype(np.int32)


def worker(what, repeat, size, largest, target):
    """One measurement in this process; prints a JSON object."""
    from core.harness.launch import launch
    session = _session()
    out = {}
    if what == "mgemm":
        print(json.dumps({"times": matrix_gemm(session, target, repeat, size)}))
        return
    path = build(target)
    if what == "vadd":
        n = 1 << 22
        a, b = np.arange(n, dtype=np.float32), np.full(n, 2.0, np.float32)
        zeros = np.zeros_like(a)
        launch(session, path, "vadd", [a[:256], b[:256], zeros[:256]], 256, 256)
        before = _rss()
        times = []
        for _ in range(repeat):
            (_, _, c), stats = launch(session, path, "vadd", [a, b, zeros], n, 256, with_stats=True)
            assert np.array_equal(c, a + b)
            times.append(stats.seconds)
            del c
        # launch() reads the 3 buffers back into fresh arrays after the dispatch (while the
        # arena still holds them): that copy is the harness's, not the engine's.
        out = {"times": times, "rss_beyond": _peak_rss() - before - 3 * a.nbytes,
               "buffers": 3 * a.nbytes}
    elif what == "fma":
        n, iters = 1 << 16, 1024
        x = (np.arange(n) % 1000 * 0.001).astype(np.float32)
        launch(session, path, "fma_loop", [x[:256], np.int32(4)], 256, 256)
        rates = []
        for _ in range(repeat):
            _, stats = launch(session, path, "fma_loop", [x, np.int32(iters)], n, 256, with_stats=True)
            rates.append(stats.lane_instructions / stats.seconds)
        out = {"rates": rates}
    elif what == "sgemm":
        A = ((np.arange(size * size) % 7) * 0.25).astype(np.float32)
        B = ((np.arange(size * size) % 5) * 0.5).astype(np.float32)
        launch(session, path, "sgemm", [A[:256], B[:256], np.zeros(256, np.float32), np.int32(16)], (16, 16), (16, 16))
        times = []
        for _ in range(repeat):
            (_, _, C), stats = launch(session, path, "sgemm", [A, B, np.zeros_like(A), np.int32(size)],
                                      (size, size), (16, 16), with_stats=True)
            times.append(stats.seconds)
        want = A.reshape(size, size).astype(np.float64) @ B.reshape(size, size).astype(np.float64)
        assert np.allclose(C.reshape(size, size), want, rtol=1e-4)
        out = {"times": times}
    elif what == "gather":
        n = 1 << 22
        data, index = np.arange(n, dtype=np.float32), permutation(n)
        out = {}
        for kernel in ("gather", "scatter"):
            launch(session, path, kernel, [data[:256], index[:256], np.zeros(256, np.float32)], 256, 256)
            times = []
            for _ in range(repeat):
                (_, _, got), stats = launch(session, path, kernel, [data, index, np.zeros_like(data)], n, 256,
                                            with_stats=True)
                want = data[index] if kernel == "gather" else np.zeros_like(data)
                if kernel == "scatter":
                    want[index] = data
                assert np.array_equal(got, want), f"{kernel} result differs from numpy"
                times.append(stats.seconds)
            out[kernel] = times
    elif what == "translate":
        out = translation_times(session, largest)
    print(json.dumps(out))


# The translation's phases, each timed around the llvmlite call that does it, so the
# compiler's own sequence of steps is what runs (nothing here repeats its pipeline).
PHASES = ("decode", "ir_build", "ir_print", "ir_parse", "optimise", "codegen", "load")


@contextlib.contextmanager
def llvm_phases(into):
    """Adds the seconds spent in llvmlite's IR parser, pass pipelines and code generator to
    into["ir_parse"], into["optimise"], into["codegen"] while it is active."""
    import llvmlite.binding as llvm
    from llvmlite.binding.newpassmanagers import ModulePassManager

    def timed(phase, call):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                into[phase] += time.perf_counter() - start
        return wrapper
    patched = ((llvm, "parse_assembly", "ir_parse"), (ModulePassManager, "run", "optimise"),
               (llvm.TargetMachine, "emit_object", "codegen"))
    originals = [getattr(owner, name) for owner, name, _ in patched]
    for (owner, name, phase), original in zip(patched, originals):
        setattr(owner, name, timed(phase, original))
    try:
        yield into
    finally:
        for (owner, name, _), original in zip(patched, originals):
            setattr(owner, name, original)


def translate_in_phases(session, kernel):
    """Translate `kernel` (empty cache) through the compiler's own compile_module, and the
    seconds of each of PHASES: decode (the reachable code), IR building and printing (the
    translator), IR parsing, optimisation and code generation (LLVM), load (the rest:
    the object into an engine, the cache files)."""
    from core.isa.native import compiler
    from core.isa.native.dispatch import _key_parts, program_of
    from core.isa.layout import layout
    from core.isa.native.translate import translate
    desc = layout(kernel)
    seconds = dict.fromkeys(PHASES, 0.0)
    start = time.perf_counter()
    program = program_of(session, kernel, desc)
    seconds["decode"] = time.perf_counter() - start
    key = compiler.cache_key(_key_parts(program, desc))

    def build():
        begin = time.perf_counter()
        module = translate(program, desc.lanes, desc.nvgpr, compiler.function_name(key)).module
        printed = time.perf_counter()
        text = str(module)
        seconds["ir_build"], seconds["ir_print"] = printed - begin, time.perf_counter() - printed
        return text, {}
    with llvm_phases(seconds):
        _, _, total, cached = compiler.compile_module(key, build, len(program.instructions))
    assert not cached, "translation timed from a warm cache"
    seconds["load"] = total - sum(seconds[p] for p in PHASES if p != "decode")
    return len(program.instructions), seconds


def suite_sizes(session):
    """[(instructions, case, opt)] of every distinct gfx1030 wave32 v4 build of the kernel
    suite's kernels that the native tier can translate, smallest first."""
    from core.isa.layout import layout
    from core.isa.native.dispatch import program_of
    from core.isa.native.program import Untranslatable
    from tests.kernels.suite import CASES, variants
    from core.harness.launch import fresh_kernel
    sizes, seen = [], set()
    for case in CASES:
        for opt in [o for o, wave, version in variants(case, "gfx1030") if (wave, version) == (32, 4)]:
            # Cases that run the same kernel with other inputs share its translation.
            build = (case.source, case.kernel, case.extra, opt)
            if build in seen:
                continue
            seen.add(build)
            kernel, executable = fresh_kernel(session, case.compile(opt, 32), case.kernel)
            try:
                sizes.append((len(program_of(session, kernel, layout(kernel)).instructions), case, opt))
            except Untranslatable:
                pass
            session.loader.destroy_executable(executable)
    sizes.sort(key=lambda s: s[0])
    return sizes


def translation_times(session, largest):
    """Translation (empty cache) of the suite's `largest` biggest kernels and of one of
    ~1,000 instructions: per kernel its size, seconds per phase, total and ms per 1,000
    instructions; overall the same over the largest ones."""
    from core.harness.launch import fresh_kernel
    sizes = suite_sizes(session)
    # The smallest first, unreported: what the first translation of a process pays once
    # (imports, the target machine) is no kernel's.
    chosen = [("warm-up", sizes[0])] + [("largest", s) for s in reversed(sizes[-largest:])]
    chosen.append(("about_1000", min(sizes, key=lambda s: abs(s[0] - 1000))))
    kernels, overall = [], dict.fromkeys(PHASES, 0.0)
    instructions = 0
    for label, (_, case, opt) in chosen:
        kernel, executable = fresh_kernel(session, case.compile(opt, 32), case.kernel)
        count, seconds = translate_in_phases(session, kernel)
        session.loader.destroy_executable(executable)
        if label == "warm-up":
            continue
        total = sum(seconds.values())
        kernels.append({"kernel": f"{case.name}{opt}", "group": label, "instructions": count,
                        "seconds": total, "phases_seconds": seconds,
                        "ms_per_1000_instructions": total * 1e6 / count})
        if label == "largest":
            instructions += count
            for phase in PHASES:
                overall[phase] += seconds[phase]
    total = sum(overall.values())
    return {"kernels": kernels,
            "largest_overall": {"instructions": instructions, "seconds": total,
                                "ms_per_1000_instructions": total * 1e6 / instructions,
                                "phases_ms_per_1000_instructions":
                                    {p: overall[p] * 1e6 / instructions for p in PHASES}}}


PARTS = ("vadd", "fma", "sgemm", "gather", "mgemm", "translate")


def summary(values):
    return min(values), statistics.median(values)


def run(what, threads, repeat, size, cache, largest=0, target="gfx1030"):
    # The native tier itself: under `auto` a first dispatch could run on the interpreter.
    env = dict(os.environ, SOFTGPU_THREADS=str(threads), XDG_CACHE_HOME=cache, SOFTGPU_ENGINE="native",
               SOFTGPU_PROFILE=TARGET_PROFILES[target])
    done = subprocess.run([sys.executable, __file__, "--worker", what, "--repeat", str(repeat),
                           "--sgemm", str(size), "--largest", str(largest), "--target", target],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def c_reference(size, repeat):
    with tempfile.TemporaryDirectory() as tmp:
        source, exe = os.path.join(tmp, "ref.c"), os.path.join(tmp, "ref")
        with open(source, "w") as f:
            f.write(C_REFERENCE)
        subprocess.run(["gcc", "-O2", "-o", exe, source], check=True)
        lines = subprocess.run([exe, str(1 << 22), str(size), str(repeat)], check=True,
                               capture_output=True, text=True).stdout.split("\n")
    def times(name):
        return [float(line.split()[1]) for line in lines if line.startswith(name + " ")]
    return times("vadd"), times("sgemm")[0], {kernel: times(kernel) for kernel in ("gather", "scatter")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sgemm", type=int, default=1024)
    parser.add_argument("--largest", type=int, default=8,
                        help="translation time of the suite's N largest kernels (default 8)")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"comma-separated subset of {','.join(PARTS)} (default: all)")
    parser.add_argument("--target", default="gfx1030", choices=sorted(TARGET_PROFILES),
                        help="the GPU whose code runs, on its board's profile (default gfx1030)")
    parser.add_argument("--results", help="the results file (default: benchmarks/results/native_bench.json)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        worker(options.worker, options.repeat, options.sgemm, options.largest, options.target)
        return
    parts = options.parts.split(",")
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)} (known: {', '.join(PARTS)})")
    if "mgemm" in parts and options.target in ("gfx1030", "gfx1200"):
        parser.error(f"{options.target} has no matrix-unit GEMM here (gfx1030 has no matrix units; "
                     "Triton does not compile for gfx1200)")
    if "translate" in parts and options.target != "gfx1030":
        parser.error("translation times are measured over the gfx1030 kernel suite (--target gfx1030)")
    cache = tempfile.mkdtemp(prefix="softgpu-bench-cache-")
    figures = {"target": options.target, "profile": TARGET_PROFILES[options.target]}
    if {"vadd", "sgemm", "gather", "mgemm"} & set(parts):
        c_vadd, c_sgemm, c_moves = c_reference(options.sgemm, options.repeat)
        cv = summary(c_vadd)
        figures.update({"c_vadd_seconds": {"min": cv[0], "median": cv[1]}, "c_sgemm_seconds": c_sgemm})
    for threads in (1, 2) if "vadd" in parts else ():
        r = run("vadd", threads, options.repeat, options.sgemm, cache, target=options.target)
        v = summary(r["times"])
        figures[f"vadd_{threads}_thread_seconds"] = {"min": v[0], "median": v[1],
                                                      "ratio_to_c_median": v[1] / cv[1]}
        print(f"vector add 2^22, {threads} thread(s): min {v[0] * 1e3:.2f} ms median {v[1] * 1e3:.2f} ms; "
              f"C min {cv[0] * 1e3:.2f} ms median {cv[1] * 1e3:.2f} ms; ratio min {v[0] / cv[0]:.2f}x "
              f"median {v[1] / cv[1]:.2f}x")
        if threads == 1:
            figures["vadd_rss_beyond_buffers"] = r["rss_beyond"] / r["buffers"]
            print(f"  peak RSS beyond the process before the dispatches (less the harness's read-back"
                  f" copies): {r['rss_beyond'] / 2**20:.1f} MiB = {r['rss_beyond'] / r['buffers']:.2f}x"
                  f" the 3 buffers ({r['buffers'] / 2**20:.0f} MiB, in the arena)")
    if "fma" in parts:
        fma(options, cache, figures)
    if "sgemm" in parts:
        sgemm(options, cache, figures, c_sgemm)
    if "gather" in parts:
        gather(options, cache, figures, c_moves)
    if "mgemm" in parts:
        mgemm(options, cache, figures, c_sgemm)
    if "translate" in parts:
        translation(options, figures)
    from benchmarks.results import write
    print("results:", write("native_bench", figures, sys.argv[1:], options.results))


def fma(options, cache, figures):
    f = summary(run("fma", 1, options.repeat, options.sgemm, cache, target=options.target)["rates"])
    figures["fma_lane_instructions_per_second"] = {"min": f[0], "median": f[1]}
    print(f"FMA loop, 1 thread: min {f[0] / 1e9:.2f} G median {f[1] / 1e9:.2f} G lane-instructions/s")


def sgemm(options, cache, figures, c_sgemm):
    repeat = max(1, options.repeat // 2)
    one = summary(run("sgemm", 1, repeat, options.sgemm, cache, target=options.target)["times"])
    two = summary(run("sgemm", 2, repeat, options.sgemm, cache, target=options.target)["times"])
    figures[f"sgemm_{options.sgemm}_seconds"] = {"1_thread": {"min": one[0], "median": one[1]},
                                                 "2_threads": {"min": two[0], "median": two[1]}}
    print(f"SGEMM {options.sgemm}^3 16x16 LDS-tiled: 1 thread min {one[0]:.3f} s median {one[1]:.3f} s; "
          f"2 threads min {two[0]:.3f} s median {two[1]:.3f} s; speed-up (min) {one[0] / two[0]:.2f}x; "
          f"C (naive triple loop) {c_sgemm:.3f} s")


def gather(options, cache, figures, c_moves):
    r = run("gather", 1, options.repeat, options.sgemm, cache, target=options.target)
    for kernel in ("gather", "scatter"):
        v, c = summary(r[kernel]), summary(c_moves[kernel])
        figures[f"{kernel}_1_thread_seconds"] = {"min": v[0], "median": v[1], "c_min": c[0], "c_median": c[1],
                                                 "ratio_to_c_median": v[1] / c[1]}
        print(f"{kernel} 2^22 (lanes permuted within runs of 256), 1 thread: min {v[0] * 1e3:.2f} ms "
              f"median {v[1] * 1e3:.2f} ms; C min {c[0] * 1e3:.2f} ms median {c[1] * 1e3:.2f} ms; "
              f"ratio min {v[0] / c[0]:.2f}x median {v[1] / c[1]:.2f}x")


def mgemm(options, cache, figures, c_sgemm):
    repeat = max(1, options.repeat // 2)
    m = summary(run("mgemm", 2, repeat, options.sgemm, cache, target=options.target)["times"])
    figures[f"mgemm_{options.sgemm}_seconds"] = {"2_threads": {"min": m[0], "median": m[1]},
                                                 "ratio_to_c_sgemm_median": m[1] / c_sgemm}
    print(f"matrix-unit GEMM {options.sgemm}^3 (Triton tl.dot, fp16 tiles, fp32 sums), 2 threads: "
          f"min {m[0]:.3f} s median {m[1]:.3f} s; C SGEMM (naive triple loop, fp32) {c_sgemm:.3f} s; "
          f"ratio (median) {m[1] / c_sgemm:.2f}x")


def translation(options, figures):
    t = run("translate", 1, 1, options.sgemm, tempfile.mkdtemp(prefix="softgpu-bench-cold-"), options.largest)
    print(f"translation, empty cache, ms per 1,000 instructions ({', '.join(PHASES)}):")
    for row in t["kernels"]:
        phases = " ".join(f"{row['phases_seconds'][p] * 1e6 / row['instructions']:6.0f}" for p in PHASES)
        print(f"  {row['kernel']:32s} {row['instructions']:5d} instr {row['seconds']:6.2f} s "
              f"{row['ms_per_1000_instructions']:6.0f} ms/1000 = {phases}")
    overall = t["largest_overall"]
    phases = " ".join(f"{overall['phases_ms_per_1000_instructions'][p]:6.0f}" for p in PHASES)
    print(f"  {options.largest} largest together: {overall['instructions']} instr {overall['seconds']:.2f} s "
          f"{overall['ms_per_1000_instructions']:.0f} ms/1000 = {phases}")
    figures["translation"] = t


if __name__ == "__main__":
    main()
