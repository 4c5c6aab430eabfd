/* The exports that must not take the GIL: nested hsa_init/hsa_shut_down, every
   memory-order variant of the signal value operations, signal waits and queue index
   operations. Each family is written
   once as a macro and stamped out per memory order, so the variants cannot drift. */
#include "shim.h"
#include "fastpath.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- hsa_init / hsa_shut_down: a reference count in C ----
   ROCr counts nested hsa_init calls in an int32_t and refuses the one that would pass
   INT32_MAX with HSA_STATUS_ERROR_REFCOUNT_OVERFLOW; hsa_shut_down without a session is
   HSA_STATUS_ERROR_NOT_INITIALIZED. Nested calls only move the count (one CAS, no GIL);
   the 0 -> 1 and 1 -> 0 steps run under g_session_lock and enter Python (the session
   entries below, softgpu_shim/api/system.py), so a session is opened or closed by one
   thread at a time and hsa_init returns only once the session is usable. */
hsa_status_t sg_session_open(int *started);
hsa_status_t sg_session_close(void);

static _Atomic int32_t g_init_count;
static pthread_mutex_t g_session_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1: counted; 0: the count is 0 (the session must be opened first); -1: at the limit. */
static int count_nested_init(void) {
    int32_t n = atomic_load(&g_init_count);
    while (n > 0) {
        if (n == INT32_MAX) return -1;
        if (atomic_compare_exchange_weak(&g_init_count, &n, n + 1)) return 1;
    }
    return 0;
}

EXPORT hsa_status_t hsa_init(void) {
    int counted = count_nested_init();
    if (counted) return counted > 0 ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
    pthread_mutex_lock(&g_session_lock);
    hsa_status_t status = HSA_STATUS_SUCCESS;
    counted = count_nested_init();          /* another thread may have opened it meanwhile */
    if (counted < 0) {
        status = HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
    } else if (counted == 0) {
        int started = 0;
        status = sg_session_open(&started);
        /* No Python ran sg_session_open: the runtime could not start (embedding_paths.c).
           The reason is repeated at every failing hsa_init, where a client looks for it. */
        if (!started) {
            status = HSA_STATUS_ERROR;
            const char *why = sg_runtime_failure();
            fprintf(stderr, "softgpu: hsa_init fails: SoftGPU's runtime cannot start: %s\n",
                    why ? why : "no reason was recorded (a SoftGPU bug)");
        }
        if (status == HSA_STATUS_SUCCESS) atomic_store(&g_init_count, 1);
    }
    pthread_mutex_unlock(&g_session_lock);
    return status;
}

EXPORT hsa_status_t hsa_shut_down(void) {
    for (;;) {
        int32_t n = atomic_load(&g_init_count);
        if (n == 0) return HSA_STATUS_ERROR_NOT_INITIALIZED;
        if (n > 1) {
            if (atomic_compare_exchange_weak(&g_init_count, &n, n - 1)) return HSA_STATUS_SUCCESS;
            continue;
        }
        pthread_mutex_lock(&g_session_lock);
        int32_t last = 1;
        /* Counted down first: a concurrent hsa_init now waits for the lock, then reopens. */
        if (atomic_compare_exchange_strong(&g_init_count, &last, 0)) {
            hsa_status_t status = sg_session_close();
            pthread_mutex_unlock(&g_session_lock);
            return status;
        }
        pthread_mutex_unlock(&g_session_lock);
    }
}

#define SIGNAL_LOAD(order_name, order)                                                    \
    EXPORT hsa_signal_value_t hsa_signal_load_##order_name(hsa_signal_t signal) {        \
        sg_signal_slot *s = resolve_or_count(signal.handle);                              \
        return s ? atomic_load_explicit(VALUE(s), order) : 0;                             \
    }
SIGNAL_LOAD(relaxed, memory_order_relaxed)
SIGNAL_LOAD(acquire, memory_order_acquire)
SIGNAL_LOAD(scacquire, memory_order_acquire)

