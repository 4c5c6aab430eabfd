/* Concurrent read-modify-writes from several threads lose no update. */
#include "check.h"
#include <pthread.h>

#define THREADS 4
#define ROUNDS 20000

static hsa_signal_t counter, cas_counter;

static void *hammer(void *arg) {
    long id = (long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        /* Mixed orders and operations: +3 then -1 nets +2 per round. */
        if (id & 1) {
            hsa_signal_add_scacq_screl(counter, 3);
            hsa_signal_subtract_relaxed(counter, 1);
        } else {
            hsa_signal_add_relaxed(counter, 3);
            hsa_signal_subtract_screlease(counter, 1);
        }
        /* A CAS loop: the classic lost-update trap. */
        for (hsa_signal_value_t seen = hsa_signal_load_relaxed(cas_counter);;) {
            hsa_signal_value_t got = hsa_signal_cas_scacq_screl(cas_counter, seen, seen + 1);
            if (got == seen) break;
            seen = got;
        }
    }
    return NULL;
}

int main(void) {
    CHECK_OK(hsa_init());
    CHECK_OK(hsa_signal_create(0, 0, NULL, &counter));
    CHECK_OK(hsa_signal_create(0, 0, NULL, &cas_counter));
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, hammer, (void *)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    CHECK_EQ_U64(hsa_signal_load_scacquire(counter), 2ull * THREADS * ROUNDS);
    CHECK_EQ_U64(hsa_signal_load_scacquire(cas_counter), (uint64_t)THREADS * ROUNDS);
    CHECK_OK(hsa_signal_destroy(counter));
    CHECK_OK(hsa_signal_destroy(cas_counter));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
