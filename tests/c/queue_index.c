/* Every queue index operation in every memory order, and concurrent write-index
   reservations from several threads yielding distinct slots. */
#include "queue_util.h"
#include <hsa/amd_hsa_queue.h>
#include <pthread.h>

#define THREADS 4
#define RESERVATIONS 5000

static hsa_queue_t *queue;
static uint64_t slots[THREADS][RESERVATIONS];

typedef uint64_t (*add_fn)(const hsa_queue_t *, uint64_t);
static const add_fn adds[] = {hsa_queue_add_write_index_relaxed, hsa_queue_add_write_index_scacquire,
                              hsa_queue_add_write_index_acquire, hsa_queue_add_write_index_screlease,
                              hsa_queue_add_write_index_release, hsa_queue_add_write_index_scacq_screl,
                              hsa_queue_add_write_index_acq_rel};

static void *reserve(void *arg) {
    long id = (long)arg;
    for (int i = 0; i < RESERVATIONS; i++) {
        if (i % 2) {
            slots[id][i] = adds[(id + i) % 7](queue, 1);
        } else {  /* the CAS loop clients use for bounded reservations */
            uint64_t seen = hsa_queue_load_write_index_relaxed(queue);
            for (;;) {
                uint64_t got = hsa_queue_cas_write_index_scacq_screl(queue, seen, seen + 1);
                if (got == seen) break;
                seen = got;
            }
            slots[id][i] = seen;
        }
    }
    return NULL;
}

static int compare(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define CHECK_CAS(order)                                                               \
    do {                                                                               \
        hsa_queue_store_write_index_relaxed(queue, 10);                                \
        CHECK_EQ_U64(hsa_queue_cas_write_index_##order(queue, 10, 12), 10);            \
        CHECK_EQ_U64(hsa_queue_cas_write_index_##order(queue, 10, 14), 12);            \
        CHECK_EQ_U64(hsa_queue_load_write_index_relaxed(queue), 12);                   \
    } while (0)

int main(void) {
    CHECK_OK(hsa_init());
    find_gpu_and_cpu();
    /* A soft queue: no packet processor reads its indices behind the test's back. */
    hsa_region_t region = {0};
    CHECK_STATUS(hsa_agent_iterate_regions(cpu_agent, first_region, &region), HSA_STATUS_INFO_BREAK);
    hsa_signal_t doorbell;
    CHECK_OK(hsa_signal_create(0, 0, NULL, &doorbell));
    CHECK_OK(hsa_soft_queue_create(region, 1024, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_KERNEL_DISPATCH,
                                   doorbell, &queue));
    if (!queue) return check_report();
    amd_queue_t *amd = (amd_queue_t *)queue;

    /* Loads and stores, through the exports and as the client sees the fields. */
    hsa_queue_store_write_index_relaxed(queue, 5);
    CHECK_EQ_U64(amd->write_dispatch_id, 5);
    hsa_queue_store_write_index_screlease(queue, 6);
    CHECK_EQ_U64(hsa_queue_load_write_index_relaxed(queue), 6);
    hsa_queue_store_write_index_release(queue, 7);
    CHECK_EQ_U64(hsa_queue_load_write_index_scacquire(queue), 7);
    CHECK_EQ_U64(hsa_queue_load_write_index_acquire(queue), 7);
    hsa_queue_store_read_index_relaxed(queue, 3);
    CHECK_EQ_U64(amd->read_dispatch_id, 3);
    hsa_queue_store_read_index_screlease(queue, 4);
    CHECK_EQ_U64(hsa_queue_load_read_index_relaxed(queue), 4);
    hsa_queue_store_read_index_release(queue, 5);
    CHECK_EQ_U64(hsa_queue_load_read_index_scacquire(queue), 5);
    CHECK_EQ_U64(hsa_queue_load_read_index_acquire(queue), 5);
    amd->read_dispatch_id = 0;  /* a direct write is what the exports read */
    CHECK_EQ_U64(hsa_queue_load_read_index_relaxed(queue), 0);

    /* add returns the previous index, in every order. */
    hsa_queue_store_write_index_relaxed(queue, 0);
    for (size_t i = 0; i < sizeof adds / sizeof *adds; i++) CHECK_EQ_U64(adds[i](queue, 3), 3 * i);
    CHECK_EQ_U64(hsa_queue_load_write_index_relaxed(queue), 21);
    CHECK_CAS(relaxed);
    CHECK_CAS(scacquire);
    CHECK_CAS(acquire);
    CHECK_CAS(screlease);
    CHECK_CAS(release);
    CHECK_CAS(scacq_screl);
    CHECK_CAS(acq_rel);

    /* Concurrent reservations: every slot handed out exactly once. */
    hsa_queue_store_write_index_relaxed(queue, 0);
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, reserve, (void *)i);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    qsort(slots, THREADS * RESERVATIONS, sizeof(uint64_t), compare);
    int distinct = 1;
    for (uint64_t i = 0; i < THREADS * RESERVATIONS; i++) distinct &= ((uint64_t *)slots)[i] == i;
    CHECK(distinct);
    CHECK_EQ_U64(hsa_queue_load_write_index_scacquire(queue), THREADS * RESERVATIONS);

    CHECK_OK(hsa_queue_destroy(queue));
    CHECK_OK(hsa_signal_destroy(doorbell));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
