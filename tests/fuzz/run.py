"""Build the fuzz harnesses, generate their seed corpora from real objects, run them.

usage: python3 tests/fuzz/run.py [--seconds N] [--only NAME ...] [--workdir DIR]

Each harness (api_sequence, code_object, aql_packets, kernarg_grid) is built with
clang-15 -fsanitize=fuzzer against build/lib/libhsa-runtime64.so.1 and run for N
seconds. A crash, hang or broken invariant fails the run and prints the reproducer
(also kept under WORKDIR/NAME/). CI runs this with about a minute per harness; run it
longer by hand with --seconds 600.
"""
import argparse
import base64
import glob
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from tests.support.cprog import env as library_env  # noqa: E402
from tests.support.kernels import compile_opencl  # noqa: E402
from tests.support.paths import LIBDIR  # noqa: E402

HARNESSES = ("api_sequence", "code_object", "aql_packets", "kernarg_grid")
# Longest one input may take before libFuzzer calls it a hang: every wait in the harnesses
# is bounded well below this; a dispatch of a hostile grid may take seconds in the engine.
PER_INPUT_TIMEOUT_S = {"api_sequence": 30, "code_object": 30, "aql_packets": 60, "kernarg_grid": 120}


def build(name, workdir):
    exe = os.path.join(workdir, name)
    subprocess.run(["clang-15", "-g", "-O1", "-fsanitize=fuzzer", "-I", HERE, "-o", exe,
                    os.path.join(HERE, name + ".c"), "-L", LIBDIR, "-lhsa-runtime64"], check=True)
    return exe


def seeds(name, directory):
    """Seed inputs made from real objects, never committed blobs."""
    os.makedirs(directory, exist_ok=True)
    if name == "code_object":
        sources = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl")))[:6]
        for i, source in enumerate(sources):
            for version in (4, 5):
                path = compile_opencl(source, opt="-O2", code_object=version)
                with open(path, "rb") as f:
                    write_seed(directory, f"{i}-v{version}", f.read())
        # Patch mode (see code_object.c): the base object whole, with one field changed, cut short.
        write_seed(directory, "patch-none", b"P")
        write_seed(directory, "patch-header", b"P" + bytes([1]) + (0x12).to_bytes(8, "little") + bytes(8))
        write_seed(directory, "patch-truncate", b"P" + bytes([0xFF]) + (4000).to_bytes(8, "little"))
    elif name == "api_sequence":
        for op in range(20):
            write_seed(directory, f"op{op}", bytes([op, 0, 1, 2, 3, 4, 5, 6, 7, op, 0xA5, 1, 0]) * 3)
    elif name == "aql_packets":
        for kind in range(4):
            write_seed(directory, f"packet{kind}", bytes([kind, 0]) * 4)
    else:
        for kernel in range(3):
            write_seed(directory, f"kernel{kernel}", bytes([kernel, 1, 4] + [0] * 8 + [4, 2, 1, 32, 1, 1]))


def write_seed(directory, name, data):
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def fuzz_environment(cache=None):
    """`cache`: the disk cache's folder (XDG_CACHE_HOME) instead of the user's: every mutated
    code object that parses leaves an entry there (core/loader/parse_cache.py)."""
    # An internal error (a Python exception the ABI edge had to catch) is a bug: it aborts.
    return library_env(SOFTGPU_FUZZ_CODE_OBJECT=compile_opencl("aql_kernels.cl", opt="-O2"),
                       SOFTGPU_QUIET=1, SOFTGPU_QUEUE_ERRORS="continue", SOFTGPU_INTERNAL_ERRORS="abort",
                       **({"XDG_CACHE_HOME": cache} if cache else {}))


def run(name, seconds, workdir):
    directory = os.path.join(workdir, name)
    corpus, seed_dir = os.path.join(directory, "corpus"), os.path.join(directory, "seeds")
    os.makedirs(corpus, exist_ok=True)
    seeds(name, seed_dir)
    exe = build(name, directory)
    timeout = PER_INPUT_TIMEOUT_S[name]
    log_path = os.path.join(directory, "log")
    # The log goes to a file, so a long run can be watched (tail -f WORKDIR/NAME/log).
    started = time.monotonic()
    with open(log_path, "w") as log_file:
        proc = subprocess.run([exe, f"-max_total_time={seconds}", f"-timeout={timeout}",
                               "-rss_limit_mb=6144", "-print_final_stats=1", f"-artifact_prefix={directory}/",
                               corpus, seed_dir], env=fuzz_environment(os.path.join(directory, "cache")), stdout=log_file,
                              stderr=subprocess.STDOUT, timeout=seconds + 4 * timeout)
    with open(log_path, errors="replace") as f:
        log = f.read()
    stats = dict(re.findall(r"stat::(\w+):\s+(\d+)", log))
    coverage = re.findall(r"cov: (\d+) ft: (\d+)", log)
    summary = {"harness": name, "executions": int(stats.get("number_of_executed_units", 0)),
               "seconds": round(time.monotonic() - started), "exec_per_s": int(stats.get("average_exec_per_sec", 0)),
               "coverage": int(coverage[-1][0]) if coverage else 0,
               "features": int(coverage[-1][1]) if coverage else 0, "ok": proc.returncode == 0}
    if proc.returncode != 0:
        print(log[-6000:], file=sys.stderr)
        artifacts = [a for kind in ("crash", "timeout", "oom") for a in glob.glob(os.path.join(directory, kind + "-*"))]
        for artifact in artifacts:
            print(f"reproducer {artifact}: {base64.b64encode(open(artifact, 'rb').read()).decode()}",
                  file=sys.stderr)
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--only", nargs="*", choices=HARNESSES)
    parser.add_argument("--workdir", default=os.path.join(ROOT, "build", "fuzz"))
    args = parser.parse_args()
    names = args.only or HARNESSES
    failed = 0
    for name in names:
        s = run(name, args.seconds, args.workdir)
        print(f"fuzz {s['harness']}: {'ok' if s['ok'] else 'FAILED'}, {s['executions']} executions in "
              f"{s['seconds']} s ({s['exec_per_s']}/s), coverage {s['coverage']} edges, {s['features']} features")
        failed += not s["ok"]
    print(f"fuzz: {len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