/* Stores and read-modify-writes alike: one atomic_op on the value, then waiters wake. */
#define SIGNAL_WRITE(op, atomic_op, order_name, order)                                    \
    EXPORT void hsa_signal_##op##_##order_name(hsa_signal_t signal,                       \
                                               hsa_signal_value_t value) {                \
        sg_signal_slot *s = resolve_or_count(signal.handle);                              \
        if (!s) return;                                                                   \
        atomic_op(VALUE(s), value, order);                                                \
        wake(s);                                                                          \
    }
SIGNAL_WRITE(store, atomic_store_explicit, relaxed, memory_order_relaxed)
SIGNAL_WRITE(store, atomic_store_explicit, release, memory_order_release)
SIGNAL_WRITE(store, atomic_store_explicit, screlease, memory_order_release)
/* A silent store wakes waiters too: waking early is allowed, sleeping past a change is not. */
SIGNAL_WRITE(silent_store, atomic_store_explicit, relaxed, memory_order_relaxed)
SIGNAL_WRITE(silent_store, atomic_store_explicit, screlease, memory_order_release)

#define SIGNAL_RMW_ALL_ORDERS(op, fetch)                                                  \
    SIGNAL_WRITE(op, fetch, relaxed, memory_order_relaxed)                                \
    SIGNAL_WRITE(op, fetch, acquire, memory_order_acquire)                                \
    SIGNAL_WRITE(op, fetch, scacquire, memory_order_acquire)                              \
    SIGNAL_WRITE(op, fetch, release, memory_order_release)                                \
    SIGNAL_WRITE(op, fetch, screlease, memory_order_release)                              \
    SIGNAL_WRITE(op, fetch, acq_rel, memory_order_acq_rel)                                \
    SIGNAL_WRITE(op, fetch, scacq_screl, memory_order_acq_rel)
SIGNAL_RMW_ALL_ORDERS(add, atomic_fetch_add_explicit)
SIGNAL_RMW_ALL_ORDERS(subtract, atomic_fetch_sub_explicit)
SIGNAL_RMW_ALL_ORDERS(and, atomic_fetch_and_explicit)
SIGNAL_RMW_ALL_ORDERS(or, atomic_fetch_or_explicit)
SIGNAL_RMW_ALL_ORDERS(xor, atomic_fetch_xor_explicit)

#define SIGNAL_EXCHANGE(order_name, order)                                                \
    EXPORT hsa_signal_value_t hsa_signal_exchange_##order_name(hsa_signal_t signal,       \
                                                               hsa_signal_value_t value) {\
        sg_signal_slot *s = resolve_or_count(signal.handle);                              \
        if (!s) return 0;                                                                 \
        hsa_signal_value_t old = atomic_exchange_explicit(VALUE(s), value, order);        \
        wake(s);                                                                          \
        return old;                                                                       \
    }
#define SIGNAL_CAS(order_name, order)                                                     \
    EXPORT hsa_signal_value_t hsa_signal_cas_##order_name(                                \
        hsa_signal_t signal, hsa_signal_value_t expected, hsa_signal_value_t value) {     \
        sg_signal_slot *s = resolve_or_count(signal.handle);                              \
        if (!s) return 0;                                                                 \
        hsa_signal_value_t seen = expected;                                               \
        if (atomic_compare_exchange_strong_explicit(VALUE(s), &seen, value, order,        \
                                                    memory_order_relaxed))                \
            wake(s);                                                                      \
        return seen;                                                                      \
    }
#define SIGNAL_SWAPS(order_name, order) SIGNAL_EXCHANGE(order_name, order) SIGNAL_CAS(order_name, order)
SIGNAL_SWAPS(relaxed, memory_order_relaxed)
SIGNAL_SWAPS(acquire, memory_order_acquire)
SIGNAL_SWAPS(scacquire, memory_order_acquire)
SIGNAL_SWAPS(release, memory_order_release)
SIGNAL_SWAPS(screlease, memory_order_release)
SIGNAL_SWAPS(acq_rel, memory_order_acq_rel)
SIGNAL_SWAPS(scacq_screl, memory_order_acq_rel)

