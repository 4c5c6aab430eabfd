"""ROCr 5.2.3's exact answers where the HSA spec leaves room or says otherwise: argument
checks in ROCr's order, its statuses, out-parameter types and units, what the CPU agent
answers (C programs against the official headers, one per behaviour)."""
from tests.support import cprog


def test_nested_init_counts_to_rocr_limit_and_stays_cheap():
    """ROCr's own test nests 2^31 hsa_init calls: every one up to INT32_MAX succeeds, the
    next is REFCOUNT_OVERFLOW, and as many hsa_shut_down calls close the session (about
    40 s on a loaded 2-core machine: a call costs one compare-and-swap)."""
    cprog.check("system_init_nesting.c", timeout=900)
