"""Every SOFTGPU_* variable is defined once (core/settings.py), read only through it, documented
in the README from it, and a bad value fails hsa_init (and `softgpu settings`) with one line
naming it, instead of being accepted or failing later inside a queue."""
import ast
import os
import re
import subprocess
import sys

import pytest

from core import settings
from softgpu_shim.hsa_abi import Status
from tests.support import cprog
from tests.support.paths import ROOT

PRODUCT = ("core", "softgpu_shim", "build_shim.py")
NAME = re.compile(r"\bSOFTGPU_[A-Z][A-Z0-9_]*[A-Z0-9]\b")
# A read of the environment by name: os.environ.get("SOFTGPU_..."), os.environ["SOFTGPU_..."]
# not followed by an assignment, getenv("SOFTGPU_...").
READ = re.compile(r'(environ\.get\(\s*"SOFTGPU_|environ\["SOFTGPU_[A-Z_]+"\](?!\s*=)|getenv\(\s*"SOFTGPU_)')


def product_files():
    for entry in PRODUCT:
        path = os.path.join(ROOT, entry)
        if os.path.isfile(path):
            yield path
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "lib")]
            yield from (os.path.join(folder, f) for f in files if f.endswith((".py", ".c", ".h")))


def test_every_variable_product_code_names_is_defined():
    named = {}
    for path in product_files():
        for name in NAME.findall(open(path).read()):
            named.setdefault(name, os.path.relpath(path, ROOT))
    unknown = {n: where for n, where in named.items() if n not in settings.BY_NAME}
    assert not unknown, f"SOFTGPU_* names not defined in core/settings.py: {unknown}"


def test_only_the_settings_module_reads_them():
    readers = [os.path.relpath(p, ROOT) for p in product_files()
               if READ.search(open(p).read()) and not p.endswith(os.path.join("core", "settings.py"))]
    assert readers == []


