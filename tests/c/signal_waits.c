/* Signal waits: every condition, every wait variant, timeouts (in ns ticks), several
   threads waiting on one signal, and hsa_amd_signal_wait_any. */
#include "check.h"
#include <hsa/hsa_ext_amd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define WAITERS 4
#define MS 1000000ull

typedef hsa_signal_value_t (*wait_fn)(hsa_signal_t, hsa_signal_condition_t, hsa_signal_value_t,
                                      uint64_t, hsa_wait_state_t);
static const wait_fn waits[] = {hsa_signal_wait_scacquire, hsa_signal_wait_relaxed,
                                hsa_signal_wait_acquire};

/* For each condition: a value that satisfies it against 10, and one that does not. */
static const struct {
    hsa_signal_condition_t cond;
    hsa_signal_value_t yes, no;
} cases[] = {{HSA_SIGNAL_CONDITION_EQ, 10, 11},
             {HSA_SIGNAL_CONDITION_NE, 3, 10},
             {HSA_SIGNAL_CONDITION_LT, 9, 10},
             {HSA_SIGNAL_CONDITION_GTE, 10, 9}};

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct waiter {
    hsa_signal_t sig;
    wait_fn wait;
    hsa_signal_condition_t cond;
    hsa_signal_value_t result;
    atomic_int done;
};

static void *wait_forever(void *p) {
    struct waiter *w = p;
    w->result = w->wait(w->sig, w->cond, 10, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    atomic_store(&w->done, 1);
    return NULL;
}

static void check_condition(wait_fn wait, int c) {
    hsa_signal_t sig;
    CHECK_OK(hsa_signal_create(cases[c].no, 0, NULL, &sig));

    /* Unsatisfied with a timeout: returns the current value, not before the timeout. */
    uint64_t t0 = now_ns();
    hsa_signal_value_t v = wait(sig, cases[c].cond, 10, 20 * MS, HSA_WAIT_STATE_BLOCKED);
    uint64_t took = now_ns() - t0;
    CHECK(v == cases[c].no);
    CHECK(took >= 20 * MS);   /* never before its timeout; how long after depends on the machine */

    /* A zero timeout only looks (a wait that blocked would never return: nothing stores). */
    CHECK(wait(sig, cases[c].cond, 10, 0, HSA_WAIT_STATE_ACTIVE) == cases[c].no);

    /* Several threads wait forever; none returns until a store satisfies them all. */
    struct waiter w[WAITERS];
    pthread_t t[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        w[i] = (struct waiter){.sig = sig, .wait = wait, .cond = cases[c].cond};
        pthread_create(&t[i], NULL, wait_forever, &w[i]);
    }
    usleep(30000);
    for (int i = 0; i < WAITERS; i++) CHECK(atomic_load(&w[i].done) == 0);
    hsa_signal_store_screlease(sig, cases[c].yes);
    for (int i = 0; i < WAITERS; i++) {
        pthread_join(t[i], NULL);
        CHECK(w[i].result == cases[c].yes);
    }

    /* Already satisfied: returns at once with the value. */
    CHECK(wait(sig, cases[c].cond, 10, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == cases[c].yes);
    CHECK_OK(hsa_signal_destroy(sig));
}

struct delayed {
    hsa_signal_t sig;
    hsa_signal_value_t value;
};

static void *store_later(void *p) {
    struct delayed *d = p;
    usleep(20000);
    hsa_signal_store_relaxed(d->sig, d->value);
    return NULL;
}

static void check_wait_any(void) {
    hsa_signal_t sigs[3];
    for (int i = 0; i < 3; i++) CHECK_OK(hsa_signal_create(1, 0, NULL, &sigs[i]));
    hsa_signal_condition_t conds[3] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_LT,
                                       HSA_SIGNAL_CONDITION_GTE};
    hsa_signal_value_t values[3] = {0, 0, 5};
    hsa_signal_value_t seen = -1;

    uint64_t t0 = now_ns();
    CHECK_EQ_U64(hsa_amd_signal_wait_any(3, sigs, conds, values, 20 * MS, HSA_WAIT_STATE_BLOCKED,
                                         &seen), UINT32_MAX);
    CHECK(now_ns() - t0 >= 20 * MS);

    struct delayed d = {sigs[2], 7};
    pthread_t t;
    pthread_create(&t, NULL, store_later, &d);
    CHECK_EQ_U64(hsa_amd_signal_wait_any(3, sigs, conds, values, UINT64_MAX,
                                         HSA_WAIT_STATE_BLOCKED, &seen), 2);
    CHECK_EQ_U64(seen, 7);
    pthread_join(t, NULL);

    hsa_signal_store_relaxed(sigs[1], -1);
    CHECK_EQ_U64(hsa_amd_signal_wait_any(3, sigs, conds, values, 0, HSA_WAIT_STATE_ACTIVE, NULL), 1);
    for (int i = 0; i < 3; i++) CHECK_OK(hsa_signal_destroy(sigs[i]));
}

int main(void) {
    CHECK_OK(hsa_init());
    for (size_t w = 0; w < sizeof waits / sizeof *waits; w++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) check_condition(waits[w], (int)c);
    check_wait_any();
    CHECK_OK(hsa_shut_down());
    return check_report();
}
