"""Concurrency stress: C programs whose threads hammer one part of the runtime at once,
each bounded to a few seconds, each with exact invariants (see each program's header):
signals (no lost atomic update, every waiter wakes), queue slot reservations (distinct,
gap-free), allocations (no overlap, free memory exact afterwards) and init/shutdown
(reference count exact)."""
import pytest

from tests.support import cprog

THREADS = 4


@pytest.mark.parametrize("program, work", [
    ("stress_signals.c", 200000),    # rounds of five atomic operations per thread
    ("stress_queues.c", 200000),     # write-index reservations per thread
    ("stress_memory.c", 4000),       # allocate/write/check/free rounds per thread
    ("stress_init.c", 1000),         # hsa_init/hsa_shut_down cycles per thread
])
def test_threads_keep_exact_invariants(program, work):
    cprog.check(program, THREADS, work, timeout=60)
