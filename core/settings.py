"""Every SOFTGPU_* environment variable: its type, default, validation and documentation.

Holds these invariants:
- each variable is defined here once; product code (Python, and C through the names
  build_shim.py generates from SETTINGS) reads it only through `get`, so a reader can never
  disagree with another about its type or default;
- an empty variable means the same as an unset one (its default);
- `check` names the first bad variable in one line (`SOFTGPU_THREADS='abc': ...`): hsa_init
  and every `softgpu` subcommand (`run` with the program's environment) call it before
  anything uses a value, so a mistake fails at start, never inside a queue's packet processor;
- `get` only converts (cheap enough for every trace event); what needs the file system
  (directories that must exist, files that must be writable) is checked by `check` alone.
"""
import math
import os
from collections import namedtuple
from contextlib import contextmanager


class InvalidSetting(ValueError):
    """A SOFTGPU_* variable holds a value SoftGPU cannot use; the message is one line."""

    def __init__(self, message, name=None):
        super().__init__(message)
        self.name = name


# A variable: name; kind, for the documentation ("path", "integer", "one of ..."); default, the
# value when unset or empty (None: decided elsewhere, see doc); doc; parse(text) -> value;
# check(value), the file-system validation of a parsed value, or None; recorded: the packet
# processor sends packets to Python while it is set. A namedtuple, not a dataclass: hsa_init
# imports this module, and dataclasses imports inspect (~5 ms).
Setting = namedtuple("Setting", "name kind default doc parse check recorded", defaults=(None, False))


def _choice(*allowed):
    def parse(text):
        if text not in allowed:
            raise InvalidSetting(f"must be one of {', '.join(allowed)}")
        return text
    return parse


def _integer(low, high=None):
    def parse(text):
        try:
            value = int(text, 10)
        except ValueError:
            raise InvalidSetting("not an integer") from None
        if value < low or (high is not None and value > high):
            raise InvalidSetting(f"must be from {low} to {high}" if high is not None else f"must be at least {low}")
        return value
    return parse


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise InvalidSetting("not a positive number of seconds")
    return value


def _flag(text):
    return _choice("0", "1")(text) == "1"


def _text(text):
    return text


def _path(text):
    return os.path.abspath(text)


def _file_writable(path):
    """A file that will be created or appended to: its directory must exist and let it be.
    The file itself is not created here (another process may be about to), only probed."""
    if os.path.isdir(path):
        raise InvalidSetting("is a directory, not a file")
    try:
        if os.path.exists(path):
            with open(path, "a"):
                pass
        else:
            import tempfile     # only for a file setting that is set: ~5 ms of hsa_init otherwise
            fd, probe = tempfile.mkstemp(prefix=".softgpu-probe-", dir=os.path.dirname(path))
            os.close(fd)
            os.unlink(probe)
    except OSError as e:
        raise InvalidSetting(f"cannot write it: {e.strerror}") from None


