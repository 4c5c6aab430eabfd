"""What a test needs from the machine, and what happens when the machine lacks it.

Guarantees: on a developer's machine a missing tool (program, library, interpreter, install
state) skips the test that needs it, naming what is missing; in CI (environment CI=true, as
CI services set it) the same absence FAILS the test, so a broken toolchain can never turn a
run green by skipping.
"""
import os
import shutil

import pytest


def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing(reason):
    """Skip for `reason` on a developer's machine; fail for it in CI."""
    if in_ci():
        pytest.fail(f"CI lacks what this test needs: {reason}", pytrace=False)
    pytest.skip(reason)


def require_tool(tool, why=""):
    """Return the path of `tool` (a program on PATH or an absolute path of any file);
    when it is absent, skip (fail in CI) naming it."""
    path = tool if os.path.isabs(tool) else shutil.which(tool)
    if not path or not os.path.exists(path):
        missing(f"{tool} is not installed" + (f" ({why})" if why else ""))
    return path
