"""Build C test programs against /usr/include/hsa and run them on SoftGPU.

Programs link with -lhsa-runtime64 against the built library's directory, exactly
as a client links against ROCr, and run with LD_LIBRARY_PATH pointing there.
"""
import glob
import hashlib
import os
import subprocess
import tempfile

from tests.support.paths import C_TESTS, LIBDIR

_CACHE = os.path.join(tempfile.gettempdir(), "softgpu-test-bin")


def build(source, extra_flags=()):
    """Compile tests/c/<source> (or an absolute path); return the executable's path."""
    path = source if os.path.isabs(source) else os.path.join(C_TESTS, source)
    with open(path, "rb") as f:
        text = f.read()
    # Every local header takes part in the key: a test rebuilds when any of them changes.
    headers = b"".join(open(h, "rb").read() for h in sorted(glob.glob(os.path.join(C_TESTS, "*.h"))))
    digest = hashlib.sha1(text + headers + " ".join(extra_flags).encode()).hexdigest()[:12]
    os.makedirs(_CACHE, exist_ok=True)
    exe = os.path.join(_CACHE, f"{os.path.basename(path)}.{digest}")
    if not os.path.exists(exe):
        # Under a name of this process's own: test processes (pytest -n) may build it at once.
        partial = f"{exe}.{os.getpid()}.tmp"
        subprocess.run(["gcc", "-std=gnu11", "-O1", "-Wall", "-Werror", "-I", C_TESTS, "-o", partial, path,
                        "-L", LIBDIR, "-lhsa-runtime64", "-lpthread", *extra_flags], check=True)
        os.replace(partial, exe)
    return exe


def env(**extra):
    e = dict(os.environ)
    e["LD_LIBRARY_PATH"] = LIBDIR + (":" + e["LD_LIBRARY_PATH"] if e.get("LD_LIBRARY_PATH") else "")
    e.update({k: str(v) for k, v in extra.items()})
    return e


def run(source, *args, timeout=120, extra_flags=(), **environ):
    """Build and run a C test; return the CompletedProcess (stdout/stderr as text)."""
    exe = build(source, extra_flags)
    return subprocess.run([exe, *map(str, args)], env=env(**environ), capture_output=True,
                          text=True, timeout=timeout)


def check(source, *args, **kw):
    """Run a C test that reports with check.h; fail with its output unless it passed."""
    proc = run(source, *args, **kw)
    assert proc.returncode == 0, f"{source} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "FAIL" not in proc.stdout, proc.stdout
    return proc
