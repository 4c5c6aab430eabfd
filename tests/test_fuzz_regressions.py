"""Fuzz regressions: every bug the harnesses of tests/fuzz found replays here, from the
minimized input kept as a literal (hex/base64, no binary files), through the harness that
found it. A replay passes when the harness runs the input to the end: no crash, no hang,
no broken invariant, and less than REPLAY_RSS_LIMIT_MB of memory. The library's behaviour
on the same inputs is asserted directly in tests/c/loader_dangling_pointers.c and
tests/c/memory_huge_ranges.c.
"""
import base64
import os
import subprocess
import sys

import pytest

from tests.fuzz import run as fuzz
from tests.support import cprog
from tests.support.kernels import compile_opencl
from tests.support.paths import ROOT

# Every replay stays near the harness's own ~100 MB; a runtime that allocates in proportion
# to a hostile size does not.
REPLAY_RSS_LIMIT_MB = 512


def _code_object_patch(offset, value, width_log2=3):
    """A code_object.c patch-mode input: one field of the base object set to `value`."""
    return b"P" + bytes([width_log2]) + offset.to_bytes(8, "little") + value.to_bytes(8, "little")


# (harness, name, input, what went wrong before the fix)
REGRESSIONS = [
    ("api_sequence", "reader_from_dangling_memory",
     base64.b64decode("AAABAgMEBQYHfyUGBwCl/wMAAAABAA=="),
     "hsa_code_object_reader_create_from_memory read a dangling pointer: SIGSEGV in the loader's "
     "copy of the caller's bytes (fixed: softgpu_shim/api/out.py read_bytes)"),
    ("code_object", "pt_load_with_impossible_alignment",
     # p_align of the third program header (a PT_LOAD) of aql_kernels.cl set to 0x2f100.
     _code_object_patch(64 + 3 * 56 + 48, 0x2F100),
     "a PT_LOAD whose p_align is no power of two loaded, then hsa_executable_destroy failed with "
     "an internal OSError (fixed in the loader: such objects are refused at load)"),
    ("api_sequence", "lock_and_register_with_absurd_sizes",
     base64.b64decode("BX58fHx8fHx8fHx8fHx8I3x8" + "////" * 37 + "fHx8AwQLBmAHAgEQAA=="),
     "hsa_memory_register/hsa_amd_memory_lock of a mapped start with a huge size allocated one byte "
     "per page of the range (seconds, gigabytes; a 41 s fuzzer timeout) (fixed: core/memory/host.py "
     "is_mapped checks in fixed-size mincore steps)"),
    ("kernarg_grid", "scale_add_reading_at_the_top_of_the_address_space",
     base64.b64decode("AAD//////////////wD3+///AAACASABAXUzMg=="),
     "scale_add given a = 2**64-1: the engine's range check wrapped past 2**64 and passed the load, "
     "which then failed with an internal AttributeError (fixed: core/isa/interp/memory.py checks for "
     "wrap; see tests/isa/test_engine_wrapping_addresses.py)"),
    ("aql_packets", "destroy_during_a_dispatch_of_two_billion_work_items",
     base64.b64decode("AAKUTw=="),
     "an empty-kernel dispatch whose grid_size_x byte 3 became 0x94 (2.5e9 work-items): "
     "hsa_queue_destroy waited for it to finish, for hours (fixed: destroying or deactivating a "
     "queue stops its dispatch between chunks; see tests/c/aql_dispatch.c destroy_stops_dispatch)"),
]


@pytest.fixture(scope="module")
def harnesses(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("fuzz"))
    return {name: fuzz.build(name, directory) for name in {r[0] for r in REGRESSIONS}}


@pytest.mark.parametrize("harness, name, data, what", REGRESSIONS, ids=[r[1] for r in REGRESSIONS])
def test_minimized_input_replays_cleanly(harnesses, tmp_path, harness, name, data, what):
    path = tmp_path / name
    path.write_bytes(data)
    proc = subprocess.run([harnesses[harness], f"-timeout={fuzz.PER_INPUT_TIMEOUT_S[harness]}",
                           f"-rss_limit_mb={REPLAY_RSS_LIMIT_MB}", str(path)],
                          env=fuzz.fuzz_environment(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{what}\n{proc.stderr[-4000:]}"


def test_loader_exports_reject_dangling_and_read_only_pointers():
    cprog.check("loader_dangling_pointers.c", compile_opencl("aql_kernels.cl", opt="-O2"))


def test_absurd_sizes_and_array_counts_answer_without_memory_in_proportion():
    cprog.check("memory_huge_ranges.c")


def test_harnesses_and_seed_corpora_build(tmp_path):
    """run.py's own parts: every harness compiles and links, every seed corpus is non-empty."""
    for name in fuzz.HARNESSES:
        assert os.access(fuzz.build(name, str(tmp_path)), os.X_OK)
        fuzz.seeds(name, str(tmp_path / f"{name}-seeds"))
        assert os.listdir(tmp_path / f"{name}-seeds")


def test_internal_errors_abort_when_fuzzing():
    """SOFTGPU_INTERNAL_ERRORS=abort (run.py sets it) turns a caught bug into a crash with its traceback."""
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from core import trace\n"
              "try:\n    {}['missing']\nexcept KeyError as e:\n    trace.internal_error('hsa_test', e)\n"
              "print('survived')")
    aborted = subprocess.run([sys.executable, "-c", script, ROOT], env=cprog.env(SOFTGPU_INTERNAL_ERRORS="abort"),
                             capture_output=True, text=True, timeout=60)
    assert aborted.returncode < 0 and "survived" not in aborted.stdout
    assert "internal error in hsa_test" in aborted.stderr and "KeyError: 'missing'" in aborted.stderr
    reported = subprocess.run([sys.executable, "-c", script, ROOT], env=cprog.env(SOFTGPU_QUIET=1),
                              capture_output=True, text=True, timeout=60)
    assert reported.returncode == 0 and "survived" in reported.stdout
