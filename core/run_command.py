"""`softgpu run -- PROGRAM ARGS`: run an unmodified HSA program on SoftGPU.

The program finds SoftGPU's libhsa-runtime64.so.1 first on its library path (or, with
--preload, it is preloaded over an installed ROCr), so a binary linked against ROCr
runs here without being rebuilt.
"""
import os
import sys

from core.cli import command

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def library_dir():
    return os.environ.get("SOFTGPU_LIBDIR") or os.path.join(ROOT, "build", "lib")


def program_environment(preload=False, trace=None, profile=None, environ=None):
    env = dict(os.environ if environ is None else environ)
    libdir = library_dir()
    env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    if preload:
        library = os.path.join(libdir, "libhsa-runtime64.so.1")
        env["LD_PRELOAD"] = library + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    if trace:
        env["SOFTGPU_TRACE"] = os.path.abspath(trace)
    if profile:
        env["SOFTGPU_PROFILE"] = profile
    return env


@command("run", help="run an HSA program on SoftGPU: softgpu run [options] -- PROGRAM ARGS")
def declare(parser):
    parser.add_argument("--preload", action="store_true",
                        help="LD_PRELOAD the library (over an installed ROCr) as well")
    parser.add_argument("--trace", metavar="PATH", help="record a JSON-lines trace (SOFTGPU_TRACE)")
    parser.add_argument("--profile", metavar="NAME", help="device profile (SOFTGPU_PROFILE)")
    parser.add_argument("program", nargs="+", help="the program and its arguments")
    return run


def run(args):
    library = os.path.join(library_dir(), "libhsa-runtime64.so.1")
    if not os.path.exists(library):
        sys.stderr.write(f"softgpu: {library} is not built: run `bash ci/setup.sh`\n")
        return 2
    env = program_environment(args.preload, args.trace, args.profile)
    try:
        os.execvpe(args.program[0], args.program, env)
    except OSError as e:
        sys.stderr.write(f"softgpu: cannot run {args.program[0]}: {e.strerror}\n")
        return 127