def test_the_readme_table_is_the_modules():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    assert settings.markdown() in readme, "regenerate it: python3 -m core.cli settings --markdown"
    proc = subprocess.run([sys.executable, "-m", "core.cli", "settings", "--markdown"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout == settings.markdown()


# (variable, value at a limit or a plain good value, value one past it or a plain bad value, reason)
EDGES = [
    ("SOFTGPU_THREADS", "1", "0", "must be from 1 to 1024"),
    ("SOFTGPU_THREADS", "1024", "1025", "must be from 1 to 1024"),
    ("SOFTGPU_THREADS", "2", "abc", "not an integer"),
    ("SOFTGPU_SIGNAL_POLL_MS", "1", "0", "must be from 1 to 3600000"),
    ("SOFTGPU_SIGNAL_POLL_MS", "3600000", "3600001", "must be from 1 to 3600000"),
    ("SOFTGPU_SIGNAL_POLL_MS", "100", "-5", "must be from 1 to 3600000"),
    ("SOFTGPU_CAPTURE_LIMIT", "0", "-1", "must be at least 0"),
    ("SOFTGPU_CAPTURE_LIMIT", "4096", "abc", "not an integer"),
    ("SOFTGPU_ENGINE", "interp", "bogus", "must be one of auto, native, interp"),
    ("SOFTGPU_TIME_LIMIT", "0.001", "0", "not a positive number of seconds"),
    ("SOFTGPU_TIME_LIMIT", "3600", "inf", "not a positive number of seconds"),
    ("SOFTGPU_QUEUE_ERRORS", "continue", "ignore", "must be one of abort, continue"),
    ("SOFTGPU_QUIET", "1", "yes", "must be one of 0, 1"),
    ("SOFTGPU_PROGRESS", "0", "2", "must be one of 0, 1"),
    ("SOFTGPU_INTERNAL_ERRORS", "abort", "crash", "must be one of report, abort"),
]


@pytest.mark.parametrize("name, good, bad, reason", EDGES)
def test_values_are_taken_at_the_limit_and_refused_past_it(name, good, bad, reason):
    settings.check({name: good})
    with pytest.raises(settings.InvalidSetting) as refused:
        settings.check({name: bad})
    assert str(refused.value) == f"{name}={bad!r}: {reason}"
    with pytest.raises(settings.InvalidSetting):
        settings.get(name, {name: bad})


def test_an_empty_variable_is_its_default():
    for s in settings.SETTINGS:
        assert settings.get(s.name, {s.name: ""}) == s.default
    assert settings.get("SOFTGPU_CAPTURE_LIMIT", {}) == 1 << 30
    assert settings.get("SOFTGPU_THREADS", {"SOFTGPU_THREADS": "7"}) == 7


def test_paths_are_checked_where_they_will_be_written(tmp_path):
    settings.check({"SOFTGPU_TRACE": str(tmp_path / "trace.jsonl"), "SOFTGPU_CAPTURE": str(tmp_path / "new" / "dir")})
    assert (tmp_path / "new" / "dir").is_dir() and not (tmp_path / "trace.jsonl").exists()
    refusals = {
        "SOFTGPU_TRACE": (str(tmp_path / "missing" / "trace.jsonl"), "cannot write it: No such file or directory"),
        "SOFTGPU_TIMELINE": (str(tmp_path), "is a directory, not a file"),
        "SOFTGPU_CAPTURE": ("/proc/nope", "cannot create it: No such file or directory"),
        "SOFTGPU_LIBDIR": (str(tmp_path / "missing"), "no such directory"),
        "SOFTGPU_LIBRARY": (str(tmp_path), "no such file"),
        "SOFTGPU_PROFILE": ("nosuchgpu", "profile 'nosuchgpu': no such profile"),
    }
    for name, (value, reason) in refusals.items():
        with pytest.raises(settings.InvalidSetting) as refused:
            settings.check({name: value})
        assert str(refused.value).startswith(f"{name}={value!r}: {reason}")


BAD_AT_INIT = [("SOFTGPU_ENGINE", "bogus"), ("SOFTGPU_THREADS", "abc"), ("SOFTGPU_SIGNAL_POLL_MS", "-5"),
               ("SOFTGPU_CAPTURE", "/proc/nope"), ("SOFTGPU_CAPTURE_LIMIT", "abc"),
               ("SOFTGPU_TRACE", "/nonexistent-dir/trace.jsonl"), ("SOFTGPU_THREADS", "1025")]


@pytest.mark.parametrize("name, value", BAD_AT_INIT)
def test_hsa_init_fails_with_one_line_naming_a_bad_value(name, value):
    proc = cprog.run("system_init.c", **{name: value})
    assert proc.returncode == 0, proc.stdout + proc.stderr      # system_init.c checked the rest
    assert f"hsa_init 0x{Status.ERROR_OUT_OF_RESOURCES:x}\n" in proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"softgpu: hsa_init failed: {name}={value!r}: "), proc.stderr


@pytest.mark.parametrize("name, value", [("SOFTGPU_THREADS", "1024"), ("SOFTGPU_SIGNAL_POLL_MS", "1"),
                                         ("SOFTGPU_CAPTURE_LIMIT", "0"), ("SOFTGPU_ENGINE", "interp")])
def test_hsa_init_takes_a_value_at_its_limit(name, value):
    proc = cprog.run("system_init.c", **{name: value})
    assert proc.returncode == 0 and "hsa_init 0x0\n" in proc.stdout, proc.stdout + proc.stderr
    assert proc.stderr == ""


def test_settings_command_lists_every_variable_and_checks_the_environment():
    env = dict(os.environ, SOFTGPU_THREADS="4")
    good = subprocess.run([sys.executable, "-m", "core.cli", "settings"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert good.returncode == 0, good.stderr
    assert "SOFTGPU_THREADS = 4" in good.stdout
    assert all(s.name in good.stdout for s in settings.SETTINGS)
    env["SOFTGPU_THREADS"] = "0"
    bad = subprocess.run([sys.executable, "-m", "core.cli", "settings"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 1
    assert bad.stderr == "softgpu settings: SOFTGPU_THREADS='0': must be from 1 to 1024\n"


def test_no_product_module_imports_the_tests():
    importers = []
    for path in product_files():
        if not path.endswith(".py"):
            continue
        tree = ast.parse(open(path).read(), path)
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if any(n == "tests" or n.startswith("tests.") for n in names):
                importers.append(f"{os.path.relpath(path, ROOT)}:{node.lineno}")
    assert importers == []
