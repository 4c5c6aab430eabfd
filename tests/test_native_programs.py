"""Real programs on the native tier, as users run them (SOFTGPU_ENGINE=native is the default
outside this suite, whose other tests run the interpreter, the oracle): an HSA C program's
kernels and AMD's HIP runtime with its own blit kernels run translated, with results the
programs check themselves, and the trace says the native tier ran them; a fault there reaches
the client exactly as on the interpreter; destroying a queue stops a long native dispatch."""
import json

import pytest

from tests.support import cprog, hipprog
from tests.support.kernels import compile_opencl
from tests.test_clients import client
from tests.test_hip_client import hip_program

NATIVE = {"SOFTGPU_ENGINE": "native"}


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl("aql_kernels.cl", opt="-O2")


def _dispatch_tiers(trace):
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [e["tier"] for e in events if e["event"] == "dispatch"]


@pytest.mark.parametrize("test", ["dispatch", "threads", "independent_queues"])
def test_hsa_dispatches_run_translated(code_object, test, tmp_path):
    trace = tmp_path / "trace.jsonl"
    cprog.check("aql_dispatch.c", code_object, test, timeout=600, SOFTGPU_TRACE=trace, **NATIVE)
    tiers = _dispatch_tiers(trace)
    assert tiers and set(tiers) == {"native"}, tiers


@pytest.mark.parametrize("engine", ["native", "interp"])
def test_a_kernel_dispatched_again_and_again_stays_right(code_object, engine):
    """After its first dispatch a translated kernel's packets run from the queue's C loop
    (untraced); grid and workgroup sizes, and buffers allocated and freed, change between them."""
    cprog.check("aql_repeat.c", code_object, "results", timeout=600, SOFTGPU_ENGINE=engine)


@pytest.fixture(scope="module")
def image_code_object():
    return compile_opencl("images.cl", opt="-O2")


@pytest.mark.parametrize("engine", ["native", "interp"])
def test_an_image_kernel_dispatched_again_and_again_stays_right(image_code_object, engine):
    """Its image instructions run as callouts to the interpreter, whose context is made per
    dispatch: such a kernel stays off the queues' C loop, and each round sees the last one's
    texels."""
    cprog.check("aql_images.c", image_code_object, timeout=600, SOFTGPU_ENGINE=engine)


def test_an_image_kernel_runs_translated_with_its_image_instructions_as_callouts(image_code_object,
                                                                                 tmp_path):
    trace = tmp_path / "trace.jsonl"
    cprog.check("aql_images.c", image_code_object, timeout=600, SOFTGPU_TRACE=trace, **NATIVE)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert not [e for e in events if e["event"] == "native_fallback"]
    compiled = [e for e in events if e["event"] == "native_compile"]
    assert [e["callouts"] for e in compiled] == [2]         # image_load, image_store
    dispatches = [e for e in events if e["event"] == "dispatch"]
    ran = [e["count"] for e in events if e["event"] == "native_callouts"]
    assert {e["tier"] for e in dispatches} == {"native"} and len(dispatches) == 24
    assert ran == [2 * e["waves"] for e in dispatches]      # each wave ran each once


def test_a_fault_in_a_repeated_native_dispatch_is_reported_as_the_first(code_object):
    proc = cprog.check("aql_repeat.c", code_object, "fault", timeout=300, **NATIVE)
    report = proc.stderr
    assert "MEMORY_APERTURE_VIOLATION" in report and "kernel=store_through" in report, report
    assert "address=0x1000" in report and "instruction=global_store_dword" in report, report
    assert "wave=0" in report and "lane=0" in report and "workgroup=(0, 0, 0)" in report, report


def test_destroying_a_queue_stops_a_long_native_dispatch(code_object):
    cprog.check("aql_dispatch.c", code_object, "destroy_stops_dispatch", timeout=600, **NATIVE)


@pytest.mark.parametrize("case", ["memory_fault", "trap", "grid_max", "grid_max_3d",
                                  "grid_past_max_3d"])
def test_native_faults_reach_the_error_callback(code_object, case):
    cprog.check("aql_errors.c", code_object, case, timeout=300, **NATIVE)


def test_an_unhandled_native_fault_aborts_naming_the_kernel(code_object):
    proc = cprog.run("aql_unhandled.c", code_object, timeout=300, **NATIVE)
    assert proc.returncode < 0 or proc.returncode == 134, proc.stdout + proc.stderr
    assert "MEMORY_APERTURE_VIOLATION" in proc.stderr and "store_through" in proc.stderr


def test_device_malloc_and_virtual_calls_run_translated(tmp_path):
    """HIP's device heap: a hostcall allocates memory while the kernel runs, and the kernel
    stores to it (the native tier's ranges were published before); its virtual calls jump
    through a vtable to methods only .symtab names. Both run translated, as on the GPU."""
    recorded = hipprog.check_ok(client("hip_device_runtime.cpp"), tmp_path=tmp_path,
                                marker="HIP DEVICE RUNTIME OK", **NATIVE)
    heap = [e for e in recorded if e["event"] == "dispatch" and "heap_objects" in e["kernel"]]
    assert heap and all(e["tier"] == "native" for e in heap), heap


def test_hip_programs_and_hips_blit_kernels_run_translated(tmp_path):
    """Every dispatch runs translated, unless the trace says why its kernel could not be."""
    recorded = hipprog.check_ok(hip_program("hip_kernels.cpp"), tmp_path=tmp_path,
                                marker="HIP KERNELS OK", **NATIVE)
    fallbacks = {e["kernel"] for e in recorded if e["event"] == "native_fallback"}
    dispatches = [e for e in recorded if e["event"] == "dispatch"]
    assert any(e["tier"] == "native" for e in dispatches)
    assert all(e["tier"] == "native" or e["kernel"] in fallbacks for e in dispatches), dispatches
