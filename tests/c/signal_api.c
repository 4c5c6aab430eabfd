/* Signal exports that return a status: creation (core and AMD), destruction, value
   pointer, async handlers, signal groups, IPC, and every call before hsa_init. */
#include "check.h"
#include <hsa/hsa_ext_amd.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static bool never(hsa_signal_value_t v, void *arg) { (void)v; (void)arg; return false; }

/* Counts calls and records values; stays armed (returns true) and lowers the signal,
   so it runs exactly once per value from the start down to 1. */
struct countdown {
    hsa_signal_t sig;
    atomic_int calls;
    hsa_signal_value_t seen[8];
};

static bool count_down(hsa_signal_value_t value, void *arg) {
    struct countdown *c = arg;
    int n = atomic_fetch_add(&c->calls, 1);
    if (n < 8) c->seen[n] = value;
    hsa_signal_subtract_screlease(c->sig, 1);
    return true;
}

/* Runs once (returns false) and reports through a second signal. */
struct once {
    hsa_signal_t done;
    atomic_int calls;
};

static bool fire_once(hsa_signal_value_t value, void *arg) {
    struct once *o = arg;
    atomic_fetch_add(&o->calls, 1);
    hsa_signal_store_screlease(o->done, value);
    return false;
}

static void check_before_init(void) {
    hsa_signal_t sig = {1};
    hsa_signal_group_t group = {1};
    volatile hsa_signal_value_t *ptr;
    hsa_amd_ipc_signal_t ipc;
    CHECK_STATUS(hsa_signal_create(0, 0, NULL, &sig), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_signal_create(0, 0, NULL, 0, &sig), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_signal_destroy(sig), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_signal_value_pointer(sig, &ptr), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_signal_async_handler(sig, HSA_SIGNAL_CONDITION_EQ, 0, never, NULL),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_signal_group_create(1, &sig, 0, NULL, &group), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_signal_group_destroy(group), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_ipc_signal_create(sig, &ipc), HSA_STATUS_ERROR_NOT_INITIALIZED);
}

