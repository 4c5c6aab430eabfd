"""Start-up benchmark (not a test): the first hsa_init of a fresh process, and a HIP
hello-kernel process from start to exit, each run REPEATS times in fresh processes.

References, measured in the same run: the start of the embedded interpreter alone
(Py_InitializeEx, site included), which every cffi-embedded library pays, and the same start
without site, as SoftGPU starts it (the floor of hsa_init); for the HIP process, its hipcc
build time gives context. The figures go to benchmarks/results/startup.json
(benchmarks/results.py: date, machine, commit) as well as to stdout.

usage: python3 benchmarks/run_startup.py [REPEATS]   (default 20)
"""
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from benchmarks.results import write  # noqa: E402
from core.location import library_dir, library_environment as env  # noqa: E402

LIBDIR = library_dir()


def build(tmp):
    startup = os.path.join(tmp, "startup")
    subprocess.run(["gcc", "-O2", "-o", startup, os.path.join(HERE, "startup.c"), "-L", LIBDIR,
                    "-lhsa-runtime64"], check=True)
    libdir = sysconfig.get_config_var("LIBDIR")
    floors = []
    for name, flags in (("embed_floor", ["-DEMBED_FLOOR"]),
                        ("embed_floor_no_site", ["-DEMBED_FLOOR", "-DNO_SITE", "-Wno-deprecated-declarations"])):
        floors.append(os.path.join(tmp, name))
        subprocess.run(["gcc", "-O2", *flags, "-o", floors[-1], os.path.join(HERE, "startup.c"),
                        "-I", sysconfig.get_paths()["include"], "-L", libdir, f"-Wl,-rpath,{libdir}",
                        f"-lpython{sysconfig.get_config_var('LDVERSION')}"], check=True)
    hello = os.path.join(tmp, "hip_hello")
    start = time.perf_counter()
    subprocess.run(["hipcc", "--offload-arch=gfx1030", "-O2", "-o", hello, os.path.join(HERE, "hip_hello.cpp")],
                   check=True, env=dict(os.environ, HIP_PLATFORM="amd"))
    return startup, floors, hello, time.perf_counter() - start


def printed_ms(exes, repeats):
    """Milliseconds each run of each of `exes` prints, the programs taking turns so that a
    busy moment of the machine weighs on all alike."""
    times = [[] for _ in exes]
    for _ in range(repeats):
        for exe, into in zip(exes, times):
            into.append(float(subprocess.run([exe], env=env(), capture_output=True, text=True,
                                             check=True).stdout))
    return times


def process_ms(exe, repeats):
    """Wall time of whole runs, in milliseconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        proc = subprocess.run([exe], env=env(), capture_output=True, text=True)
        times.append((time.perf_counter() - start) * 1e3)
        if proc.returncode != 0 or "HELLO OK" not in proc.stdout:
            sys.exit(f"{exe} failed: {proc.stdout}{proc.stderr}")
    return times


def line(name, times, reference=None):
    ratio = f"  {statistics.median(times) / statistics.median(reference):5.2f}x" if reference else ""
    print(f"{name:44s} {min(times):8.1f} {statistics.median(times):8.1f}{ratio}")


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    with tempfile.TemporaryDirectory() as tmp:
        startup, floors, hello, hipcc_seconds = build(tmp)
        floor_ms, no_site_ms, init_ms = printed_ms((*floors, startup), repeats)
        hello_ms = process_ms(hello, max(3, repeats // 4))
    print(f"{'ms (fresh processes)':44s} {'min':>8s} {'median':>8s}  ratio")
    line("embedded Python start (reference)", floor_ms)
    line("the same without site (hsa_init's floor)", no_site_ms)
    line("first hsa_init (goal <= 30 ms)", init_ms, floor_ms)
    line("HIP hello-kernel process, start to exit", hello_ms)
    print(f"{'hipcc build of the same program':44s} {hipcc_seconds * 1e3:8.1f}")
    figures = {name: {"min_ms": min(times), "median_ms": statistics.median(times)}
               for name, times in (("embedded_python_start", floor_ms),
                                   ("embedded_python_start_no_site", no_site_ms), ("first_hsa_init", init_ms),
                                   ("hip_hello_process", hello_ms))}
    figures["hipcc_build_ms"] = hipcc_seconds * 1e3
    print("results:", write("startup", figures, sys.argv[1:]))


if __name__ == "__main__":
    main()
