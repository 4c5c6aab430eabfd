/* A signal handle is the address of its amd_signal_t, as in ROCr (device code relies on
   it), and handles stay unique: a destroyed one never comes back to life, even when the
   same signal is created and destroyed over and over. */
#include <hsa/amd_hsa_signal.h>
#include <hsa/hsa_ext_amd.h>

#include "check.h"

int main(void) {
    CHECK_OK(hsa_init());
    hsa_signal_t s;
    CHECK_OK(hsa_amd_signal_create(42, 0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY, &s));
    amd_signal_t *amd = (amd_signal_t *)(uintptr_t)s.handle;
    CHECK_EQ_U64(amd->value, 42);
    CHECK_EQ_U64(amd->kind, AMD_SIGNAL_KIND_USER);
    hsa_signal_store_screlease(s, 7);
    CHECK_EQ_U64(amd->value, 7);
    __atomic_fetch_add(&amd->value, 5, __ATOMIC_SEQ_CST); /* what device code does */
    CHECK_EQ_U64(hsa_signal_load_scacquire(s), 12);
    volatile hsa_signal_value_t *value;
    CHECK_OK(hsa_amd_signal_value_pointer(s, &value));
    CHECK_EQ_U64(*value, 12);
    CHECK_OK(hsa_signal_destroy(s));

    /* Create/destroy churn: every old handle stays dead. */
    enum { ROUNDS = 2000 };
    static uint64_t old[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        hsa_signal_t t;
        CHECK_OK(hsa_signal_create(i, 0, NULL, &t));
        old[i] = t.handle;
        CHECK_OK(hsa_signal_destroy(t));
    }
    int revived = 0;
    for (int i = 0; i < ROUNDS; i++)
        revived += hsa_signal_destroy((hsa_signal_t){old[i]}) != HSA_STATUS_ERROR_INVALID_SIGNAL;
    CHECK_EQ_U64(revived, 0);
    /* A handle into the table but not at a slot's start is forged. */
    hsa_signal_t live;
    CHECK_OK(hsa_signal_create(1, 0, NULL, &live));
    CHECK_STATUS(hsa_signal_destroy((hsa_signal_t){live.handle + 8}), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_OK(hsa_signal_destroy(live));
    CHECK_OK(hsa_shut_down());
    /* After shutdown the handle is stale as well. */
    CHECK_EQ_U64(hsa_signal_load_relaxed(live), 0);
    return check_report();
}