def _directory_creatable(path):
    """A directory that will be filled: made now if it is missing, so a bad place fails here."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise InvalidSetting("exists and is not a directory") from None
    except OSError as e:
        raise InvalidSetting(f"cannot create it: {e.strerror}") from None
    import tempfile
    try:
        fd, probe = tempfile.mkstemp(prefix=".softgpu-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise InvalidSetting(f"cannot write into it: {e.strerror}") from None


def _directory_existing(path):
    if not os.path.isdir(path):
        raise InvalidSetting("no such directory")


def _file_existing(path):
    if not os.path.isfile(path):
        raise InvalidSetting("no such file")


def _profile_known(name):
    from core.errors import InvalidProfile
    from core.profile_files import resolve_path
    try:
        path = resolve_path(name)
    except InvalidProfile as e:
        raise InvalidSetting(str(e)) from None
    if not os.path.isfile(path):
        raise InvalidSetting(f"no such profile file {path}")


SETTINGS = (
    Setting("SOFTGPU_PROFILE", "name or path", "gfx1030",
            "device profile: a name under `profiles/` or a path to a .json file", _text, _profile_known),
    Setting("SOFTGPU_ENGINE", "`auto`, `native` or `interp`", "auto",
            "`auto`: tiered: a kernel runs natively once its translation is ready (made in this process or "
            "in the disk cache); until then it runs on the interpreter, and its translation is made in the "
            "background only once the kernel has cost the interpreter half of what translating it is "
            "expected to cost (its earlier dispatches, in this process and in earlier ones that used the same "
            "cache, a long dispatch's prediction, or the seconds it has run), so short kernels run once cost what the interpreter alone does; the dispatch then waits "
            "for it if it is expected to take longer than the wait (the rest of a long dispatch switches "
            "tier when the translation is ready; trace events `tier`, `native_compile`); "
            "`native`: every kernel waits for its translation through LLVM and runs on every core; "
            "`interp`: the numpy interpreter (the oracle). Instructions the translator has no emitter for "
            "run inside translated kernels on the interpreter's own handlers (callouts); a kernel the "
            "native tier cannot translate at all runs on the interpreter (trace event `native_fallback`)",
            _choice("auto", "native", "interp")),
    Setting("SOFTGPU_TIER_SWITCH_AFTER", "integer", None,
            "with `auto`, for tests of tier switches: each dispatch of a translatable kernel runs this many "
            "workgroups on the interpreter, then the rest natively (waiting for the translation)",
            _integer(0)),
    Setting("SOFTGPU_THREADS", "integer 1-1024", None,
            "threads that run a dispatch's workgroups on the native tier (default: the usable cores)",
            _integer(1, 1024)),
    Setting("SOFTGPU_TRACE", "path", None,
            "file to append JSON-lines trace events to (calls, errors, unsupported calls, packets, dispatches)",
            _path, _file_writable, recorded=True),
    Setting("SOFTGPU_TIMELINE", "path", None,
            "file to stream a Perfetto/Chrome timeline into", _path, _file_writable, recorded=True),
    Setting("SOFTGPU_CAPTURE", "path", None,
            "directory to capture dispatches into for `softgpu replay` (made if missing)",
            _path, _directory_creatable, recorded=True),
    Setting("SOFTGPU_CAPTURE_KERNEL", "pattern", None,
            "capture only kernels whose name matches (an exact name, or an fnmatch pattern such as `gemm_*`)",
            _text),
    Setting("SOFTGPU_CAPTURE_LIMIT", "bytes", 1 << 30,
            "a dispatch that can reach more device memory than this is not captured (with a message)",
            _integer(0)),
    Setting("SOFTGPU_TIME_LIMIT", "seconds", None,
            "a dispatch running longer is stopped with a fault report, as a queue error (default: no "
            "limit, as on a GPU)", _seconds),
    Setting("SOFTGPU_QUEUE_ERRORS", "`abort` or `continue`", "abort",
            "`continue`: a GPU fault on a queue without an error callback is reported and recorded instead "
            "of aborting the process (ROCr aborts)", _choice("abort", "continue")),
    Setting("SOFTGPU_QUIET", "`0` or `1`", False,
            "`1`: no stderr line for internal errors caught at the ABI edge, nor for launch warnings",
            _flag),
    Setting("SOFTGPU_INTERNAL_ERRORS", "`report` or `abort`", "report",
            "`abort`: an internal error aborts the process after printing its traceback (the fuzz harnesses "
            "run so)", _choice("report", "abort")),
    Setting("SOFTGPU_FLIGHT_RECORDER", "path", None,
            "file the in-memory ring of recent trace events (the flight recorder) is written to at every "
            "queue error (before ROCr's abort), for a CI job that faulted without a trace", _path, _file_writable),
    Setting("SOFTGPU_PROGRESS", "`0` or `1`", None,
            "`1`: progress of long dispatches on stderr even into a pipe; `0`: never (default: on a terminal)",
            _flag),
    Setting("SOFTGPU_SIGNAL_POLL_MS", "integer 1-3600000", 100,
            "longest sleep of a host signal wait before it re-checks the value: a safety net for device "
            "code that changes a signal without raising an interrupt", _integer(1, 3600000)),
    Setting("SOFTGPU_LIBDIR", "path", None,
            "where `softgpu run`, `softgpu lib` and the tests find the built library (default `build/lib` "
            "of a checkout, or the installed package's)", _path, _directory_existing),
    Setting("SOFTGPU_LIBRARY", "path", None,
            "the library file a plain Python process loads to reach SoftGPU's C side (core.native; "
            "default: `libhsa-runtime64.so.1` in the library directory above)", _path, _file_existing),
)
BY_NAME = {s.name: s for s in SETTINGS}
_parsed = {}        # (name, text) -> value: `get` converts each distinct text once
# Variables whose bad value was already reported on stderr, so later users stay quiet.
reported = set()


def _parse(setting, text):
    try:
        return setting.parse(text)
    except InvalidSetting as e:
        raise InvalidSetting(f"{setting.name}={text!r}: {e}", setting.name) from None


def get(name, environ=None):
    """The value of SOFTGPU_* variable `name` (its default when unset or empty); raises
    InvalidSetting for a value `check` would have refused."""
    setting = BY_NAME[name]
    text = (os.environ if environ is None else environ).get(name)
    if not text:
        return setting.default
    key = (name, text)
    value = _parsed.get(key)
    if value is None:
        value = _parsed[key] = _parse(setting, text)
    return value


@contextmanager
def overridden(name, text):
    """Run the block with variable `name` set to `text` in this process's environment, as a
    user would set it, and put back what was there (or nothing) afterwards."""
    BY_NAME[name]  # only a defined variable
    old = os.environ.get(name)
    os.environ[name] = text
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def check(environ=None):
    """Validate every variable set in `environ` (default: this process's); raise InvalidSetting
    naming the first bad one."""
    environ = os.environ if environ is None else environ
    for setting in SETTINGS:
        text = environ.get(setting.name)
        if not text:
            continue
        value = _parse(setting, text)
        if setting.check is not None:
            try:
                setting.check(value)
            except InvalidSetting as e:
                raise InvalidSetting(f"{setting.name}={text!r}: {e}", setting.name) from None


def check_output_file(option, path):
    """The same check for a file a command-line option names (`--timeline PATH`)."""
    try:
        _file_writable(os.path.abspath(path))
    except InvalidSetting as e:
        raise InvalidSetting(f"{option} {path}: {e}") from None


def recorded_names():
    """The variables under which the packet processor hands every packet to Python."""
    return [s.name for s in SETTINGS if s.recorded]


def _shown(default):
    if default is None:
        return "see meaning"
    if isinstance(default, bool):
        return "`1`" if default else "`0`"
    return f"`{default}`"


def markdown():
    """The README's table of settings."""
    lines = ["| variable | value | default | meaning |", "| --- | --- | --- | --- |"]
    for s in SETTINGS:
        lines.append(f"| `{s.name}` | {s.kind} | {_shown(s.default)} | {s.doc} |")
    return "\n".join(lines) + "\n"
