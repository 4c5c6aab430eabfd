"""ROCr 5.2.3's exact answers where the HSA spec leaves room or says otherwise: argument
checks in ROCr's order, its statuses, out-parameter types and units, what the CPU agent
answers (C programs against the official headers, one per behaviour)."""
from tests.support import cprog
from tests.support.kernels import compile_opencl


def test_nested_init_counts_to_rocr_limit_and_stays_cheap():
    """ROCr's own test nests 2^31 hsa_init calls: every one up to INT32_MAX succeeds, the
    next is REFCOUNT_OVERFLOW, and as many hsa_shut_down calls close the session (about
    40 s on a loaded 2-core machine: a call costs one compare-and-swap)."""
    cprog.check("system_init_nesting.c", timeout=900)


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