/* Timeout hints are in HSA timestamp ticks; SoftGPU's timestamp clock counts nanoseconds. */
#define SIGNAL_WAIT(order_name)                                                           \
    EXPORT hsa_signal_value_t hsa_signal_wait_##order_name(                               \
        hsa_signal_t signal, hsa_signal_condition_t condition,                            \
        hsa_signal_value_t compare_value, uint64_t timeout_hint,                          \
        hsa_wait_state_t wait_state_hint) {                                               \
        int satisfied;                                                                    \
        (void)wait_state_hint;                                                            \
        return sg_signal_wait(signal.handle, condition, compare_value, timeout_hint,      \
                              &satisfied);                                                \
    }
SIGNAL_WAIT(relaxed)
SIGNAL_WAIT(acquire)
SIGNAL_WAIT(scacquire)

/* The arrays are the caller's: they are copied through the fault-free path
   (safe_memory.c), so a dangling pointer is an invalid call answering UINT32_MAX,
   never a crash. Waits are long; the copies' syscalls do not matter here. */
/* Both multi-signal waits: the caller's arrays copied in, the wait (all: every condition,
   else any), then the satisfying values copied out: wait_any's one value (only when a
   signal satisfied it), wait_all's `signal_count` values (always). */
static uint32_t wait_on_copies(uint32_t signal_count, const hsa_signal_t *signals,
                               const hsa_signal_condition_t *conds, const hsa_signal_value_t *values,
                               uint64_t timeout_hint, int all, hsa_signal_value_t *satisfying) {
    _Static_assert(sizeof(hsa_signal_t) == sizeof(uint64_t), "signal handle is 64-bit");
    _Static_assert(sizeof(hsa_signal_condition_t) == sizeof(int), "conditions are ints");
    if (signal_count > SG_MAX_SIGNALS || !signals || !conds || !values) {
        atomic_fetch_add(&g_invalid_calls, 1);
        return UINT32_MAX;
    }
    /* Most waits name a few signals (HIP waits on one or two): those copy onto the stack. */
    enum { ON_STACK = 16 };
    uint64_t small_handles[ON_STACK];
    int small_conds[ON_STACK];
    int64_t small_values[ON_STACK], small_seen[ON_STACK] = {0};
    int on_stack = signal_count <= ON_STACK;
    uint64_t *handles = on_stack ? small_handles : malloc(sizeof *handles * signal_count);
    int *conditions = on_stack ? small_conds : malloc(sizeof *conditions * signal_count);
    int64_t *compare = on_stack ? small_values : malloc(sizeof *compare * signal_count);
    int64_t *seen = on_stack ? small_seen : calloc(signal_count, sizeof *seen);
    uint32_t found = UINT32_MAX;
    if (!handles || !conditions || !compare || !seen ||
        sg_safe_copy(handles, signals, sizeof *handles * signal_count) != 0 ||
        sg_safe_copy(conditions, conds, sizeof *conditions * signal_count) != 0 ||
        sg_safe_copy(compare, values, sizeof *compare * signal_count) != 0) {
        atomic_fetch_add(&g_invalid_calls, 1);
    } else {
        found = (all ? sg_signal_wait_all : sg_signal_wait_any)(signal_count, handles, conditions, compare,
                                                               timeout_hint, seen);
        size_t out = all ? sizeof *seen * signal_count : found != UINT32_MAX ? sizeof *seen : 0;
        if (satisfying && out && sg_safe_copy(satisfying, seen, out) != 0)
            atomic_fetch_add(&g_invalid_calls, 1);
    }
    if (!on_stack) {
        free(handles);
        free(conditions);
        free(compare);
        free(seen);
    }
    return found;
}

EXPORT uint32_t hsa_amd_signal_wait_any(uint32_t signal_count, hsa_signal_t *signals,
                                        hsa_signal_condition_t *conds,
                                        hsa_signal_value_t *values, uint64_t timeout_hint,
                                        hsa_wait_state_t wait_hint,
                                        hsa_signal_value_t *satisfying_value) {
    (void)wait_hint;
    if (signal_count == 0) {
        atomic_fetch_add(&g_invalid_calls, 1);
        return UINT32_MAX;
    }
    return wait_on_copies(signal_count, signals, conds, values, timeout_hint, 0, satisfying_value);
}

