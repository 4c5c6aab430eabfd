/* Dispatch latency and packet throughput through one queue, next to a C baseline.

   latency:    doorbell store -> completion signal observed, for an empty kernel
               (1 work-item) and for a barrier-AND packet (no kernel);
   throughput: packets per second through one queue (barrier packets, then empty
               dispatches), the ring kept full;
   baseline:   the same signal round trip served by a plain C thread (it waits on a
               "doorbell" signal and decrements a "completion" signal), measured in
               the same run.
   usage: aql_latency CODE_OBJECT   (aql_kernels.cl compiled for gfx1030) */
#include <pthread.h>
#include <time.h>

#include "../tests/c/aql_util.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static hsa_signal_t ping, pong;
static volatile int stop;

static void *c_packet_processor(void *arg) {
    (void)arg;
    hsa_signal_value_t seen = 0;
    while (!stop) {
        seen = hsa_signal_wait_scacquire(ping, HSA_SIGNAL_CONDITION_NE, seen, 100000000, HSA_WAIT_STATE_BLOCKED);
        if (seen != 0) {
            hsa_signal_subtract_screlease(pong, 1);
            hsa_signal_store_relaxed(ping, 0);
            seen = 0;
        }
    }
    return NULL;
}

static double baseline_round_trip(int rounds) {
    MUST(hsa_signal_create(0, 0, NULL, &ping));
    MUST(hsa_signal_create(0, 0, NULL, &pong));
    pthread_t thread;
    pthread_create(&thread, NULL, c_packet_processor, NULL);
    double start = now_s();
    for (int i = 0; i < rounds; i++) {
        hsa_signal_store_relaxed(pong, 1);
        hsa_signal_store_screlease(ping, 1);
        while (hsa_signal_wait_scacquire(pong, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0)
            ;
        while (hsa_signal_load_relaxed(ping) != 0)
            ;
    }
    double per = (now_s() - start) / rounds;
    stop = 1;
    hsa_signal_store_screlease(ping, 2);
    pthread_join(thread, NULL);
    hsa_signal_destroy(ping);
    hsa_signal_destroy(pong);
    return per;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    aql_env_t env;
    aql_setup(&env, argv[1]);
    uint64_t empty = aql_kernel(&env, "empty");
    void *kernarg = aql_alloc(&env, 64);
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 1024, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue));
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));

    const int rounds = 200;
    double start = now_s();
    for (int i = 0; i < rounds; i++) {
        hsa_signal_store_relaxed(done, 1);
        aql_dispatch(queue, empty, kernarg, 1, 1, done);
        aql_wait_zero(done, 60);
    }
    double dispatch_latency = (now_s() - start) / rounds;

    start = now_s();
    for (int i = 0; i < rounds; i++) {
        hsa_signal_store_relaxed(done, 1);
        aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, NULL, done);
        aql_wait_zero(done, 60);
    }
    double barrier_latency = (now_s() - start) / rounds;

    const int packets = 2000;
    hsa_signal_store_relaxed(done, packets);
    start = now_s();
    for (int i = 0; i < packets; i++) aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, NULL, done);
    aql_wait_zero(done, 600);
    double barrier_rate = packets / (now_s() - start);

    hsa_signal_store_relaxed(done, packets / 4);
    start = now_s();
    for (int i = 0; i < packets / 4; i++) aql_dispatch(queue, empty, kernarg, 1, 1, done);
    aql_wait_zero(done, 600);
    double dispatch_rate = (packets / 4) / (now_s() - start);

    double baseline = baseline_round_trip(20000);
    printf("empty-kernel dispatch latency: %8.1f us (%.0fx the C round trip)\n", dispatch_latency * 1e6,
           dispatch_latency / baseline);
    printf("barrier packet latency:        %8.1f us (%.0fx the C round trip)\n", barrier_latency * 1e6,
           barrier_latency / baseline);
    printf("C signal round trip baseline:  %8.2f us\n", baseline * 1e6);
    printf("throughput, one queue:         %8.0f barrier packets/s, %.0f empty dispatches/s "
           "(C baseline %.0f round trips/s)\n", barrier_rate, dispatch_rate, 1 / baseline);
    MUST(hsa_signal_destroy(done));
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_shut_down());
    return 0;
}
