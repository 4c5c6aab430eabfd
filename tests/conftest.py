import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.support.paths import LIBRARY  # noqa: E402

# The suite checks behaviour on the interpreter, the oracle, unless a test (or the caller's
# environment) chooses a tier: translating every kernel the suite builds costs minutes. The
# native tier has its own tests (tests/isa/test_native_differential.py, test_native_programs.py,
# the ALU's tests against the native emitters, progress).
os.environ.setdefault("SOFTGPU_ENGINE", "interp")


def pytest_configure(config):
    if not os.path.exists(LIBRARY):
        raise pytest.UsageError(f"{LIBRARY} is missing: run `python3 build_shim.py` (ci/setup.sh does)")
