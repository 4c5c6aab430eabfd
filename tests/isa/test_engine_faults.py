"""Kernel faults: reported with kernel, PC, instruction, workgroup, wave, lane and address,
raised before the faulting access writes anything, never a crash."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from tests.support.launch import launch
from softgpu_shim.hsa_abi import Status
from tests.support.kernels import compile_opencl

WILD_STORE = """
kernel void wild(global int *out, int stride) {
  size_t i = get_global_id(0);
  out[i * stride] = 7;
}
"""


def test_a_store_outside_every_allocation_faults_and_writes_nothing(session):
    co = compile_opencl(WILD_STORE, opt="-O2")
    out = np.zeros(64, np.int32)
    with pytest.raises(KernelFault) as caught:
        launch(session, co, "wild", [out, np.int32(1 << 22)], 64, 32)
    fault = caught.value
    assert fault.status == Status.ERROR_MEMORY_APERTURE_VIOLATION
    report = fault.report
    assert report["kernel"] == "wild"
    assert report["instruction"].startswith("global_store_dword")
    assert report["workgroup"] == (0, 0, 0) and report["wave"] == 0
    assert report["lane"] == 1                        # lane 0 stays inside the buffer
    assert report["address"] is not None and report["pc"] is not None
    assert "outside every live allocation" in report["reason"]


LATE_WILD = """
kernel void late_wild(global int *out, int first_bad) {
  size_t i = get_global_id(0);
  bool wild = i >= first_bad && i < first_bad + 32;
  out[wild ? i + (1 << 24) : i] = 7;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_an_access_faults_where_earlier_waves_of_its_instruction_stayed_inside(session, tier):
    """The native tier remembers per instruction the allocation it hit last: a later wave of
    the same instruction that leaves it still faults, with the same report on both tiers."""
    from tests.support.differential import engine
    co = compile_opencl(LATE_WILD, opt="-O2")
    with engine(tier), pytest.raises(KernelFault) as caught:
        launch(session, co, "late_wild", [np.zeros(1024, np.int32), np.int32(640)], 1024, 64)
    report = caught.value.report
    assert report["instruction"].startswith("global_store_dword")
    assert (report["workgroup"], report["wave"], report["lane"]) == ((10, 0, 0), 0, 0)


def test_lanes_inside_memory_do_not_store_when_another_lane_faults(session, monkeypatch):
    # Launch keeps its buffers until the dispatch returns, so run the dispatch directly.
    from tests.support import launch as testlaunch
    co = compile_opencl(WILD_STORE, opt="-O2")
    kept = {}
    original = testlaunch.run_dispatch

    def run_and_keep(session_, kernel, **kw):
        try:
            return original(session_, kernel, **kw)
        finally:
            kernarg = session_.arena.view(kw["kernarg_address"], 8).view(np.uint64)[0]
            kept["out"] = session_.arena.view(int(kernarg), 4).view(np.int32).copy()
    monkeypatch.setattr(testlaunch, "run_dispatch", run_and_keep)
    with pytest.raises(KernelFault):
        launch(session, co, "wild", [np.zeros(64, np.int32), np.int32(1 << 22)], 64, 32)
    assert kept["out"][0] == 0                         # lane 0's in-bounds store never happened


TRAP = """
kernel void trap(global int *out) {
  if (get_global_id(0) == 37) __builtin_trap();
  out[get_global_id(0)] = 1;
}
"""


def test_a_trap_is_a_hardware_exception_naming_its_wave(session):
    co = compile_opencl(TRAP, opt="-O2")
    with pytest.raises(KernelFault) as caught:
        launch(session, co, "trap", [np.zeros(64, np.int32)], 64, 32)
    assert caught.value.status == Status.ERROR_EXCEPTION          # as ROCr reports a trap
    assert caught.value.report["instruction"].startswith("s_trap")
    assert caught.value.report["workgroup"] == (1, 0, 0) and caught.value.report["wave"] == 0


SPIN = """
kernel void spin(global volatile int *flag) {
  while (flag[0] == 0) { }
}
"""


def test_a_kernel_that_never_ends_trips_the_watchdog(session):
    co = compile_opencl(SPIN, opt="-O2")
    with pytest.raises(KernelFault) as caught:
        launch(session, co, "spin", [np.zeros(1, np.int32)], 32, 32, watchdog_instructions=5000)
    assert caught.value.status == Status.ERROR_ILLEGAL_INSTRUCTION
    assert "watchdog" in caught.value.report["reason"]


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_launch_frees_its_allocations_after_a_fault(session, opt):
    # At -O0 the kernel also has scratch, which the dispatch allocates and must free.
    from tests.support.launch import loaded_kernel
    co = compile_opencl(WILD_STORE, opt=opt)
    loaded_kernel(session, co, "wild")            # the code object itself stays loaded
    before = session.arena.used
    with pytest.raises(KernelFault):
        launch(session, co, "wild", [np.zeros(64, np.int32), np.int32(1 << 22)], 64, 32)
    assert session.arena.used == before


VADD = """
kernel void vadd(global const float *a, global const float *b, global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
"""


def test_corrupted_code_only_ever_completes_or_faults(session, monkeypatch):
    # A buggy program overwrites kernel code in device memory: whatever the bytes decode to,
    # the dispatch ends normally or with a KernelFault, never with any other exception.
    from core.isa.interp import dispatch
    from core.isa.interp.code import Code
    from tests.support.launch import loaded_kernel
    co = compile_opencl(VADD, opt="-O2")
    kernel = loaded_kernel(session, co, "vadd")
    code = session.arena.view(kernel.entry, 0x98).view(np.uint32)
    original = code.copy()
    monkeypatch.setattr(dispatch, "code_for", lambda arena, kernel, desc: Code(arena, desc))
    rng = np.random.default_rng(6)
    outcomes = set()
    try:
        for trial in range(120):
            code[:] = original
            for _ in range(rng.integers(1, 4)):
                word = rng.integers(2, code.size - 1)
                if trial % 2:
                    code[word] ^= np.uint32(1) << np.uint32(rng.integers(0, 32))
                else:
                    code[word] = rng.integers(0, 1 << 32, dtype=np.uint64)
            try:
                launch(session, co, "vadd", [np.ones(32, np.float32)] * 3, 32, 32,
                       watchdog_instructions=2000)
                outcomes.add("completed")
            except KernelFault as fault:
                outcomes.add(fault.status)
    finally:
        code[:] = original
    assert outcomes == {"completed", Status.ERROR_ILLEGAL_INSTRUCTION,
                        Status.ERROR_MEMORY_APERTURE_VIOLATION}


def test_a_dispatch_refused_before_it_runs_names_the_kernels_entry(session):
    from core.isa.decoder import decode
    from core.isa.disasm import format_instruction
    from tests.support.launch import loaded_kernel
    co = compile_opencl(WILD_STORE, opt="-O2")
    kernel = loaded_kernel(session, co, "wild")
    first = format_instruction(decode(session.arena.bytes, kernel.entry - session.arena.base, kernel.entry, False))
    with pytest.raises(KernelFault) as caught:
        launch(session, co, "wild", [np.zeros(64, np.int32), np.int32(1)], 64, 32,
               group_segment_size=64 * 1024 + 1)
    report = caught.value.report
    assert caught.value.status == Status.ERROR_INVALID_ALLOCATION
    assert (report["kernel"], report["pc"], report["instruction"]) == ("wild", kernel.entry, first)
    assert "65537 bytes of group segment" in report["reason"]
    assert f"pc={kernel.entry:#x}" in str(caught.value)
