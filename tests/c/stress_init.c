/* Init/shutdown stress: THREADS threads each run CYCLES of hsa_init, a signal
   create/store/load/destroy, and hsa_shut_down, against one hsa_init the main thread
   holds throughout. Exact invariants: every call succeeds (the session never dies while
   a thread holds a reference), and after the main thread's shutdown the count is zero:
   one more hsa_shut_down answers HSA_STATUS_ERROR_NOT_INITIALIZED.
   usage: stress_init THREADS CYCLES */
#include <hsa/hsa_ext_amd.h>
#include <pthread.h>

#include "check.h"

static int cycles;

static void *cycle(void *arg) {
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < cycles; i++) {
        hsa_signal_t s;
        CHECK_OK(hsa_init());
        CHECK_OK(hsa_signal_create(id * 1000 + i, 0, NULL, &s));
        hsa_signal_store_relaxed(s, i);
        CHECK(hsa_signal_load_relaxed(s) == i);
        CHECK_OK(hsa_signal_destroy(s));
        CHECK_OK(hsa_shut_down());
    }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    cycles = argc > 2 ? atoi(argv[2]) : 200;
    if (threads > 32) threads = 32;
    pthread_t t[32];
    CHECK_OK(hsa_init());
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, cycle, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    CHECK_OK(hsa_shut_down());
    CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);

    /* Without a reference held by main, sessions come and go under the threads: each
       thread's own init keeps its calls valid, whatever the others do. */
    cycles = cycles / 10 + 1;
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, cycle, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);
    hsa_signal_t s;
    CHECK_STATUS(hsa_signal_create(0, 0, NULL, &s), HSA_STATUS_ERROR_NOT_INITIALIZED);
    return check_report();
}
