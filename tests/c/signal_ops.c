/* Every signal value operation, in every memory order, on a live signal: the value
   each one leaves and the value each one returns. */
#include "check.h"

static hsa_signal_t sig;

static void reset(hsa_signal_value_t v) { hsa_signal_store_relaxed(sig, v); }

#define CHECK_RMW(fn, start, operand, expected)                                    \
    do {                                                                           \
        reset(start);                                                              \
        fn(sig, operand);                                                          \
        CHECK_EQ_U64(hsa_signal_load_relaxed(sig), (expected));                    \
    } while (0)

#define CHECK_RMW_ALL(op, start, operand, expected)                                \
    CHECK_RMW(hsa_signal_##op##_relaxed, start, operand, expected);                \
    CHECK_RMW(hsa_signal_##op##_acquire, start, operand, expected);                \
    CHECK_RMW(hsa_signal_##op##_scacquire, start, operand, expected);              \
    CHECK_RMW(hsa_signal_##op##_release, start, operand, expected);                \
    CHECK_RMW(hsa_signal_##op##_screlease, start, operand, expected);              \
    CHECK_RMW(hsa_signal_##op##_acq_rel, start, operand, expected);                \
    CHECK_RMW(hsa_signal_##op##_scacq_screl, start, operand, expected)

#define CHECK_SWAP(order)                                                          \
    do {                                                                           \
        reset(5);                                                                  \
        CHECK_EQ_U64(hsa_signal_exchange_##order(sig, 9), 5);                      \
        CHECK_EQ_U64(hsa_signal_load_scacquire(sig), 9);                           \
        CHECK_EQ_U64(hsa_signal_cas_##order(sig, 9, 11), 9);  /* swaps */          \
        CHECK_EQ_U64(hsa_signal_load_scacquire(sig), 11);                          \
        CHECK_EQ_U64(hsa_signal_cas_##order(sig, 9, 13), 11); /* does not */       \
        CHECK_EQ_U64(hsa_signal_load_scacquire(sig), 11);                          \
    } while (0)

int main(void) {
    CHECK_OK(hsa_init());
    CHECK_OK(hsa_signal_create(42, 0, NULL, &sig));
    CHECK(sig.handle != 0);

    CHECK_EQ_U64(hsa_signal_load_relaxed(sig), 42);
    CHECK_EQ_U64(hsa_signal_load_scacquire(sig), 42);
    CHECK_EQ_U64(hsa_signal_load_acquire(sig), 42);

    hsa_signal_store_relaxed(sig, -7);
    CHECK(hsa_signal_load_relaxed(sig) == -7);
    hsa_signal_store_screlease(sig, 8);
    CHECK_EQ_U64(hsa_signal_load_relaxed(sig), 8);
    hsa_signal_store_release(sig, 9);
    CHECK_EQ_U64(hsa_signal_load_relaxed(sig), 9);
    hsa_signal_silent_store_relaxed(sig, 10);
    CHECK_EQ_U64(hsa_signal_load_relaxed(sig), 10);
    hsa_signal_silent_store_screlease(sig, 11);
    CHECK_EQ_U64(hsa_signal_load_relaxed(sig), 11);

    CHECK_RMW_ALL(add, 10, 5, 15);
    CHECK_RMW_ALL(subtract, 10, 3, 7);
    CHECK_RMW_ALL(and, 0xF0F0, 0x3C3C, 0x3030);
    CHECK_RMW_ALL(or, 0xF000, 0x000F, 0xF00F);
    CHECK_RMW_ALL(xor, 0xFF00, 0x0FF0, 0xF0F0);

    /* 64-bit values keep every bit. */
    reset(INT64_MAX);
    hsa_signal_add_relaxed(sig, 1);
    CHECK(hsa_signal_load_relaxed(sig) == INT64_MIN);

    CHECK_SWAP(relaxed);
    CHECK_SWAP(acquire);
    CHECK_SWAP(scacquire);
    CHECK_SWAP(release);
    CHECK_SWAP(screlease);
    CHECK_SWAP(acq_rel);
    CHECK_SWAP(scacq_screl);

    CHECK_OK(hsa_signal_destroy(sig));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