/* ROCr 6.2+. ROCr reads the arrays unchecked; here a count beyond the signal table or an
   unreadable array answers UINT32_MAX. satisfying_values, when given, gets every entry:
   0 for the null and dead handles ROCr counts as satisfied, and also on a timeout. */
EXPORT uint32_t hsa_amd_signal_wait_all(uint32_t signal_count, hsa_signal_t *signals,
                                        hsa_signal_condition_t *conds,
                                        hsa_signal_value_t *values, uint64_t timeout_hint,
                                        hsa_wait_state_t wait_hint,
                                        hsa_signal_value_t *satisfying_values) {
    (void)wait_hint;
    if (atomic_load(&g_init_count) == 0) return UINT32_MAX;   /* ROCr: NOT_INITIALIZED, caught */
    if (signal_count == 0) return 0;
    return wait_on_copies(signal_count, signals, conds, values, timeout_hint, 1, satisfying_values);
}

#define QUEUE_LOAD(which, field, order_name, order)                                       \
    EXPORT uint64_t hsa_queue_load_##which##_index_##order_name(const hsa_queue_t *queue) {\
        amd_queue_t *q = queue_or_count(queue);                                           \
        return q ? atomic_load_explicit(field(q), order) : 0;                             \
    }
QUEUE_LOAD(read, READ_INDEX, relaxed, memory_order_relaxed)
QUEUE_LOAD(read, READ_INDEX, acquire, memory_order_acquire)
QUEUE_LOAD(read, READ_INDEX, scacquire, memory_order_acquire)
QUEUE_LOAD(write, WRITE_INDEX, relaxed, memory_order_relaxed)
QUEUE_LOAD(write, WRITE_INDEX, acquire, memory_order_acquire)
QUEUE_LOAD(write, WRITE_INDEX, scacquire, memory_order_acquire)

#define QUEUE_STORE(which, field, order_name, order)                                      \
    EXPORT void hsa_queue_store_##which##_index_##order_name(const hsa_queue_t *queue,    \
                                                             uint64_t value) {            \
        amd_queue_t *q = queue_or_count(queue);                                           \
        if (q) atomic_store_explicit(field(q), value, order);                             \
    }
QUEUE_STORE(write, WRITE_INDEX, relaxed, memory_order_relaxed)
QUEUE_STORE(write, WRITE_INDEX, release, memory_order_release)
QUEUE_STORE(write, WRITE_INDEX, screlease, memory_order_release)
QUEUE_STORE(read, READ_INDEX, relaxed, memory_order_relaxed)
QUEUE_STORE(read, READ_INDEX, release, memory_order_release)
QUEUE_STORE(read, READ_INDEX, screlease, memory_order_release)

#define QUEUE_WRITE_RMW(order_name, order)                                                \
    EXPORT uint64_t hsa_queue_add_write_index_##order_name(const hsa_queue_t *queue,      \
                                                           uint64_t value) {              \
        amd_queue_t *q = queue_or_count(queue);                                           \
        return q ? atomic_fetch_add_explicit(WRITE_INDEX(q), value, order) : 0;           \
    }                                                                                     \
    EXPORT uint64_t hsa_queue_cas_write_index_##order_name(const hsa_queue_t *queue,      \
                                                           uint64_t expected,             \
                                                           uint64_t value) {              \
        amd_queue_t *q = queue_or_count(queue);                                           \
        if (!q) return 0;                                                                 \
        uint64_t seen = expected;                                                         \
        atomic_compare_exchange_strong_explicit(WRITE_INDEX(q), &seen, value, order,      \
                                                memory_order_relaxed);                    \
        return seen;                                                                      \
    }
QUEUE_WRITE_RMW(relaxed, memory_order_relaxed)
QUEUE_WRITE_RMW(acquire, memory_order_acquire)
QUEUE_WRITE_RMW(scacquire, memory_order_acquire)
QUEUE_WRITE_RMW(release, memory_order_release)
QUEUE_WRITE_RMW(screlease, memory_order_release)
QUEUE_WRITE_RMW(acq_rel, memory_order_acq_rel)
QUEUE_WRITE_RMW(scacq_screl, memory_order_acq_rel)
