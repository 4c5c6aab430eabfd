/* Dispatch latency and packet throughput, next to a C baseline measured in the same run.

   latency:    doorbell store -> completion signal observed by the host, one packet at a
               time: an empty kernel (1 work-item) and a barrier-AND packet whose one
               dependency is already satisfied; min, median and p99 of SAMPLES;
   throughput: packets per second through one queue with the ring kept full (empty
               dispatches, barrier packets), then through QUEUES queues fed by as many host
               threads at once; the best and the median of ROUNDS;
   baseline:   the same signal round trip served by a plain C thread (it waits on a
               "doorbell" signal and decrements a "completion" signal).
   usage: aql_latency CODE_OBJECT [SAMPLES]   (aql_kernels.cl compiled for gfx1030) */
#include <pthread.h>
#include <time.h>

#include "../tests/c/aql_util.h"

#define ROUNDS 5
#define QUEUES 4

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts `v` and prints min, median and p99 with the median's ratio to `base`. */
static void report(const char *name, double *v, int n, double base) {
    qsort(v, n, sizeof *v, by_value);
    printf("%-40s %9.1f %9.1f %9.1f", name, v[0], v[n / 2], v[(n * 99) / 100]);
    if (base > 0) printf("   %6.1fx", v[n / 2] / base);
    printf("\n");
}

static hsa_signal_t ping, pong;
static volatile int stop;

static void *c_packet_processor(void *arg) {
    (void)arg;
    hsa_signal_value_t seen = 0;
    while (!stop) {
        seen = hsa_signal_wait_scacquire(ping, HSA_SIGNAL_CONDITION_NE, seen, 100000000, HSA_WAIT_STATE_BLOCKED);
        if (seen != 0) {
            hsa_signal_store_relaxed(ping, 0);
            seen = 0;
            hsa_signal_subtract_screlease(pong, 1);
        }
    }
    return NULL;
}

static void baseline_round_trips(double *samples, int n) {
    MUST(hsa_signal_create(0, 0, NULL, &ping));
    MUST(hsa_signal_create(0, 0, NULL, &pong));
    pthread_t thread;
    pthread_create(&thread, NULL, c_packet_processor, NULL);
    for (int i = 0; i < n; i++) {
        hsa_signal_store_relaxed(pong, 1);
        double start = now_us();
        hsa_signal_store_screlease(ping, 1);
        while (hsa_signal_wait_scacquire(pong, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0)
            ;
        samples[i] = now_us() - start;
    }
    stop = 1;
    hsa_signal_store_screlease(ping, 2);
    pthread_join(thread, NULL);
    hsa_signal_destroy(ping);
    hsa_signal_destroy(pong);
}

typedef struct {
    hsa_queue_t *queue;
    uint64_t kernel;   /* 0: barrier-AND packets */
    void *kernarg;
    int packets;
    hsa_signal_t done;
} feeder_t;

/* Publish `packets` packets back to back (aql_publish waits while the ring is full). */
static void *feed(void *arg) {
    feeder_t *f = arg;
    for (int i = 0; i < f->packets; i++) {
        if (f->kernel)
            aql_dispatch(f->queue, f->kernel, f->kernarg, 1, 1, f->done);
        else
            aql_barrier(f->queue, HSA_PACKET_TYPE_BARRIER_AND, NULL, f->done);
    }
    return NULL;
}

/* Packets per second through `count` queues fed by as many threads at once. */
static double throughput(feeder_t *feeders, int count) {
    pthread_t threads[QUEUES];
    int total = 0;
    for (int q = 0; q < count; q++) {
        hsa_signal_store_relaxed(feeders[q].done, feeders[q].packets);
        total += feeders[q].packets;
    }
    double start = now_us();
    for (int q = 0; q < count; q++) pthread_create(&threads[q], NULL, feed, &feeders[q]);
    for (int q = 0; q < count; q++) {
        pthread_join(threads[q], NULL);
        if (!aql_wait_zero(feeders[q].done, 600)) printf("FAIL: queue %d did not finish\n", q);
    }
    return total / ((now_us() - start) * 1e-6);
}

static void throughput_rounds(const char *name, feeder_t *feeders, int count) {
    double rates[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) rates[r] = throughput(feeders, count);
    qsort(rates, ROUNDS, sizeof *rates, by_value);
    printf("%-40s %9.0f %9.0f   packets/s\n", name, rates[ROUNDS - 1], rates[ROUNDS / 2]);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    int samples = argc > 2 ? atoi(argv[2]) : 1000;
    aql_env_t env;
    aql_setup(&env, argv[1]);
    uint64_t empty = aql_kernel(&env, "empty");
    feeder_t feeders[QUEUES];
    for (int q = 0; q < QUEUES; q++) {
        MUST(hsa_queue_create(env.gpu, 1024, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX,
                              &feeders[q].queue));
        MUST(hsa_signal_create(1, 0, NULL, &feeders[q].done));
        feeders[q].kernarg = aql_alloc(&env, 64);
    }
    hsa_queue_t *queue = feeders[0].queue;
    hsa_signal_t done = feeders[0].done, dependency;
    MUST(hsa_signal_create(0, 0, NULL, &dependency));
    double *v = malloc(sizeof *v * samples), *base = malloc(sizeof *base * samples);

    for (int i = 0; i < 20; i++) {  /* warm-up: the first dispatch imports the engine, decodes */
        hsa_signal_store_relaxed(done, 1);
        aql_dispatch(queue, empty, feeders[0].kernarg, 1, 1, done);
        aql_wait_zero(done, 60);
    }
    baseline_round_trips(base, samples);
    qsort(base, samples, sizeof *base, by_value);
    double baseline = base[samples / 2];
    printf("%-40s %9s %9s %9s   ratio of medians\n", "microseconds", "min", "median", "p99");
    report("C signal round trip (baseline)", base, samples, 0);
    for (int i = 0; i < samples; i++) {
        hsa_signal_store_relaxed(done, 1);
        double start = now_us();
        aql_dispatch(queue, empty, feeders[0].kernarg, 1, 1, done);
        aql_wait_zero(done, 60);
        v[i] = now_us() - start;
    }
    report("empty-kernel dispatch", v, samples, baseline);
    hsa_signal_t deps[5] = {dependency};
    for (int i = 0; i < samples; i++) {
        hsa_signal_store_relaxed(done, 1);
        double start = now_us();
        aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, deps, done);
        aql_wait_zero(done, 60);
        v[i] = now_us() - start;
    }
    report("barrier-AND, dependency satisfied", v, samples, baseline);

    printf("%-40s %9s %9s\n", "throughput", "best", "median");
    for (int q = 0; q < QUEUES; q++) {
        feeders[q].kernel = empty;
        feeders[q].packets = 2000;
    }
    throughput_rounds("empty dispatches, 1 queue", feeders, 1);
    throughput_rounds("empty dispatches, 4 queues x 4 threads", feeders, QUEUES);
    for (int q = 0; q < QUEUES; q++) {
        feeders[q].kernel = 0;
        feeders[q].packets = 20000;
    }
    throughput_rounds("barrier packets, 1 queue", feeders, 1);
    throughput_rounds("barrier packets, 4 queues x 4 threads", feeders, QUEUES);
    printf("%-40s %9.0f %9s   round trips/s\n", "C signal round trips (baseline)", 1e6 / baseline,
           "");

    for (int q = 0; q < QUEUES; q++) {
        MUST(hsa_signal_destroy(feeders[q].done));
        MUST(hsa_queue_destroy(feeders[q].queue));
    }
    MUST(hsa_signal_destroy(dependency));
    MUST(hsa_shut_down());
    return 0;
}