static void check_create(void) {
    hsa_signal_t sig;
    hsa_agent_t bogus = {0x1234};
    CHECK_STATUS(hsa_signal_create(0, 0, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_create(0, 1, NULL, &sig), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* ROCr keeps consumers as hints: an agent that does not exist is no error... */
    CHECK_OK(hsa_signal_create(0, 1, &bogus, &sig));
    CHECK_OK(hsa_signal_destroy(sig));
    CHECK_STATUS(hsa_amd_signal_create(0, 1, NULL, 0, &sig), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_signal_create(0, 1, &bogus, 0, &sig));
    CHECK_OK(hsa_signal_destroy(sig));
    /* ...but an agent named twice is; IPC and GPU-only signals do not read the list at all. */
    hsa_agent_t twice[2] = {bogus, bogus};
    CHECK_STATUS(hsa_signal_create(0, 2, twice, &sig), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_signal_create(0, 2, twice, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &sig));
    CHECK_OK(hsa_signal_destroy(sig));
    CHECK_OK(hsa_amd_signal_create(0, 1, NULL, HSA_AMD_SIGNAL_IPC, &sig));
    CHECK_OK(hsa_signal_destroy(sig));
    CHECK_STATUS(hsa_amd_signal_create(0, 0, NULL, 0, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* Unreadable, unwritable or absurdly long arrays are argument errors, not crashes. */
    CHECK_STATUS(hsa_signal_create(0, 1, (const hsa_agent_t *)(uintptr_t)0x1000, &sig),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_create(0, 0x10000000, &bogus, &sig), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_create(0, 0, NULL, (hsa_signal_t *)(uintptr_t)0x1000),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_create(0, 0, NULL, (hsa_signal_t *)"read-only"),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Distinct signals with their own values; destroy twice is an error. */
    hsa_signal_t a, b;
    CHECK_OK(hsa_signal_create(1, 0, NULL, &a));
    CHECK_OK(hsa_amd_signal_create(2, 0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &b));
    CHECK(a.handle != b.handle);
    CHECK_EQ_U64(hsa_signal_load_relaxed(a), 1);
    CHECK_EQ_U64(hsa_signal_load_relaxed(b), 2);
    CHECK_OK(hsa_signal_destroy(a));
    CHECK_STATUS(hsa_signal_destroy(a), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_OK(hsa_signal_destroy(b));
}

static void check_value_pointer(void) {
    hsa_signal_t sig;
    volatile hsa_signal_value_t *ptr = NULL;
    /* ROCr hands out the value pointer of busy-wait signals only (IPC, GPU-only, or with
       consumers that exclude the CPU), not of the interrupt signals hsa_signal_create makes. */
    CHECK_OK(hsa_signal_create(5, 0, NULL, &sig));
    CHECK_STATUS(hsa_amd_signal_value_pointer(sig, &ptr), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(ptr == NULL);
    CHECK_OK(hsa_signal_destroy(sig));
    CHECK_OK(hsa_amd_signal_create(5, 0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &sig));
    CHECK_STATUS(hsa_amd_signal_value_pointer(sig, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_signal_value_pointer(sig, &ptr));
    CHECK(ptr != NULL && (uintptr_t)ptr % 8 == 0);
    if (ptr) {
        CHECK_EQ_U64(*ptr, 5);
        hsa_signal_store_relaxed(sig, 77);
        CHECK_EQ_U64(*ptr, 77);
        /* A direct write through the pointer is what a load sees. */
        *ptr = 78;
        CHECK_EQ_U64(hsa_signal_load_scacquire(sig), 78);
    }
    CHECK_OK(hsa_signal_destroy(sig));
}

static void check_async_handlers(void) {
    hsa_signal_t sig;
    CHECK_OK(hsa_signal_create(0, 0, NULL, &sig));
    CHECK_STATUS(hsa_amd_signal_async_handler(sig, HSA_SIGNAL_CONDITION_EQ, 0, NULL, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* A handler returning false runs once, with the value that satisfied it. */
    struct once o = {.calls = 0};
    CHECK_OK(hsa_signal_create(0, 0, NULL, &o.done));
    CHECK_OK(hsa_amd_signal_async_handler(sig, HSA_SIGNAL_CONDITION_GTE, 40, fire_once, &o));
    usleep(20000);
    CHECK(atomic_load(&o.calls) == 0);
    hsa_signal_store_screlease(sig, 42);
    CHECK_EQ_U64(hsa_signal_wait_scacquire(o.done, HSA_SIGNAL_CONDITION_NE, 0, 5000000000ull,
                                           HSA_WAIT_STATE_BLOCKED), 42);
    hsa_signal_store_screlease(sig, 0);
    hsa_signal_store_screlease(sig, 43);
    usleep(30000);
    CHECK(atomic_load(&o.calls) == 1);

    /* A handler returning true stays armed while its condition holds. */
    struct countdown c = {.sig = sig, .calls = 0};
    hsa_signal_store_screlease(sig, 0);
    CHECK_OK(hsa_amd_signal_async_handler(sig, HSA_SIGNAL_CONDITION_GTE, 1, count_down, &c));
    hsa_signal_store_screlease(sig, 3);
    CHECK_EQ_U64(hsa_signal_wait_scacquire(sig, HSA_SIGNAL_CONDITION_EQ, 0, 5000000000ull,
                                           HSA_WAIT_STATE_BLOCKED), 0);
    usleep(20000);
    CHECK(atomic_load(&c.calls) == 3);
    CHECK(c.seen[0] == 3 && c.seen[1] == 2 && c.seen[2] == 1);

    /* Destroying a signal with an armed handler drops the handler, never calls it. */
    CHECK_OK(hsa_signal_destroy(sig));
    usleep(20000);
    CHECK(atomic_load(&c.calls) == 3);
    CHECK_OK(hsa_signal_destroy(o.done));

    /* ROCr's handler thread sleeps on interrupt signals only: a busy-wait signal is refused. */
    hsa_signal_t busy;
    CHECK_OK(hsa_amd_signal_create(0, 0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &busy));
    CHECK_STATUS(hsa_amd_signal_async_handler(busy, HSA_SIGNAL_CONDITION_EQ, 0, never, NULL),
                 HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_OK(hsa_signal_destroy(busy));

    /* Left armed on a live signal: hsa_shut_down stops the handler thread regardless. */
    hsa_signal_t pending;
    CHECK_OK(hsa_signal_create(0, 0, NULL, &pending));
    CHECK_OK(hsa_amd_signal_async_handler(pending, HSA_SIGNAL_CONDITION_EQ, 99, never, NULL));
}

static void check_groups(void) {
    hsa_signal_t sigs[2], got = {0}, bogus = {0x5100000000004321ull};
    hsa_signal_group_t group, gone;
    hsa_signal_value_t value = -1;
    hsa_signal_condition_t conds[2] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ};
    hsa_signal_value_t values[2] = {0, 0};
    hsa_agent_t agent_bogus = {0x77};
    CHECK_OK(hsa_signal_create(1, 0, NULL, &sigs[0]));
    CHECK_OK(hsa_signal_create(1, 0, NULL, &sigs[1]));

    CHECK_STATUS(hsa_signal_group_create(0, sigs, 0, NULL, &group), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_group_create(2, sigs, 0, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_group_create(1, &bogus, 0, NULL, &group), HSA_STATUS_ERROR_INVALID_SIGNAL);
    hsa_signal_t with_zero[2] = {sigs[0], {0}};
    CHECK_STATUS(hsa_signal_group_create(2, with_zero, 0, NULL, &group), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_group_create(2, sigs, 1, &agent_bogus, &group), HSA_STATUS_ERROR_INVALID_AGENT);
    /* ROCr checks the signals and agents before it writes the group: those errors win. */
    CHECK_STATUS(hsa_signal_group_create(1, &bogus, 0, NULL, NULL), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_STATUS(hsa_signal_group_create(2, sigs, 1, &agent_bogus, NULL), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_signal_group_create(2, (const hsa_signal_t *)(uintptr_t)0x1000, 0, NULL, &group),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_group_create(2, sigs, 0, NULL, (hsa_signal_group_t *)(uintptr_t)0x1000),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    CHECK_OK(hsa_signal_group_create(2, sigs, 0, NULL, &group));
    hsa_signal_store_screlease(sigs[1], 0);
    CHECK_OK(hsa_signal_group_wait_any_scacquire(group, conds, values, HSA_WAIT_STATE_BLOCKED, &got, &value));
    CHECK_EQ_U64(got.handle, sigs[1].handle);
    CHECK_EQ_U64(value, 0);
    hsa_signal_store_screlease(sigs[1], 5);
    hsa_signal_store_screlease(sigs[0], 0);
    CHECK_OK(hsa_signal_group_wait_any_relaxed(group, conds, values, HSA_WAIT_STATE_ACTIVE, &got, &value));
    CHECK_EQ_U64(got.handle, sigs[0].handle);
    CHECK_STATUS(hsa_signal_group_wait_any_relaxed(group, NULL, values, HSA_WAIT_STATE_ACTIVE, &got, &value),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_signal_group_wait_any_relaxed(group, conds, (const hsa_signal_value_t *)(uintptr_t)0x1000,
                                                   HSA_WAIT_STATE_ACTIVE, &got, &value),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    gone = group;
    CHECK_OK(hsa_signal_group_destroy(group));
    CHECK_STATUS(hsa_signal_group_destroy(gone), HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
    CHECK_STATUS(hsa_signal_group_wait_any_scacquire(gone, conds, values, HSA_WAIT_STATE_BLOCKED, &got, &value),
                 HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);
    hsa_signal_group_t forged = {0x1A00000000000009ull};
    CHECK_STATUS(hsa_signal_group_destroy(forged), HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP);

    /* A group whose signal was destroyed: the wait reports it instead of hanging. */
    CHECK_OK(hsa_signal_group_create(1, &sigs[0], 0, NULL, &group));
    hsa_signal_store_relaxed(sigs[0], 1);
    CHECK_OK(hsa_signal_destroy(sigs[0]));
    CHECK_STATUS(hsa_signal_group_wait_any_scacquire(group, conds, values, HSA_WAIT_STATE_BLOCKED, &got, &value),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_signal_group_destroy(group));
    CHECK_OK(hsa_signal_destroy(sigs[1]));
}

static void check_ipc(void) {
    hsa_signal_t plain, shared, attached;
    hsa_amd_ipc_signal_t ipc;
    memset(&ipc, 0, sizeof ipc);
    CHECK_OK(hsa_signal_create(0, 0, NULL, &plain));
    CHECK_OK(hsa_amd_signal_create(3, 0, NULL, HSA_AMD_SIGNAL_IPC, &shared));
    CHECK_EQ_U64(hsa_signal_load_relaxed(shared), 3); /* works in-process */
    CHECK_STATUS(hsa_amd_ipc_signal_create(plain, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_signal_create(plain, &ipc), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_signal_create((hsa_signal_t){0x5100000000000999ull}, &ipc),
                 HSA_STATUS_ERROR_INVALID_SIGNAL);
    /* Shared with other processes (ipc_memory.c, ipc_processes.c): here, a second handle. */
    CHECK_OK(hsa_amd_ipc_signal_create(shared, &ipc));
    CHECK_OK(hsa_amd_ipc_signal_attach(&ipc, &attached));
    CHECK_EQ_U64(hsa_signal_load_relaxed(attached), 3);
    CHECK_STATUS(hsa_amd_ipc_signal_attach(NULL, &attached), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_ipc_signal_attach(&ipc, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_signal_destroy(attached));
    CHECK_OK(hsa_signal_destroy(plain));
    CHECK_OK(hsa_signal_destroy(shared));
}

int main(void) {
    check_before_init();
    CHECK_OK(hsa_init());
    check_create();
    check_value_pointer();
    check_async_handlers();
    check_groups();
    check_ipc();
    CHECK_OK(hsa_shut_down());
    check_before_init();
    return check_report();
}
