"""ROCr 5.2.3's exact answers where the HSA spec leaves room or says otherwise: argument
checks in ROCr's order, its statuses, out-parameter types and units, what the CPU agent
answers (C programs against the official headers, one per behaviour)."""
import json
import os

from tests.support import cprog
from tests.support.kernels import compile_opencl


def test_nested_init_counts_to_rocr_limit_and_stays_cheap():
    """ROCr's own test nests 2^31 hsa_init calls: every one up to INT32_MAX succeeds, the
    next is REFCOUNT_OVERFLOW, and as many hsa_shut_down calls close the session (about
    40 s on a loaded 2-core machine: a call costs one compare-and-swap)."""
    cprog.check("system_init_nesting.c", timeout=900)


def test_nested_inits_share_one_session_until_the_last_shut_down():
    """The quick form of the test above: three nested hsa_init calls succeed, the session
    stays open through two hsa_shut_down calls and closes at the third."""
    cprog.check("system_init_nesting.c", 3)


def test_cpu_agent_describes_this_machine():
    """Model name, online CPUs, clock, memory and every data/unified cache (in KiB), as ROCr
    reads them through KFD's topology; the program reads the machine itself to compare."""
    cprog.check("agents_host_cpu.c", SOFTGPU_PROFILE="gfx1030")


def test_a_profile_pins_the_cpu_agent_for_reproducible_runs():
    cprog.check("agents_host_cpu.c", "SoftGPU Host CPU", 2, 2000, 1 << 30, "32,256", SOFTGPU_PROFILE="generic")


def test_async_copies_profiling_and_queue_pointers_answer_as_rocr():
    cprog.check("rocr_async_queue_answers.c")


def test_extensions_isas_and_loader_answer_as_rocr():
    cprog.check("rocr_misc_answers.c", compile_opencl("loader_tables.cl"))


def test_generic_targets_and_v6_objects_through_the_abi(tmp_path):
    """ISA names, hsa_isa_compatible and loads of v6 objects as the newest ROCr answers them;
    the refused load's trace line names the family the agent belongs to."""
    from tests.support.kernels import KERNELS
    from tests.support.objects import llvm_kernel
    with open(os.path.join(KERNELS, "scale.ll")) as f:
        ir = f.read()
    trace = tmp_path / "trace.jsonl"
    cprog.check("isa_generic_targets.c", *(llvm_kernel(ir, cpu) for cpu in
                                           ("gfx1030", "gfx10-3-generic", "gfx11-generic")),
                SOFTGPU_TRACE=trace)
    refusals = [json.loads(line) for line in trace.read_text().splitlines()
                if '"ERROR_INCOMPATIBLE_ARGUMENTS"' in line or "INCOMPATIBLE" in line]
    assert any("gfx1030 belongs to gfx10-3-generic, not gfx11-generic" in json.dumps(r) for r in refusals), refusals
