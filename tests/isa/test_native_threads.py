"""The native tier's results do not depend on how many threads run the workgroups: kernel-suite
cases with LDS and barriers, partial workgroups, scratch and atomics give the interpreter's
bytes with SOFTGPU_THREADS=1, 2 and 3.

The pool's size is fixed when it starts, so each thread count runs in a process of its own.
"""
import subprocess
import sys

import pytest

from tests.support.paths import ROOT

# Cases whose results are fixed whatever order their workgroups run in: an LDS reduction and
# scan behind barriers, a partial last workgroup, -O0 calls with scratch, and global atomics
# (increments, a compare-and-swap loop, 64-bit add and max) whose final values are sums.
CASES = ("wg_reduce", "wg_prefix_scan", "big_partial_reduce", "noinline_calls", "histogram_inc",
         "cmpxchg_add", "atomic64")

RUN = """
import ctypes, sys
import numpy as np
from tests.support.paths import LIBRARY
assert ctypes.CDLL(LIBRARY).hsa_init() == 0
from core import runtime
from tests.kernels.suite import CASES
from tests.support.differential import run_on
session = runtime.require()
ran = []
for case in CASES:
    if case.name in sys.argv[1:]:
        path = case.compile("-O0", 32)
        native, _, fallback = run_on(session, case, path, 32, "native")
        assert fallback is None, fallback
        oracle, _, _ = run_on(session, case, path, 32, "interp")
        for index, (got, want) in enumerate(zip(native, oracle)):
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (case.name, index)
        ran.append(case.name)
print(" ".join(ran))
"""


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_results_do_not_depend_on_the_thread_count(threads):
    from tests.support.cprog import env
    done = subprocess.run([sys.executable, "-c", RUN, *CASES], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=env(SOFTGPU_THREADS=threads))
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(done.stdout.split()) == sorted(CASES)
