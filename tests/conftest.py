import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.support.paths import LIBRARY  # noqa: E402


def pytest_configure(config):
    if not os.path.exists(LIBRARY):
        raise pytest.UsageError(f"{LIBRARY} is missing: run `python3 build_shim.py` (ci/setup.sh does)")
