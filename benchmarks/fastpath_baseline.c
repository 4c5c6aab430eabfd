/* The baseline of fastpath_bench.c, built as its own shared library: the same atomic
   operations behind a plain exported call, so that both sides pay a call through the PLT
   into a shared object, as every hsa_* export does. */
#include <stdatomic.h>
#include <stdint.h>

int64_t baseline_load_relaxed(const _Atomic int64_t *value) {
    return atomic_load_explicit(value, memory_order_relaxed);
}

uint64_t baseline_fetch_add_relaxed(_Atomic uint64_t *value, uint64_t delta) {
    return atomic_fetch_add_explicit(value, delta, memory_order_relaxed);
}
