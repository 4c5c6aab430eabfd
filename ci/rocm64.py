"""The ROCm 6.4 test root (ci/rocm64_root.sh) as ci/rocm64_suites.py and the tests use it
(tests/support/rocm64.py adds pytest's verdict on a missing root).

Guarantees:
- absent() says why the root cannot be used here (None when it can); up_to_date() hands out
  the root only when its SoftGPU is this checkout's (it brings SoftGPU up to date through the
  script, which is cheap when nothing changed);
- programs run inside the root under `softgpu run`, so they bind SoftGPU's library and never
  the root's ROCr 6.4.3;
- a gtest run is counted from its own result lines: a test that started and never ended (the
  process crashed or hit its time limit) counts as failed under the name gtest printed, so
  a crash can never read as a pass or vanish from the counts.
"""
import hashlib
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "ci", "rocm64_root.sh")
ROOT_DIR = os.environ.get("ROCM64_ROOT", "/var/lib/softgpu/rocm64")
STAMPS = os.path.join(ROOT_DIR, "var", "lib", "softgpu-root")
# Where the tests' files live inside the root (builds are kept between runs, by content).
WORK = "/var/tmp/softgpu-tests"
TESTS = "/usr/libexec/rocm"          # the -tests packages' binaries


def absent():
    """Why the root cannot be used from this process, or None: it needs root (chroot) and a
    complete root (its packages stage done)."""
    if os.geteuid() != 0:
        return "the ROCm 6.4 root needs root (chroot)"
    if not os.path.exists(os.path.join(STAMPS, "packages")):
        return f"no ROCm 6.4 root at {ROOT_DIR}: run ci/rocm64_root.sh"
    return None


def up_to_date():
    """The root's folder, its SoftGPU brought up to date with this checkout."""
    proc = subprocess.run(["bash", SCRIPT], capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"ci/rocm64_root.sh failed:\n{proc.stderr[-3000:]}"
    return ROOT_DIR


def host_path(path):
    """The host's path of `path` inside the root."""
    return os.path.join(ROOT_DIR, path.lstrip("/"))


def run(*command, timeout, environ=None, cwd="/", log=None):
    """Run `command` inside the root; returns a CompletedProcess (text, both streams). At
    `timeout` the whole process group goes (the program inside the root too, not only the
    script that entered it) and TimeoutExpired carries what it printed. With `log` (a host
    path) both streams go to that file as they come, and stdout carries them in the end."""
    env = [f"{k}={v}" for k, v in (environ or {}).items()]
    argv = ["bash", SCRIPT, "run", "env", "-C", cwd, *env, *command]
    sink = open(log, "w") if log else None
    streams = dict(stdout=sink, stderr=subprocess.STDOUT) if sink else \
        dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with subprocess.Popen(argv, text=True, start_new_session=True, **streams) as proc:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate()
                if sink:
                    out, err = _read(log), ""
                raise subprocess.TimeoutExpired(argv, timeout, out, err)
    finally:
        if sink:
            sink.close()
    if sink:
        out, err = _read(log), ""
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _read(path):
    with open(path, errors="replace") as f:
        return f.read()


def softgpu_run(*command, timeout, environ=None, cwd="/", log=None):
    """Run `command` inside the root on SoftGPU (`softgpu run`)."""
    return run("softgpu", "run", "--", *command, timeout=timeout, environ=environ, cwd=cwd, log=log)


def hipcc(source, arch, *flags, includes=()):
    """Build `source` (a host path; the .h files beside it and in `includes` go along) with the
    root's hipcc 7 for `arch`; returns the executable's path inside the root. Builds are kept
    by content: the sources and the command line."""
    headers = sorted({os.path.join(d, h) for d in (os.path.dirname(source), *includes)
                      for h in os.listdir(d) if h.endswith(".h")})
    digest = hashlib.sha1(" ".join((arch, *flags)).encode())
    for path in (source, *headers):
        with open(path, "rb") as f:
            digest.update(f.read())
    folder = f"{WORK}/{os.path.basename(source)}.{arch}.{digest.hexdigest()[:12]}"
    exe = f"{folder}/{os.path.splitext(os.path.basename(source))[0]}"
    return _kept(folder, (source, *headers), exe, "hipcc", f"--offload-arch={arch}", *flags,
                 f"-I{folder}", f"{folder}/{os.path.basename(source)}")


def clang21(source, arch, *flags, hip=False):
    """Compile one kernel source (a host path) with the root's clang-21 for `arch` into a
    device code object (OpenCL by default, HIP device-only with hip=True, flags as the caller
    gives them, e.g. the tests/kernels builds' own); returns the object's host path. Kept by
    content, like hipcc's builds."""
    digest = hashlib.sha1(" ".join((arch, str(hip), *flags)).encode())
    with open(source, "rb") as f:
        digest.update(f.read())
    folder = f"{WORK}/clang21/{digest.hexdigest()[:16]}"
    obj = f"{folder}/{os.path.splitext(os.path.basename(source))[0]}.co"
    language = (["-x", "hip", "--cuda-device-only", "--no-gpu-bundle-output", f"--offload-arch={arch}"]
                if hip else ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}",
                             "-Xclang", "-finclude-default-header"])
    return host_path(_kept(folder, (source,), obj, "clang-21", *language, *flags,
                           f"{folder}/{os.path.basename(source)}"))


