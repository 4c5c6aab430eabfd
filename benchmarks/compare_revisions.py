"""Two commits' speed, measured alternately in one run (a benchmark, not a test): does a change
leave the engine and the packet path as fast as before?

    python3 benchmarks/compare_revisions.py BASE [HEAD] [--rounds 4] [--sgemm 512]
                                            [--samples 1000] [--results FILE]

Each commit is checked out into a temporary worktree and built there (build_shim.py), so
neither side's build, translation cache or results files touch this checkout. Then, round
after round, each side runs in turn (BASE first in even rounds, HEAD first in odd ones, so a
change in the machine's load falls on both): benchmarks/native_bench.py (vector add 2^22 on
1 and 2 threads, the FMA loop, SGEMM on 1 and 2 threads; each in fresh processes) and
benchmarks/run_aql_latency.py (an empty dispatch's latency and rate through a queue, with
SOFTGPU_ENGINE=native: the packet path and the native entry, whatever a side's tiering policy
would do with a kernel it has not translated yet). Every
figure is summarised over the rounds as min and median per side, with HEAD's median over
BASE's (for times, below 1 is faster; for rates, above 1). The figures go to
benchmarks/results/compare_revisions.json (benchmarks/results.py: date, machine, commit).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

# (name, where in native_bench's figures, which summary of a run, whether larger is better)
NATIVE = (("vadd_1_thread_seconds", ("vadd_1_thread_seconds",), "min", False),
          ("vadd_2_thread_seconds", ("vadd_2_thread_seconds",), "min", False),
          ("fma_lane_instructions_per_second", ("fma_lane_instructions_per_second",), "median", True),
          ("sgemm_1_thread_seconds", ("sgemm", "1_thread"), "min", False),
          ("sgemm_2_threads_seconds", ("sgemm", "2_threads"), "min", False))
LATENCY = (("empty_dispatch_latency_us", ("latency_us", "empty-kernel dispatch"), "median", False),
           ("empty_dispatches_per_second", ("per_second", "empty dispatches, 1 queue"), "median", True),
           ("signal_round_trip_us_baseline", ("latency_us", "C signal round trip (baseline)"), "median", False))


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], check=True, capture_output=True, text=True).stdout.strip()


def checkout(revision, folder):
    """A built worktree of `revision` in `folder`; returns the full commit id."""
    commit = git("rev-parse", "--verify", revision + "^{commit}")
    git("worktree", "add", "--detach", folder, commit)
    run(folder, ["build_shim.py"])
    return commit


def run(folder, command, env=None):
    """Runs `command` in `folder`; a failure ends the comparison with what it printed."""
    done = subprocess.run([sys.executable, *command], cwd=folder, capture_output=True, text=True, env=env)
    if done.returncode:
        sys.exit(f"{' '.join(command)} failed in {folder} (a commit without what this script needs?):\n"
                 f"{done.stderr[-2000:]}")


def run_native(folder, sgemm, results):
    run(folder, ["benchmarks/native_bench.py", "--repeat", "3", "--sgemm", str(sgemm),
                 "--parts", "vadd,fma,sgemm", "--results", results])
    with open(results) as f:
        figures = json.load(f)["figures"]
    figures["sgemm"] = figures.pop(f"sgemm_{sgemm}_seconds")
    return {name: _dig(figures, path)[kind] for name, path, kind, _ in NATIVE}


def run_latency(folder, samples):
    run(folder, ["benchmarks/run_aql_latency.py", str(samples)], env=dict(os.environ, SOFTGPU_ENGINE="native"))
    with open(os.path.join(folder, "benchmarks", "results", "aql_latency.json")) as f:
        figures = json.load(f)["figures"]
    return {name: _dig(figures, path)[kind] for name, path, kind, _ in LATENCY}


def _dig(figures, path):
    for key in path:
        figures = figures[key]
    return figures


def compare(samples_by_side, larger_better):
    """{figure: {side: {min, median}, head_over_base, better}} over the rounds."""
    out = {}
    for name, better_up in larger_better.items():
        sides = {side: {"min": min(v[name] for v in rounds), "median": statistics.median(v[name] for v in rounds)}
                 for side, rounds in samples_by_side.items()}
        ratio = sides["head"]["median"] / sides["base"]["median"]
        out[name] = {**sides, "head_over_base": ratio,
                     "head_better": ratio > 1 if better_up else ratio < 1}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the commit compared against (e.g. the previous main)")
    parser.add_argument("head", nargs="?", default="HEAD", help="the commit measured (default HEAD)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--sgemm", type=int, default=512)
    parser.add_argument("--samples", type=int, default=1000, help="aql_latency's samples per figure")
    parser.add_argument("--results", help="the results file (default: benchmarks/results/compare_revisions.json)")
    options = parser.parse_args()
    if options.rounds < 1:
        parser.error("--rounds must be at least 1")
    work = tempfile.mkdtemp(prefix="softgpu-compare-")
    folders = {"base": os.path.join(work, "base"), "head": os.path.join(work, "head")}
    try:
        commits = {side: checkout(getattr(options, side), folder) for side, folder in folders.items()}
        samples = {"base": [], "head": []}
        for round_ in range(options.rounds):
            order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
            for side in order:
                figures = run_native(folders[side], options.sgemm, os.path.join(work, f"{side}.json"))
                figures.update(run_latency(folders[side], options.samples))
                samples[side].append(figures)
                print(f"round {round_ + 1} {side}: " + ", ".join(f"{k} {v:.4g}" for k, v in figures.items()),
                      flush=True)
    finally:
        for folder in folders.values():
            if os.path.exists(folder):
                subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", folder], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    larger_better = {name: up for name, _, _, up in NATIVE + LATENCY}
    figures = {"commits": commits, "rounds": options.rounds, "sgemm": options.sgemm,
               "figures": compare(samples, larger_better), "samples": samples}
    for name, row in figures["figures"].items():
        print(f"{name:36s} base min {row['base']['min']:.4g} median {row['base']['median']:.4g}  "
              f"head min {row['head']['min']:.4g} median {row['head']['median']:.4g}  "
              f"head/base {row['head_over_base']:.3f}")
    from benchmarks.results import write
    print("results:", write("compare_revisions", figures, sys.argv[1:], options.results))


if __name__ == "__main__":
    main()
