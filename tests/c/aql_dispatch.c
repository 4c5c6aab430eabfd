/* Kernel dispatch, barrier packets, ring wrap-around and several queues, through real
   AQL queues. usage: aql_dispatch CODE_OBJECT TEST */
#include <pthread.h>

#include "check.h"
#include "aql_util.h"

static aql_env_t env;

static void test_dispatch(void) {
    const uint32_t n = 1000;
    float *a = aql_alloc(&env, n * sizeof(float)), *out = aql_alloc(&env, n * sizeof(float));
    for (uint32_t i = 0; i < n; i++) a[i] = (float)i * 0.25f;
    struct { float *a, *out; float scale; uint32_t n; } *args = aql_alloc(&env, 256);
    args->a = a;
    args->out = out;
    args->scale = 3.0f;
    args->n = n;
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(&env, "scale_add"), args, 1024, 64, done);
    CHECK(aql_wait_zero(done, 60));
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != a[i] * 3.0f + (float)i) {
            printf("FAIL out[%u] = %g\n", i, out[i]);
            check_failures++;
            break;
        }
    /* The slot was handed back: read index advanced past the packet, header INVALID. */
    CHECK_EQ_U64(hsa_queue_load_read_index_scacquire(queue), 1);
    CHECK_EQ_U64(((uint8_t *)queue->base_address)[0], HSA_PACKET_TYPE_INVALID);
    MUST(hsa_signal_destroy(done));
    MUST(hsa_queue_destroy(queue));
}

/* dispatch A -> barrier-AND on (A's signal, a host signal) -> dispatch B: B runs only after
   the host releases its signal. */
static void test_barrier_and_chain(void) {
    uint32_t *counter = aql_alloc(&env, 64);
    void **args = aql_alloc(&env, 64);
    args[0] = counter;
    uint64_t count_items = aql_kernel(&env, "count_items");
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t first, host, barrier_done, second;
    MUST(hsa_signal_create(1, 0, NULL, &first));
    MUST(hsa_signal_create(1, 0, NULL, &host));
    MUST(hsa_signal_create(1, 0, NULL, &barrier_done));
    MUST(hsa_signal_create(1, 0, NULL, &second));
    aql_dispatch(queue, count_items, args, 64, 64, first);
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, (hsa_signal_t[5]){first, {0}, {0}, host, {0}}, barrier_done);
    aql_dispatch(queue, count_items, args, 32, 32, second);

    CHECK(aql_wait_zero(first, 60));
    CHECK(!aql_wait_zero(barrier_done, 0.3)); /* still held by the host signal */
    CHECK_EQ_U64(*counter, 64);
    hsa_signal_store_screlease(host, 0);
    CHECK(aql_wait_zero(second, 60));
    CHECK_EQ_U64(hsa_signal_load_scacquire(barrier_done), 0);
    CHECK_EQ_U64(*counter, 96);
    hsa_signal_t all[4] = {first, host, barrier_done, second};
    for (int i = 0; i < 4; i++) MUST(hsa_signal_destroy(all[i]));
    MUST(hsa_queue_destroy(queue));
}

/* barrier-OR completes when any one dependency reaches zero. */
static void test_barrier_or(void) {
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t never, soon, done;
    MUST(hsa_signal_create(1, 0, NULL, &never));
    MUST(hsa_signal_create(1, 0, NULL, &soon));
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_OR, (hsa_signal_t[5]){{0}, never, {0}, {0}, soon}, done);
    CHECK(!aql_wait_zero(done, 0.2));
    hsa_signal_store_screlease(soon, 0);
    CHECK(aql_wait_zero(done, 10));
    MUST(hsa_signal_destroy(never));
    MUST(hsa_signal_destroy(soon));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_queue_destroy(queue));
}

/* A barrier dependency is met at exactly 0: not at 1, not at 5, not at a negative value
   (signal values are signed: "below 1" is not "0"). AND needs each dependency seen at 0,
   OR any one. */
