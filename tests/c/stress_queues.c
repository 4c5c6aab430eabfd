/* Queue stress: THREADS threads reserve packet slots on one queue at once, through
   add_write_index and cas_write_index. Exact invariant: every reservation gets its own
   slot range, and together they cover [0, total) with no gap and no overlap.
   usage: stress_queues THREADS RESERVATIONS */
#include <hsa/hsa_ext_amd.h>
#include <pthread.h>
#include <string.h>

#include "check.h"

static hsa_queue_t *queue;
static int reservations;
static uint8_t *owner; /* slot -> 1 + thread that reserved it */

static void claim(uint64_t first, uint64_t n, int id) {
    for (uint64_t s = first; s < first + n; s++)
        if (__atomic_exchange_n(&owner[s], (uint8_t)(id + 1), __ATOMIC_RELAXED) != 0) {
            printf("FAIL slot %lu reserved twice\n", (unsigned long)s);
            __atomic_add_fetch(&check_failures, 1, __ATOMIC_SEQ_CST);
        }
}

static void *reserve(void *arg) {
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < reservations; i++) {
        uint64_t n = 1 + (i + id) % 3;
        if (i % 2) {
            claim(hsa_queue_add_write_index_scacq_screl(queue, n), n, id);
        } else {
            for (;;) {
                uint64_t seen = hsa_queue_load_write_index_relaxed(queue);
                if (hsa_queue_cas_write_index_relaxed(queue, seen, seen + n) == seen) {
                    claim(seen, n, id);
                    break;
                }
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    reservations = argc > 2 ? atoi(argv[2]) : 20000;
    if (threads > 32) threads = 32;
    pthread_t t[32];
    uint64_t total = 0;
    for (int id = 0; id < threads; id++)
        for (int i = 0; i < reservations; i++) total += 1 + (i + id) % 3;
    owner = calloc(total, 1);
    hsa_agent_t cpu, gpu;
    CHECK_OK(hsa_init());
    find_cpu_gpu(&cpu, &gpu);
    /* Nobody rings the doorbell: the packet processor never looks at these slots. */
    CHECK_OK(hsa_queue_create(gpu, 4096, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue));
    uint64_t start = hsa_queue_load_write_index_relaxed(queue);
    CHECK_EQ_U64(start, 0);
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, reserve, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    CHECK_EQ_U64(hsa_queue_load_write_index_scacquire(queue), total);
    uint64_t unclaimed = 0;
    for (uint64_t s = 0; s < total; s++) unclaimed += owner[s] == 0;
    CHECK_EQ_U64(unclaimed, 0);
    CHECK_EQ_U64(hsa_queue_load_read_index_relaxed(queue), 0);
    CHECK_OK(hsa_queue_destroy(queue));
    CHECK_OK(hsa_shut_down());
    free(owner);
    return check_report();
}
