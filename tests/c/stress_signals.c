/* Signal stress: THREADS threads hammer shared signals for about a second each round.
   Exact invariants: no atomic add/subtract/cas/or/xor is lost, every waiter that
   waits for a value some thread stores wakes up, and so do waiters on a signal that is
   destroyed under them.
   usage: stress_signals THREADS ITERATIONS */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include <hsa/hsa_ext_amd.h>
#include <pthread.h>
#include <string.h>

#include "check.h"

static hsa_signal_t counter, cas_counter, bits, ping;
static int iterations;

static void *hammer(void *arg) {
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < iterations; i++) {
        hsa_signal_add_relaxed(counter, 3);
        hsa_signal_subtract_screlease(counter, 1);
        for (;;) {
            hsa_signal_value_t seen = hsa_signal_load_relaxed(cas_counter);
            if (hsa_signal_cas_scacq_screl(cas_counter, seen, seen + 1) == seen) break;
        }
        /* Each thread owns one bit: xor twice leaves it clear, or sets it for good. */
        hsa_signal_xor_acq_rel(bits, (hsa_signal_value_t)1 << (2 * id));
        hsa_signal_xor_acq_rel(bits, (hsa_signal_value_t)1 << (2 * id));
    }
    hsa_signal_or_screlease(bits, (hsa_signal_value_t)1 << (2 * id + 1));
    return NULL;
}

/* Waiters: each waits for its own turn value on `ping`, then passes the turn on. */
static int n_waiters;
static void *relay(void *arg) {
    int id = (int)(intptr_t)arg;
    for (int round = 0; round < 200; round++) {
        hsa_signal_value_t turn = (hsa_signal_value_t)round * n_waiters + id;
        hsa_signal_value_t seen = hsa_signal_wait_scacquire(ping, HSA_SIGNAL_CONDITION_EQ, turn, UINT64_MAX,
                                                            HSA_WAIT_STATE_BLOCKED);
        if (seen != turn) {
            printf("FAIL relay %d woke with %ld, waiting for %ld\n", id, (long)seen, (long)turn);
            __atomic_add_fetch(&check_failures, 1, __ATOMIC_SEQ_CST);
            return NULL;
        }
        hsa_signal_store_screlease(ping, turn + 1);
    }
    return NULL;
}

static void *wait_forever(void *arg) {
    hsa_signal_wait_scacquire(*(hsa_signal_t *)arg, HSA_SIGNAL_CONDITION_EQ, 12345, UINT64_MAX,
                              HSA_WAIT_STATE_BLOCKED);
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    iterations = argc > 2 ? atoi(argv[2]) : 20000;
    if (threads > 31) threads = 31;
    pthread_t t[32];
    CHECK_OK(hsa_init());
    CHECK_OK(hsa_signal_create(0, 0, NULL, &counter));
    CHECK_OK(hsa_signal_create(0, 0, NULL, &cas_counter));
    CHECK_OK(hsa_signal_create(0, 0, NULL, &bits));
    CHECK_OK(hsa_signal_create(0, 0, NULL, &ping));

    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, hammer, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    CHECK_EQ_U64(hsa_signal_load_scacquire(counter), 2ull * threads * iterations);
    CHECK_EQ_U64(hsa_signal_load_scacquire(cas_counter), (uint64_t)threads * iterations);
    uint64_t expected_bits = 0;
    for (int i = 0; i < threads; i++) expected_bits |= 1ull << (2 * i + 1);
    CHECK_EQ_U64(hsa_signal_load_scacquire(bits), expected_bits);

    n_waiters = threads;
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, relay, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    CHECK_EQ_U64(hsa_signal_load_scacquire(ping), 200ull * threads);

    /* A wait with a timeout returns the value it saw. */
    hsa_signal_value_t v = hsa_signal_wait_relaxed(ping, HSA_SIGNAL_CONDITION_EQ, -1, 1000000, HSA_WAIT_STATE_BLOCKED);
    CHECK(v == 200 * threads);

    /* Waiters with no timeout on a signal destroyed under them all return. */
    hsa_signal_t doomed;
    CHECK_OK(hsa_signal_create(0, 0, NULL, &doomed));
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, wait_forever, &doomed);
    struct timespec pause = {0, 50000000};
    nanosleep(&pause, NULL);
    CHECK_OK(hsa_signal_destroy(doomed));
    for (int i = 0; i < threads; i++) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 10;
        if (pthread_timedjoin_np(t[i], NULL, &deadline) != 0) {
            printf("FAIL a waiter on a destroyed signal never returned\n");
            return 1;
        }
    }

    CHECK_OK(hsa_signal_destroy(counter));
    CHECK_OK(hsa_signal_destroy(cas_counter));
    CHECK_OK(hsa_signal_destroy(bits));
    CHECK_OK(hsa_signal_destroy(ping));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