static void test_barrier_dependency_values(void) {
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t a, b, zero, done;
    MUST(hsa_signal_create(5, 0, NULL, &a));
    MUST(hsa_signal_create(-1, 0, NULL, &b));
    MUST(hsa_signal_create(0, 0, NULL, &zero));
    MUST(hsa_signal_create(1, 0, NULL, &done));

    /* A dependency already at 0 is met. */
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, (hsa_signal_t[5]){{0}, zero}, done);
    CHECK(aql_wait_zero(done, 30));
    hsa_signal_store_screlease(done, 1);
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_OR, (hsa_signal_t[5]){zero}, done);
    CHECK(aql_wait_zero(done, 30));

    /* AND on 5 and -1: neither is 0. */
    hsa_signal_store_screlease(done, 1);
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, (hsa_signal_t[5]){a, {0}, b}, done);
    CHECK(!aql_wait_zero(done, 0.3));
    hsa_signal_store_screlease(a, 0);            /* 5 -> 0: met; -1 still holds it */
    CHECK(!aql_wait_zero(done, 0.3));
    hsa_signal_store_screlease(b, -7);
    CHECK(!aql_wait_zero(done, 0.3));
    hsa_signal_store_screlease(b, 1);
    CHECK(!aql_wait_zero(done, 0.3));
    hsa_signal_store_screlease(b, 0);
    CHECK(aql_wait_zero(done, 30));

    /* OR on 5, -3 and 1: none is 0; then one of them reaches 0 from -3. */
    hsa_signal_t c;
    MUST(hsa_signal_create(1, 0, NULL, &c));
    hsa_signal_store_screlease(a, 5);
    hsa_signal_store_screlease(b, -3);
    hsa_signal_store_screlease(done, 1);
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_OR, (hsa_signal_t[5]){a, b, {0}, {0}, c}, done);
    CHECK(!aql_wait_zero(done, 0.3));
    hsa_signal_store_screlease(b, -1);
    CHECK(!aql_wait_zero(done, 0.3));
    hsa_signal_add_screlease(b, 1);              /* -1 -> 0 */
    CHECK(aql_wait_zero(done, 30));
    CHECK_EQ_U64(hsa_signal_load_scacquire(a), 5);   /* the barrier changes no dependency */

    hsa_signal_t all[5] = {a, b, c, zero, done};
    for (int i = 0; i < 5; i++) MUST(hsa_signal_destroy(all[i]));
    MUST(hsa_queue_destroy(queue));
}

/* AMD barrier-value packet: waits until (value & mask) == 0x40, whatever the other bits. */
static void test_barrier_value(void) {
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t watched, done;
    MUST(hsa_signal_create(0, 0, NULL, &watched));
    MUST(hsa_signal_create(1, 0, NULL, &done));
    hsa_amd_barrier_value_packet_t p;
    memset(&p, 0, sizeof p);
    p.header.header = aql_header(HSA_PACKET_TYPE_VENDOR_SPECIFIC);
    p.header.AmdFormat = HSA_AMD_PACKET_TYPE_BARRIER_VALUE;
    p.signal = watched;
    p.value = 0x40;
    p.mask = 0xF0;
    p.cond = HSA_SIGNAL_CONDITION_EQ;
    p.completion_signal = done;
    aql_publish(queue, &p);
    hsa_signal_store_screlease(watched, 0x3F); /* masked: 0x30, not yet */
    CHECK(!aql_wait_zero(done, 0.2));
    hsa_signal_store_screlease(watched, 0x4F); /* masked: 0x40 */
    CHECK(aql_wait_zero(done, 10));
    MUST(hsa_signal_destroy(watched));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_queue_destroy(queue));
}

/* A queue destroyed while a barrier waits: the barrier neither completes nor hangs destroy. */
static void test_destroy_while_waiting(void) {
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t never, done;
    MUST(hsa_signal_create(1, 0, NULL, &never));
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, (hsa_signal_t[5]){never}, done);
    CHECK(!aql_wait_zero(done, 0.1));
    MUST(hsa_queue_destroy(queue));
    CHECK_EQ_U64(hsa_signal_load_scacquire(done), 1);
    MUST(hsa_signal_destroy(never));
    MUST(hsa_signal_destroy(done));
}

/* 200 packets through a 64-slot ring: it wraps three times and every packet runs once. */
static void test_ring_wraps(void) {
    uint32_t *counter = aql_alloc(&env, 64);
    void **args = aql_alloc(&env, 64);
    args[0] = counter;
    uint64_t count_items = aql_kernel(&env, "count_items");
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t done;
    const int packets = 200;
    MUST(hsa_signal_create(packets, 0, NULL, &done));
    for (int i = 0; i < packets; i++) aql_dispatch(queue, count_items, args, 32, 32, done);
    CHECK(aql_wait_zero(done, 300));
    CHECK_EQ_U64(*counter, packets * 32);
    CHECK_EQ_U64(hsa_queue_load_read_index_scacquire(queue), packets);
    MUST(hsa_signal_destroy(done));
    MUST(hsa_queue_destroy(queue));
}

struct worker {
    hsa_queue_t *queue;
    uint32_t *counter;
    void **args;
    int packets;
    int ok;
};

static void *submit_from_thread(void *p) {
    struct worker *w = p;
    hsa_signal_t done;
    MUST(hsa_signal_create(w->packets, 0, NULL, &done));
    for (int i = 0; i < w->packets; i++)
        aql_dispatch(w->queue, aql_kernel(&env, "count_items"), w->args, 64, 32, done);
    w->ok = aql_wait_zero(done, 300);
    MUST(hsa_signal_destroy(done));
    return NULL;
}

