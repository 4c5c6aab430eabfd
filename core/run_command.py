"""`softgpu run -- PROGRAM ARGS`: run an unmodified HSA program on SoftGPU.

The program finds SoftGPU's libhsa-runtime64.so.1 first on its library path (or, with
--preload, it is preloaded over an installed ROCr), so a binary linked against ROCr
runs here without being rebuilt.

Holds two invariants:
- without a report to make (--timeline, --stats, --stats-csv) the program replaces this
  process, so its exit status, signals and stdio are exactly its own;
- with one, the program runs as a child traced into a file, and the reports are written
  after it exits, whatever its exit status; this command then exits with the child's status.
"""
import os
import subprocess
import sys
import tempfile

from core.cli import command
from softgpu_shim.location import library_dir


def program_environment(preload=False, trace=None, profile=None, environ=None, capture=None,
                        capture_kernel=None):
    env = dict(os.environ if environ is None else environ)
    libdir = library_dir()
    env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    if preload:
        library = os.path.join(libdir, "libhsa-runtime64.so.1")
        env["LD_PRELOAD"] = library + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    if sys.prefix != sys.base_prefix:
        # Installed in a virtual environment: the library starts its Python from the base
        # installation, whose path lacks the environment's packages (cffi's own included).
        import site
        env["PYTHONPATH"] = ":".join(site.getsitepackages() + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    if trace:
        env["SOFTGPU_TRACE"] = os.path.abspath(trace)
    if profile:
        env["SOFTGPU_PROFILE"] = profile
    if capture:
        env["SOFTGPU_CAPTURE"] = os.path.abspath(capture)
    if capture_kernel:
        env["SOFTGPU_CAPTURE_KERNEL"] = capture_kernel
    return env


@command("run", help="run an HSA program on SoftGPU: softgpu run [options] -- PROGRAM ARGS")
def declare(parser):
    parser.add_argument("--preload", action="store_true",
                        help="LD_PRELOAD the library (over an installed ROCr) as well")
    parser.add_argument("--trace", metavar="PATH", help="record a JSON-lines trace (SOFTGPU_TRACE)")
    parser.add_argument("--profile", metavar="NAME", help="device profile (SOFTGPU_PROFILE)")
    parser.add_argument("--timeline", metavar="PATH",
                        help="write a Perfetto/Chrome timeline of the run (open it in ui.perfetto.dev)")
    parser.add_argument("--stats", action="store_true", help="print kernel statistics at exit")
    parser.add_argument("--stats-csv", metavar="PATH",
                        help="write kernel statistics as rocprof's CSV (Name,Calls,TotalDurationNs,...)")
    parser.add_argument("--capture", metavar="DIR",
                        help="save every dispatch (or those of --capture-kernel) for `softgpu replay`")
    parser.add_argument("--capture-kernel", metavar="NAME", help="capture only dispatches of this kernel")
    parser.add_argument("program", nargs="+", help="the program and its arguments")
    return run


@command("lib", help="print the directory of libhsa-runtime64.so.1 (for LD_LIBRARY_PATH in CI scripts)")
def declare_lib(parser):
    return lambda args: print(library_dir())


def run(args):
    library = os.path.join(library_dir(), "libhsa-runtime64.so.1")
    if not os.path.exists(library):
        sys.stderr.write(f"softgpu: {library} is not built: run `bash ci/setup.sh`\n")
        return 2
    reporting = args.timeline or args.stats or args.stats_csv
    trace_path = args.trace
    scratch = None
    if reporting and not trace_path:
        scratch = tempfile.TemporaryDirectory(prefix="softgpu-run-")
        trace_path = os.path.join(scratch.name, "trace.jsonl")
    env = program_environment(args.preload, trace_path, args.profile, capture=args.capture,
                              capture_kernel=args.capture_kernel)
    if not reporting:
        try:
            os.execvpe(args.program[0], args.program, env)
        except OSError as e:
            sys.stderr.write(f"softgpu: cannot run {args.program[0]}: {e.strerror}\n")
            return 127
    try:
        status = _run_child(args.program, env)
        _reports(args, trace_path)
        return status
    finally:
        if scratch is not None:
            scratch.cleanup()


def _run_child(program, env):
    try:
        done = subprocess.run(program, env=env)
    except OSError as e:
        sys.stderr.write(f"softgpu: cannot run {program[0]}: {e.strerror}\n")
        return 127
    # A child killed by a signal exits like a shell reports it: 128 + signal.
    return done.returncode if done.returncode >= 0 else 128 - done.returncode


def _reports(args, trace_path):
    from core import stats, timeline
    records = timeline.read_trace(trace_path) if os.path.exists(trace_path) else []
    if args.timeline:
        timeline.write(records, args.timeline)
        sys.stderr.write(f"softgpu: timeline written to {args.timeline} (open it in ui.perfetto.dev)\n")
    if args.stats or args.stats_csv:
        table = stats.kernel_stats(records)
        if args.stats:
            sys.stderr.write(stats.format_table(table))
        if args.stats_csv:
            stats.write_csv(table, args.stats_csv)
