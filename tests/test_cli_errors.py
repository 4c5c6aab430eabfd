"""The `softgpu` command when something is wrong: a bad path, a missing or garbage file, a
reader that went away, a program whose own search path names another ROCr. Each ends with
one line naming the problem and a non-zero status — for `softgpu run`, before the program
starts — or, for the search path, is worked around and said."""
import os
import subprocess
import sys

import pytest

from core import stats
from core.cli import COMMAND_MODULES
from tests.support import cprog
from tests.support.paths import ROOT

CLI = os.path.join(ROOT, "core", "cli")


def softgpu(*args, env=None):
    return subprocess.run([sys.executable, "-m", "core.cli", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=env)


def test_every_subcommand_lives_in_the_cli_package():
    modules = sorted(f[:-3] for f in os.listdir(CLI) if f.endswith(".py") and not f.startswith("__"))
    assert sorted(COMMAND_MODULES) == modules
    declaring = subprocess.run(["grep", "-rlE", "--include=*.py", "^@command\\(", "core", "softgpu_shim"], cwd=ROOT,
                               capture_output=True, text=True).stdout.split()
    assert sorted(declaring) == [os.path.join("core", "cli", m + ".py") for m in modules]


def one_line(proc, prefix):
    assert proc.stderr.startswith(prefix) and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("option, where, reason", [
    ("--timeline", "missing/timeline.json", "cannot write it: No such file or directory"),
    ("--stats-csv", "missing/stats.csv", "cannot write it: No such file or directory"),
    ("--stats-csv", ".", "is a directory, not a file"),
    ("--trace", "missing/trace.jsonl", "cannot write it: No such file or directory"),
    ("--capture", "/proc/nope", "cannot create it: No such file or directory"),
])
def test_run_refuses_a_bad_output_before_the_program_starts(tmp_path, option, where, reason):
    marker = tmp_path / "ran"
    path = where if where.startswith("/") else str(tmp_path / where)
    proc = softgpu("run", option, path, "--", "sh", "-c", f"touch {marker}")
    assert proc.returncode == 2
    variable = {"--trace": "SOFTGPU_TRACE", "--capture": "SOFTGPU_CAPTURE"}.get(option)
    named = f"{variable}={os.path.abspath(path)!r}" if variable else f"{option} {path}"
    one_line(proc, f"softgpu run: {named}: {reason}")
    assert not marker.exists()


def test_run_refuses_a_bad_variable_before_the_program_starts(tmp_path):
    marker = tmp_path / "ran"
    env = dict(os.environ, SOFTGPU_ENGINE="bogus")
    proc = softgpu("run", "--", "sh", "-c", f"touch {marker}", env=env)
    assert proc.returncode == 2
    one_line(proc, "softgpu run: SOFTGPU_ENGINE='bogus': must be one of auto, native, interp")
    assert not marker.exists()
    env["SOFTGPU_ENGINE"] = "interp"
    assert softgpu("run", "--", "sh", "-c", f"touch {marker}", env=env).returncode == 0
    assert marker.exists()


@pytest.mark.parametrize("args", [("info",), ("disasm", "x.co"), ("isa-report",), ("lib",), ("replay", "."),
                                  ("timeline", "t.jsonl", "-o", "t.json"), ("run", "--", "true")])
def test_every_subcommand_refuses_a_bad_variable_before_it_starts(args):
    proc = softgpu(*args, env=dict(os.environ, SOFTGPU_SIGNAL_POLL_MS="0"))
    assert proc.returncode == 2 and proc.stdout == ""
    one_line(proc, f"softgpu {args[0]}: SOFTGPU_SIGNAL_POLL_MS='0': must be from 1 to 3600000")


@pytest.mark.parametrize("content, reason", [
    (None, "No such file or directory"),
    (b"", "holds no SoftGPU trace event"),
    (bytes(range(256)) * 8, "holds no SoftGPU trace event"),
    (b'{"not": "an event"}\n[1, 2]\n', "holds no SoftGPU trace event"),
])
def test_timeline_of_a_missing_or_garbage_file_writes_nothing(tmp_path, content, reason):
    trace = tmp_path / "trace.jsonl"
    if content is not None:
        trace.write_bytes(content)
    out = tmp_path / "timeline.json"
    proc = softgpu("timeline", trace, "-o", out)
    assert proc.returncode == 1
    one_line(proc, f"softgpu timeline: {trace}: {reason}")
    assert not out.exists()


def test_timeline_into_a_missing_directory_is_refused(tmp_path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text('{"t": 1, "event": "call", "api": "hsa_init", "tid": 1, "pid": 1, "thread": 1}\n')
    proc = softgpu("timeline", trace, "-o", tmp_path / "missing" / "timeline.json")
    assert proc.returncode == 1
    one_line(proc, f"softgpu timeline: -o {tmp_path / 'missing' / 'timeline.json'}: cannot write it")
    assert softgpu("timeline", trace, "-o", tmp_path / "timeline.json").returncode == 0


@pytest.mark.parametrize("args", [("info",), ("settings",), ("isa-report",), ("settings", "--markdown")])
def test_a_reader_that_went_away_ends_the_command_quietly(args):
    """`softgpu info | head`: the reader closes the pipe; the command stops as SIGPIPE would
    stop it, without a traceback."""
    read, write = os.pipe()
    os.close(read)                      # every write now fails with EPIPE
    proc = subprocess.run([sys.executable, "-m", "core.cli", *args], cwd=ROOT, stdout=write, stderr=subprocess.PIPE,
                          text=True, timeout=600)
    os.close(write)
    assert proc.returncode == 141
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_info_into_a_pipe_that_stays_open_still_succeeds():
    proc = subprocess.run([sys.executable, "-m", "core.cli", "info"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "Runtime Version:" in proc.stdout and proc.stderr == ""


@pytest.fixture(scope="module")
def rocr_rpath_dir(tmp_path_factory):
    """A directory holding Debian's real ROCr (libhsa-runtime64.so.1), as a program's rpath
    may name."""
    rocr = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1"
    assert os.path.exists(rocr), "Debian's libhsa-runtime64-1 is part of the test system (ci/setup.sh)"
    where = tmp_path_factory.mktemp("rocr")
    os.symlink(rocr, where / "libhsa-runtime64.so.1")
    return where


def linked(tmp_path, rpath, new_dtags):
    exe = tmp_path / ("runpath" if new_dtags else "rpath")
    subprocess.run(["gcc", "-std=gnu11", "-o", str(exe), os.path.join(ROOT, "examples", "list_agents.c"),
                    "-L/usr/lib/x86_64-linux-gnu", "-lhsa-runtime64",
                    f"-Wl,--{'enable' if new_dtags else 'disable'}-new-dtags,-rpath,{rpath}"], check=True)
    return exe


def test_run_preloads_softgpu_over_a_dt_rpath_that_names_rocr(tmp_path, rocr_rpath_dir):
    exe = linked(tmp_path, rocr_rpath_dir, new_dtags=False)
    alone = subprocess.run([str(exe)], env=cprog.env(), capture_output=True, text=True, timeout=300)
    assert "gfx1030" not in alone.stdout            # the loader did take the rpath's ROCr
    proc = softgpu("run", "--", exe)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "amdgcn-amd-amdhsa--gfx1030" in proc.stdout
    assert proc.stderr == (f"softgpu run: {exe} has a DT_RPATH to {rocr_rpath_dir}, whose libhsa-runtime64.so.1 "
                           "the loader would take before LD_LIBRARY_PATH's: preloading SoftGPU's instead\n")


@pytest.mark.parametrize("new_dtags, holds_rocr", [(True, True), (False, False)])
def test_run_leaves_a_search_path_softgpu_wins_alone(tmp_path, rocr_rpath_dir, new_dtags, holds_rocr):
    """DT_RUNPATH comes after LD_LIBRARY_PATH, and an rpath without ROCr takes nothing: no preload."""
    exe = linked(tmp_path, rocr_rpath_dir if holds_rocr else tmp_path, new_dtags)
    proc = softgpu("run", "--", exe)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "amdgcn-amd-amdhsa--gfx1030" in proc.stdout and proc.stderr == ""


def test_stats_count_translation_within_a_dispatch_as_set_up():
    """A dispatch's span less its tier's measured time, and translations on its thread within
    the span (boundaries included), are set-up; a translation on another thread or outside the
    span is not."""
    dispatch = {"event": "dispatch", "kernel": "k", "tid": 1, "start": 1000, "end": 2000, "seconds": 900e-9}
    compiles = [{"event": "native_compile", "tid": 1, "t": 1000, "seconds": 100e-9},
                {"event": "native_compile", "tid": 1, "t": 2000, "seconds": 50e-9},
                {"event": "native_compile", "tid": 1, "t": 2001, "seconds": 7e-9},
                {"event": "native_compile", "tid": 2, "t": 1500, "seconds": 3e-9}]
    k, = stats.kernel_stats(compiles + [dispatch])
    assert (k.total_ns, k.setup_ns) == (900 - 150, 100 + 150)
    second = dict(dispatch, start=3000, end=3900, seconds=900e-9)
    k, = stats.kernel_stats(compiles + [dispatch, second])
    assert (k.total_ns, k.setup_ns, k.calls) == (750 + 900, 250, 2)
