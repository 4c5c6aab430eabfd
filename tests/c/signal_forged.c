/* Forged, zero, destroyed and pre-shutdown signal handles: the void and value exports
   ignore them (loads read 0) and never crash; status exports answer INVALID_SIGNAL, and
   INVALID_ARGUMENT for handle 0 (ROCr's signal conversion refuses 0 before it looks). */
#include "check.h"
#include <hsa/hsa_ext_amd.h>

static bool dummy_handler(hsa_signal_value_t v, void *arg) { (void)v; (void)arg; return false; }

static void check_ignored(hsa_signal_t bad) {
    hsa_status_t refused = bad.handle ? HSA_STATUS_ERROR_INVALID_SIGNAL : HSA_STATUS_ERROR_INVALID_ARGUMENT;
    CHECK_EQ_U64(hsa_signal_load_relaxed(bad), 0);
    CHECK_EQ_U64(hsa_signal_load_scacquire(bad), 0);
    hsa_signal_store_relaxed(bad, 5);
    hsa_signal_store_screlease(bad, 5);
    hsa_signal_silent_store_relaxed(bad, 5);
    hsa_signal_add_relaxed(bad, 1);
    hsa_signal_subtract_scacq_screl(bad, 1);
    hsa_signal_and_acquire(bad, 1);
    hsa_signal_or_release(bad, 1);
    hsa_signal_xor_relaxed(bad, 1);
    CHECK_EQ_U64(hsa_signal_exchange_relaxed(bad, 3), 0);
    CHECK_EQ_U64(hsa_signal_cas_screlease(bad, 0, 3), 0);
    /* A wait on a signal that does not exist returns at once instead of hanging. */
    CHECK_EQ_U64(hsa_signal_wait_scacquire(bad, HSA_SIGNAL_CONDITION_EQ, 1, UINT64_MAX,
                                           HSA_WAIT_STATE_BLOCKED), 0);
    hsa_signal_condition_t cond = HSA_SIGNAL_CONDITION_EQ;
    hsa_signal_value_t value = 1;
    CHECK_EQ_U64(hsa_amd_signal_wait_any(1, &bad, &cond, &value, UINT64_MAX,
                                         HSA_WAIT_STATE_BLOCKED, NULL), UINT32_MAX);
    CHECK_STATUS(hsa_signal_destroy(bad), refused);
    volatile hsa_signal_value_t *ptr;
    CHECK_STATUS(hsa_amd_signal_value_pointer(bad, &ptr), refused);
    CHECK_STATUS(hsa_amd_signal_async_handler(bad, HSA_SIGNAL_CONDITION_EQ, 0, dummy_handler, NULL), refused);
}

int main(void) {
    hsa_signal_t live, stale, forged = {0x5100000000001234ull}, zero = {0}, other_kind = {0x1100000100000001ull};

    /* Before hsa_init: status exports answer NOT_INITIALIZED, value exports are ignored. */
    CHECK_STATUS(hsa_signal_create(0, 0, NULL, &live), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_EQ_U64(hsa_signal_load_relaxed(forged), 0);
    hsa_signal_store_relaxed(forged, 1);

    CHECK_OK(hsa_init());
    CHECK_OK(hsa_signal_create(7, 0, NULL, &stale));
    CHECK_OK(hsa_signal_destroy(stale));
    CHECK_OK(hsa_signal_create(8, 0, NULL, &live));

    check_ignored(forged);
    check_ignored(zero);
    check_ignored(other_kind);
    check_ignored(stale);
    /* Arrays and out-pointers of wait_any that point nowhere are invalid calls, not crashes. */
    hsa_signal_condition_t eq = HSA_SIGNAL_CONDITION_EQ;
    hsa_signal_value_t eight = 8;
    CHECK_EQ_U64(hsa_amd_signal_wait_any(1, (hsa_signal_t *)(uintptr_t)0x1000, &eq, &eight, 0,
                                         HSA_WAIT_STATE_ACTIVE, NULL), UINT32_MAX);
    CHECK_EQ_U64(hsa_amd_signal_wait_any(1, &live, (hsa_signal_condition_t *)(uintptr_t)0x1000, &eight, 0,
                                         HSA_WAIT_STATE_ACTIVE, NULL), UINT32_MAX);
    CHECK_EQ_U64(hsa_amd_signal_wait_any(4000000000u, &live, &eq, &eight, 0, HSA_WAIT_STATE_ACTIVE, NULL),
                 UINT32_MAX);
    CHECK_EQ_U64(hsa_amd_signal_wait_any(1, &live, &eq, &eight, 0, HSA_WAIT_STATE_ACTIVE,
                                         (hsa_signal_value_t *)(uintptr_t)0x1000), 0);
    hsa_signal_value_t seen = 0;
    CHECK_EQ_U64(hsa_amd_signal_wait_any(1, &live, &eq, &eight, 0, HSA_WAIT_STATE_ACTIVE, &seen), 0);
    CHECK_EQ_U64(seen, 8);

    /* The live signal (which may reuse the stale one's slot) was not touched. */
    CHECK_EQ_U64(hsa_signal_load_relaxed(live), 8);

    /* A handle kept across hsa_shut_down/hsa_init is stale too. */
    CHECK_OK(hsa_shut_down());
    CHECK_OK(hsa_init());
    check_ignored(live);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
