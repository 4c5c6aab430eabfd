"""ROCr's virtual memory API and dma-buf export (C programs against the official headers and
tests/c/hsa_newest.h, the newest ROCr's declarations the 5.2.3 headers lack)."""
import json

import pytest

from tests.support import cprog
from tests.support.kernels import compile_opencl


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl("aql_kernels.cl", opt="-O2")


def test_reserve_handles_map_access_and_every_bad_argument(code_object):
    cprog.check("vmem_api.c", code_object, "api", timeout=300)


@pytest.mark.parametrize("engine", ["interp", "native"])
def test_kernels_reach_mapped_ranges_and_fault_on_unmapped_ones(code_object, tmp_path, engine):
    """On both tiers: a kernel computes through a mapped range; before access is set, with
    access NONE and after the unmap, the same dispatch faults with the usual report."""
    trace = tmp_path / "trace.jsonl"
    cprog.check("vmem_api.c", code_object, "kernel", timeout=600, SOFTGPU_TRACE=trace, SOFTGPU_ENGINE=engine)
    errors = [e for e in map(json.loads, trace.read_text().splitlines()) if e["event"] == "queue_error"]
    assert len(errors) == 3
    for error in errors:
        assert error["status_name"] == "ERROR_MEMORY_APERTURE_VIOLATION"
        assert error["report"]["kernel"] == "scale_add"


def test_shareable_handles_between_processes_and_dmabuf_export(code_object):
    """A child imports the parent's physical memory by descriptor, maps it, reads the parent's
    bytes and computes on them; a dma-buf of an allocation imports as the same bytes."""
    cprog.check("vmem_api.c", code_object, "share", timeout=600)
