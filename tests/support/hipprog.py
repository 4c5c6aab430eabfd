"""Build HIP programs with hipcc (HIP_PLATFORM=amd, gfx1030 unless asked otherwise) as their users do, and run them
on SoftGPU through AMD's own HIP runtime.

Builds are cached by content: the source, the headers beside it and in its include
directories, and the command line form the key, so a program is rebuilt only when one of
them changes.
"""
import glob
import hashlib
import json
import os
import subprocess
import tempfile

from tests.support import cprog
from tests.support.kernels import device_libs

_CACHE = os.path.join(tempfile.gettempdir(), "softgpu-test-bin")
HIP_ENV = dict(os.environ, HIP_PLATFORM="amd")


def build(path, command, suffix="", libraries=(), includes=()):
    """Run `command` + [path, "-o", output] + `libraries` unless an identical build exists;
    return the output's path. `includes` are more header directories (-I)."""
    command = [*command, *(f"-I{d}" for d in includes)]
    headers = [h for d in (os.path.dirname(path), *includes)
               for h in sorted(glob.glob(os.path.join(d, "*.h")))]
    digest = hashlib.sha1()
    for source in [path, *headers]:
        with open(source, "rb") as f:
            digest.update(f.read())
    digest.update(" ".join([*command, *libraries]).encode())
    os.makedirs(_CACHE, exist_ok=True)
    out = os.path.join(_CACHE, f"{os.path.basename(path)}.{digest.hexdigest()[:12]}{suffix}")
    if not os.path.exists(out):
        # Under a name of this process's own: test processes (pytest -n) may build it at once.
        partial = f"{out}.{os.getpid()}.tmp"
        subprocess.run([*command, path, "-o", partial, *libraries], check=True, env=HIP_ENV)
        os.replace(partial, out)
    return out


def program(path, opt="-O2", flags=(), libraries=(), includes=(), arch="gfx1030"):
    """The executable hipcc builds from `path` for `arch`."""
    command = ["hipcc", f"--offload-arch={arch}", opt, *flags]
    if arch == "gfx1100":               # Debian's device libraries lack gfx1100's ISA constant
        command.append(f"--rocm-device-lib-path={device_libs(arch)}")
    return build(path, command, suffix=opt if arch == "gfx1030" else f"{opt}.{arch}",
                 libraries=libraries, includes=includes)


def run(exe, *args, trace, timeout=300, **environ):
    return subprocess.run([exe, *map(str, args)], env=cprog.env(SOFTGPU_TRACE=trace, **environ),
                          capture_output=True, text=True, timeout=timeout)


def events(trace):
    with open(trace) as f:
        return [json.loads(line) for line in f]


def check_ok(exe, *args, tmp_path, marker, timeout=300, **environ):
    """Run a self-checking program; it must print `marker`, exit 0 and leave a trace with
    no internal error and no unsupported export. Returns the trace's events."""
    trace = tmp_path / "trace.jsonl"
    proc = run(exe, *args, trace=trace, timeout=timeout, **environ)
    assert proc.returncode == 0 and marker in proc.stdout, proc.stdout + proc.stderr
    recorded = events(trace)
    bad = [e for e in recorded if e["event"] in ("internal", "unsupported")]
    assert not bad, bad
    return recorded
