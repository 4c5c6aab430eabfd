"""ci/setup.sh on a checkout that is set up already does nothing again: no reinstall, no rebuild."""
import os
import subprocess
import sys

from tests.support.paths import LIBRARY, ROOT
from tests.support.tools import missing


def installed_here():
    probe = subprocess.run([sys.executable, "-c", "import core; print(core.__file__)"], cwd="/",
                           capture_output=True, text=True)
    return probe.stdout.startswith(os.path.join(ROOT, ""))


def test_setup_on_a_set_up_checkout_repeats_nothing():
    if not installed_here():
        missing("the editable install points at another checkout; setup.sh would move it here")
    subprocess.run(["bash", "ci/setup.sh"], cwd=ROOT, check=True, capture_output=True)
    before = os.stat(LIBRARY).st_mtime_ns
    proc = subprocess.run(["bash", "-x", "ci/setup.sh"], cwd=ROOT, capture_output=True, text=True, check=True)
    commands = [line for line in proc.stderr.splitlines() if line.startswith("+ ")]
    assert not any(word in c for c in commands for word in ("pip install", "apt-get install", "apt-get update")), \
        commands
    assert os.stat(LIBRARY).st_mtime_ns == before


def test_build_shim_rebuilds_only_when_an_input_changed(tmp_path):
    out = str(tmp_path / "lib")
    build = [sys.executable, os.path.join(ROOT, "build_shim.py"), out]
    subprocess.run(build, check=True, capture_output=True)
    library = os.path.join(out, "libhsa-runtime64.so.1")
    first = os.stat(library).st_mtime_ns
    subprocess.run(build, check=True, capture_output=True)
    assert os.stat(library).st_mtime_ns == first
    subprocess.run(build + ["--force"], check=True, capture_output=True)
    assert os.stat(library).st_mtime_ns != first
