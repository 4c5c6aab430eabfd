/* Cost of the C fast paths against the plain C atomics they wrap, in one run: the baseline
   makes the same atomic operation behind a plain call into a shared library
   (fastpath_baseline.c), as any exported function pays the call. Also the cost of
   hsa_agent_get_info, which HIP calls hundreds of times at start.
   Prints one line per operation: name, ns/op (best and median of ROUNDS), and the ratio
   of the medians to its baseline.
   Usage: fastpath_bench [iterations]   (default 20,000,000) */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static hsa_status_t find_gpu(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    if (type == HSA_DEVICE_TYPE_GPU) {
        *(hsa_agent_t *)data = agent;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

static bool never(hsa_signal_value_t value, void *arg) { (void)value; (void)arg; return false; }

int64_t baseline_load_relaxed(const _Atomic int64_t *value);
uint64_t baseline_fetch_add_relaxed(_Atomic uint64_t *value, uint64_t delta);

typedef struct {
    double best, median;
} timing_t;

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Best and median of several rounds: the machine is shared. */
#define ROUNDS 7
#define TIME(result, n, body)                                                     \
    do {                                                                          \
        double per[ROUNDS];                                                       \
        for (int r = 0; r < ROUNDS; r++) {                                        \
            uint64_t t0 = now_ns();                                               \
            for (long i = 0; i < (n); i++) { body; }                              \
            per[r] = (double)(now_ns() - t0) / (double)(n);                       \
        }                                                                         \
        qsort(per, ROUNDS, sizeof per[0], by_value);                              \
        result = (timing_t){per[0], per[ROUNDS / 2]};                             \
    } while (0)

static void line(const char *name, timing_t t, timing_t base) {
    printf("%-38s %8.2f %8.2f %7.2f\n", name, t.best, t.median, t.median / base.median);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    if (hsa_init() != HSA_STATUS_SUCCESS) return 2;
    hsa_agent_t gpu = {0};
    hsa_iterate_agents(find_gpu, &gpu);
    hsa_signal_t sig;
    hsa_queue_t *queue = NULL;
    if (hsa_signal_create(1, 0, NULL, &sig) != HSA_STATUS_SUCCESS ||
        hsa_queue_create(gpu, 1024, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue) !=
            HSA_STATUS_SUCCESS)
        return 3;
    /* Only the write index moves, no packet is published: the packet processor sleeps. */
    static _Atomic int64_t plain_value = 1;
    static _Atomic uint64_t plain_index;
    volatile int64_t sink = 0;
    timing_t base_load, load, base_add, add, sig_add, busy_add, info;

    TIME(base_load, n, sink += baseline_load_relaxed(&plain_value));
    TIME(load, n, sink += hsa_signal_load_relaxed(sig));
    TIME(base_add, n, sink += baseline_fetch_add_relaxed(&plain_index, 1));
    TIME(add, n, sink += hsa_queue_add_write_index_relaxed(queue, 1));
    TIME(sig_add, n, hsa_signal_add_relaxed(sig, 1));
    /* With the async-handler thread blocked in a wait_any on another signal. */
    hsa_signal_t watched;
    hsa_signal_create(0, 0, NULL, &watched);
    hsa_amd_signal_async_handler(watched, HSA_SIGNAL_CONDITION_EQ, 1, never, NULL);
    TIME(busy_add, n, hsa_signal_add_relaxed(sig, 1));
    uint32_t compute_units;
    TIME(info, n / 100, sink += hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT,
                                                   &compute_units));

    printf("%-38s %8s %8s %7s\n", "operation, ns", "best", "median", "ratio");
    line("atomic load (relaxed) in a .so call", base_load, base_load);
    line("hsa_signal_load_relaxed", load, base_load);
    line("atomic fetch_add in a .so call", base_add, base_add);
    line("hsa_queue_add_write_index_relaxed", add, base_add);
    line("hsa_signal_add_relaxed (+ wake)", sig_add, base_add);
    line("  ... while a handler thread waits", busy_add, base_add);
    line("hsa_agent_get_info (compute units)", info, base_load);
    hsa_queue_store_write_index_relaxed(queue, 0);
    hsa_queue_destroy(queue);
    hsa_signal_destroy(sig);
    hsa_signal_destroy(watched);
    hsa_shut_down();
    return sink == 42 ? 1 : 0;
}