/* Three queues fed from three host threads; each queue's counter sees exactly its packets. */
static void test_queues_from_threads(void) {
    enum { QUEUES = 3 };
    struct worker workers[QUEUES];
    pthread_t threads[QUEUES];
    for (int q = 0; q < QUEUES; q++) {
        workers[q].counter = aql_alloc(&env, 64);
        workers[q].args = aql_alloc(&env, 64);
        workers[q].args[0] = workers[q].counter;
        workers[q].packets = 10 + q;
        workers[q].queue = aql_queue(&env);
        pthread_create(&threads[q], NULL, submit_from_thread, &workers[q]);
    }
    for (int q = 0; q < QUEUES; q++) {
        pthread_join(threads[q], NULL);
        CHECK(workers[q].ok);
        CHECK_EQ_U64(*workers[q].counter, (uint64_t)(10 + q) * 64);
        MUST(hsa_queue_destroy(workers[q].queue));
    }
}

/* Destroying a queue stops the dispatch it is running, as the command processor drops the
   waves of a queue it unmaps: a grid of two billion work-items (found by fuzzing) must not
   hold hsa_queue_destroy for hours. The stopped packet never completes. */
static void test_destroy_stops_a_dispatch(void) {
    void *args = aql_alloc(&env, 64);
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(&env, "empty"), args, 2000000000u, 1, done);
    while (hsa_signal_load_scacquire(queue->doorbell_signal) < 0)
        ;
    struct timespec running = {0, 200000000};
    nanosleep(&running, NULL);
    MUST(hsa_queue_destroy(queue));
    CHECK_EQ_U64(hsa_signal_load_scacquire(done), 1);
    MUST(hsa_signal_destroy(done));
}

/* A queue held at a barrier holds back only its own later packets: another queue's run
   meanwhile, and once released the held queue's packets complete in order. */
static void test_queues_progress_independently(void) {
    uint32_t *counter = aql_alloc(&env, 64);
    void **args = aql_alloc(&env, 64);
    args[0] = counter;
    uint64_t count_items = aql_kernel(&env, "count_items");
    hsa_queue_t *held = aql_queue(&env), *other = aql_queue(&env);
    hsa_signal_t gate, done[3], other_done;
    MUST(hsa_signal_create(1, 0, NULL, &gate));
    for (int i = 0; i < 3; i++) MUST(hsa_signal_create(1, 0, NULL, &done[i]));
    MUST(hsa_signal_create(5, 0, NULL, &other_done));
    aql_barrier(held, HSA_PACKET_TYPE_BARRIER_AND, (hsa_signal_t[5]){gate}, done[0]);
    aql_dispatch(held, count_items, args, 32, 32, done[1]);
    aql_barrier(held, HSA_PACKET_TYPE_BARRIER_AND, NULL, done[2]);
    for (int i = 0; i < 5; i++) aql_dispatch(other, count_items, args, 32, 32, other_done);
    CHECK(aql_wait_zero(other_done, 120));
    CHECK_EQ_U64(*counter, 5 * 32);
    for (int i = 0; i < 3; i++) CHECK_EQ_U64(hsa_signal_load_scacquire(done[i]), 1);
    hsa_signal_store_screlease(gate, 0);
    CHECK(aql_wait_zero(done[2], 120));
    CHECK_EQ_U64(hsa_signal_load_scacquire(done[0]), 0);
    CHECK_EQ_U64(hsa_signal_load_scacquire(done[1]), 0);
    CHECK_EQ_U64(*counter, 6 * 32);
    MUST(hsa_queue_destroy(held));
    MUST(hsa_queue_destroy(other));
    MUST(hsa_signal_destroy(gate));
    for (int i = 0; i < 3; i++) MUST(hsa_signal_destroy(done[i]));
    MUST(hsa_signal_destroy(other_done));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        printf("usage: %s CODE_OBJECT TEST\n", argv[0]);
        return 2;
    }
    aql_setup(&env, argv[1]);
    const char *test = argv[2];
    if (!strcmp(test, "dispatch")) test_dispatch();
    else if (!strcmp(test, "barrier_and")) test_barrier_and_chain();
    else if (!strcmp(test, "barrier_or")) test_barrier_or();
    else if (!strcmp(test, "barrier_dependency_values")) test_barrier_dependency_values();
    else if (!strcmp(test, "barrier_value")) test_barrier_value();
    else if (!strcmp(test, "destroy_while_waiting")) test_destroy_while_waiting();
    else if (!strcmp(test, "ring_wraps")) test_ring_wraps();
    else if (!strcmp(test, "threads")) test_queues_from_threads();
    else if (!strcmp(test, "independent_queues")) test_queues_progress_independently();
    else if (!strcmp(test, "destroy_stops_dispatch")) test_destroy_stops_a_dispatch();
    else {
        printf("FAIL unknown test %s\n", test);
        return 2;
    }
    MUST(hsa_executable_destroy(env.executable));
    MUST(hsa_code_object_reader_destroy(env.reader));
    MUST(hsa_shut_down());
    return check_report();
}
