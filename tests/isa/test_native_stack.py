"""The native tier's stacks: a wave function's frame can take megabytes (kernels compiled at -O0,
whose every spilled value has a slot of its own: gfx90a's mfma_f64_16x16x4f64 at -O0 takes
11 MiB), more than the thread that calls hsa_* (a host program's, 8 MiB by default, or less)
holds. Such a kernel runs right whatever stack its caller has, and a frame no native thread
holds goes to the interpreter.
"""
import json
import os
import subprocess
import sys

from core.isa.native import runner_layout as C
from core.isa.native.dispatch import frame_fits
from tests.support.paths import LIBRARY, ROOT

# Runs one kernel-suite build on the native tier from a Python thread with a small stack
# (Python runs fine in it; the kernel's frame alone is larger) and prints "ok" when its
# outputs pass the case's check.
CHILD = r"""
import ctypes, os, sys, threading
sys.path.insert(0, {root!r})
lib = ctypes.CDLL({library!r})
assert lib.hsa_init() == 0
from core import runtime
from tests.kernels.suite import CASES
from tests.support.suite_run import run_checked

session = runtime.require()
case = next(c for c in CASES if c.name == {case!r})
path = case.compile("-O0", 64, 4, "gfx90a")
result = []

def run():
    run_checked(session, case, path, 64)
    result.append("ok")

threading.stack_size({stack_kib} * 1024)
thread = threading.Thread(target=run)
thread.start()
thread.join()
print(result[0] if result else "failed")
"""

# gfx90a -O0, quick to translate, with a frame well above the caller's stack: 802 KiB with
# llvmlite 0.50 (LLVM 22.1). The frame is LLVM's codegen's choice: atomic_minmax_bits, once
# ~400 KiB, takes 140 KiB there, so the test states the frame it relies on below.
CASE = "ndrange_1d"
CALLER_STACK_KIB = 320


def _run_child(tmp_path, threads):
    trace = tmp_path / f"trace{threads}.jsonl"
    env = dict(os.environ, SOFTGPU_ENGINE="native", SOFTGPU_THREADS=str(threads),
               SOFTGPU_PROFILE=os.path.join(ROOT, "profiles", "mi210.json"),
               SOFTGPU_TRACE=str(trace), XDG_CACHE_HOME=str(tmp_path / "cache"))
    child = CHILD.format(root=ROOT, library=LIBRARY, case=CASE, stack_kib=CALLER_STACK_KIB)
    done = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True,
                          timeout=600)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return done, events


def test_kernel_with_a_frame_larger_than_its_callers_stack_runs_natively(tmp_path):
    for threads in (1, 2):     # the calling thread's share alone, and beside a pool thread
        done, events = _run_child(tmp_path, threads)
        assert done.returncode == 0 and done.stdout.strip() == "ok", \
            f"{threads} thread(s): exit {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
        compiled = [e for e in events if e["event"] == "native_compile" and e["kernel"] == CASE]
        assert compiled and not [e for e in events if e["event"] == "native_fallback"]
        # The kernel is one whose frame the caller's stack cannot hold, and above the frames
        # the calling thread runs itself.
        assert compiled[0]["frame_kib"] > CALLER_STACK_KIB > C.CALLER_FRAME_KIB, \
            f"{CASE}'s frame no longer outgrows the caller's stack: pick a case with a larger one"


def test_frames_fit_a_native_thread_up_to_its_stack_less_the_margin():
    limit = C.THREAD_STACK_KIB - C.STACK_MARGIN_KIB
    assert frame_fits(0) and frame_fits(limit)
    assert not frame_fits(limit + 1)