def _kept(folder, sources, output, *command):
    """`output` (a path inside the root), made by `command` ... -o output from `sources` copied
    into `folder` unless a build of the same content made it already; written under a name
    of this process's own and renamed, so an interrupted build never passes for one and test
    processes building the same content at once (pytest -n) never write one file."""
    if not os.path.exists(host_path(output)):
        os.makedirs(host_path(folder), exist_ok=True)
        for path in sources:
            _copy_whole(path, host_path(folder))
        partial = f"{output}.{os.getpid()}.tmp"
        proc = run(*command, "-o", partial, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        os.replace(host_path(partial), host_path(output))
    return output


def _copy_whole(path, folder):
    """Copy `path` into `folder` under a temporary name, then rename: a process compiling it
    there never reads a half-copied source (same content, so the last rename is as good)."""
    target = os.path.join(folder, os.path.basename(path))
    partial = f"{target}.{os.getpid()}.tmp"
    shutil.copy(path, partial)
    os.replace(partial, target)


def objdump(path, mcpu):
    """llvm-objdump-21's listing of the code object at host path `path` (inside the root)."""
    inside = "/" + os.path.relpath(path, ROOT_DIR)
    proc = run("llvm-objdump-21", "-d", f"--mcpu={mcpu}", inside, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# ---- gtest suites ----------------------------------------------------------------------------

_RESULT = re.compile(r"^\[ +(RUN|OK|FAILED|SKIPPED) +\] ([^ ]+?\.[^ ]+?)(?: \(|,|$)")


@dataclass
class Counts:
    passed: list = field(default_factory=list)
    failed: list = field(default_factory=list)    # crashed or timed-out tests included
    skipped: list = field(default_factory=list)
    seconds: float = 0.0

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.seconds += other.seconds


def count(output, ended=True):
    """Counts of a gtest run's output. A test that printed RUN and no verdict failed (the
    process ended inside it); `ended` False means it was stopped, so that test timed out."""
    counts, running = Counts(), None
    for line in output.splitlines():
        match = _RESULT.match(line)
        if not match:
            continue
        verdict, name = match.groups()
        if verdict == "RUN":
            if running:
                counts.failed.append(running + " (no verdict)")
            running = name
        elif name == running:
            {"OK": counts.passed, "FAILED": counts.failed, "SKIPPED": counts.skipped}[verdict].append(name)
            running = None
    if running:
        counts.failed.append(running + (" (crashed)" if ended else " (time limit)"))
    return counts


@dataclass(frozen=True)
class Gtest:
    """One gtest binary of a -tests package, run with `args`; `shards` > 1 runs gtest's
    shard 0 of that many (every shards-th test of the filtered list, in gtest's order): a
    reproducible sample."""
    binary: str
    args: tuple = ()
    shards: int = 1

    def run(self, timeout, environ=None, log=None):
        env = {"GTEST_LISTENER": "PASS_LINE_IN_LOG", "GTEST_COLOR": "no", **(environ or {})}
        if self.shards > 1:
            env.update(GTEST_TOTAL_SHARDS=str(self.shards), GTEST_SHARD_INDEX="0")
        started = os.times().elapsed
        try:
            # Line-buffered: what a crashing test printed must not die in its stdio buffer.
            proc = run("stdbuf", "-oL", "-eL", "softgpu", "run", "--", f"{TESTS}/{self.binary}",
                       *self.args, timeout=timeout, environ=env, log=log)
            out, ended = proc.stdout + proc.stderr, True
        except subprocess.TimeoutExpired as stopped:
            out, ended = (stopped.stdout or "") + (stopped.stderr or ""), False
        counts = count(out, ended)
        counts.seconds = os.times().elapsed - started
        counts.output = out
        return counts
