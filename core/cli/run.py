"""`softgpu run -- PROGRAM ARGS`: run an unmodified HSA program on SoftGPU.

The program finds SoftGPU's libhsa-runtime64.so.1 first on its library path (or, with
--preload, it is preloaded over an installed ROCr), so a binary linked against ROCr
runs here without being rebuilt.

The program also sees the amdgpu driver SoftGPU stands in for, as clients that probe for
it before calling HSA expect (rocminfo): an `lsmod` that lists amdgpu first on PATH
(softgpu_shim/driver/) and libsoftgpu-driver.so preloaded, which opens /dev/null for an
absent /dev/kfd (softgpu_shim/driver_stand_in.c). ROCM_TARGET_LST names the profile's GPU
for rocm_agent_enumerator, which hipcc and HIP's CMake files ask which GPUs to build for
(it reads /sys/class/kfd otherwise, which only the driver makes).

Holds these invariants:
- without a report to make (--timeline, --stats, --stats-csv) the program replaces this
  process, so its exit status, signals and stdio are exactly its own;
- with one, the program runs as a child traced into a file, and the reports are written
  after it exits, whatever its exit status; this command then exits with the child's status;
- before the program starts, every SOFTGPU_* value it will see (core.settings) and every
  file a report goes to are checked: a bad one ends the command with one line naming it and
  exit status 2, and the program never runs;
- the program loads SoftGPU's library whatever its own search path says: when the dynamic
  loader would find another libhsa-runtime64.so.1 first (an old-style DT_RPATH, searched
  before LD_LIBRARY_PATH), SoftGPU's is preloaded instead, with a line saying so.
"""
import os
import shutil
import subprocess
import sys
import tempfile

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from core import settings
from core.cli import command
from core.errors import InvalidProfile
from core.profile import load as load_profile
from softgpu_shim.location import DRIVER_STAND_IN, PACKAGE, SONAME, library_dir, library_environment

DRIVER_TOOLS = os.path.join(PACKAGE, "driver")


def program_environment(preload=False, trace=None, profile=None, environ=None, capture=None,
                        capture_kernel=None):
    env = library_environment(environ)
    libdir = library_dir()
    preloads = [os.path.join(libdir, "libhsa-runtime64.so.1")] if preload else []
    driver = os.path.join(libdir, DRIVER_STAND_IN)
    if os.path.exists(driver):
        preloads.append(driver)
    _preload_first(env, preloads)
    env["PATH"] = DRIVER_TOOLS + (":" + env["PATH"] if env.get("PATH") else "")
    if not env.get("ROCM_TARGET_LST"):
        targets = _target_list(profile or env.get("SOFTGPU_PROFILE"))
        if targets:
            env["ROCM_TARGET_LST"] = targets
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


def _preload_first(env, libraries):
    """Put `libraries` at the front of env's LD_PRELOAD, before what the caller preloads."""
    if libraries:
        env["LD_PRELOAD"] = " ".join(libraries + [env["LD_PRELOAD"]] if env.get("LD_PRELOAD")
                                     else libraries)


def _target_list(profile_name):
    """A target.lst naming the profile's GPU (None for a broken profile: hsa_init reports it)."""
    try:
        gpu = load_profile(profile_name).gpu["name"]
    except InvalidProfile:
        return None
    folder = os.path.join(tempfile.gettempdir(), f"softgpu-{os.getuid()}-targets")
    path = os.path.join(folder, gpu + ".lst")
    if not os.path.exists(path):
        os.makedirs(folder, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=folder, delete=False) as f:
            f.write(gpu + "\n")
        os.replace(f.name, path)
    return path


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
    try:
        for option, path in (("--timeline", args.timeline), ("--stats-csv", args.stats_csv)):
            if path:
                settings.check_output_file(option, path)
        # The program's own variables, with the options' values in them (--trace, --capture...),
        # checked as the user set them, before a preload or a scratch trace is added.
        env = program_environment(False, trace_path, args.profile, capture=args.capture,
                                  capture_kernel=args.capture_kernel)
        settings.check(env)
    except (settings.InvalidSetting, InvalidProfile) as error:
        sys.stderr.write(f"softgpu run: {error}\n")
        return 2
    if args.preload or _loses_to_rpath(args.program[0], library):
        _preload_first(env, [library])
    scratch = None
    if reporting and not trace_path:
        scratch = tempfile.TemporaryDirectory(prefix="softgpu-run-")
        trace_path = os.path.join(scratch.name, "trace.jsonl")
        env["SOFTGPU_TRACE"] = trace_path
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


def _loses_to_rpath(program, library):
    """True (after saying so) when the dynamic loader would load another libhsa-runtime64.so.1
    for `program` than `library`: its DT_RPATH, which counts only without a DT_RUNPATH, is
    searched before LD_LIBRARY_PATH (ld.so(8)), and one of its directories holds one."""
    path = shutil.which(program)
    if path is None:
        return False            # exec reports it
    try:
        with open(path, "rb") as f:
            dynamic = ELFFile(f).get_section_by_name(".dynamic")
            tags = {} if dynamic is None else {t.entry.d_tag: t for t in dynamic.iter_tags()
                                                if t.entry.d_tag in ("DT_RPATH", "DT_RUNPATH")}
            rpath = tags["DT_RPATH"].rpath if "DT_RPATH" in tags and "DT_RUNPATH" not in tags else ""
    except (OSError, ELFError):
        return False            # not an ELF program (a script): its interpreter's search applies
    origin = os.path.dirname(os.path.realpath(path))
    for directory in filter(None, rpath.split(":")):
        directory = directory.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
        found = os.path.join(directory, SONAME)
        if os.path.exists(found) and not os.path.samefile(found, library):
            sys.stderr.write(f"softgpu run: {program} has a DT_RPATH to {directory}, whose {SONAME} the "
                             f"loader would take before LD_LIBRARY_PATH's: preloading SoftGPU's instead\n")
            return True
    return False


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
