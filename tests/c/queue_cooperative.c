/* Cooperative queues as ROCr makes them, on an agent that offers them (GWS): every
   hsa_queue_create of type COOPERATIVE returns the agent's one cooperative queue, of the
   agent's minimum size whatever size was asked, reference counted by create and destroy. */
#include <hsa/hsa_ext_amd.h>
#include <string.h>

#include "check.h"

static hsa_agent_t gpu_agent, cpu_agent;
static int callbacks;

static void on_error(hsa_status_t status, hsa_queue_t *source, void *data) {
    (void)status; (void)source; (void)data;
    callbacks++;
}

/* A barrier-AND packet with no dependencies: it completes iff the queue processes packets. */
static int queue_runs(hsa_queue_t *queue) {
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
    hsa_barrier_and_packet_t *slot = (hsa_barrier_and_packet_t *)queue->base_address + index % queue->size;
    memset((uint8_t *)slot + 4, 0, sizeof *slot - 4);
    slot->completion_signal = done;
    uint16_t header = (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER);
    __atomic_store_n((uint32_t *)slot, header, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)index);
    int ran = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 10000000000ull,
                                        HSA_WAIT_STATE_BLOCKED) == 0;
    MUST(hsa_signal_destroy(done));
    return ran;
}

int main(void) {
    MUST(hsa_init());
    find_cpu_gpu(&cpu_agent, &gpu_agent);
    bool cooperative = false;
    uint32_t min_size = 0;
    CHECK_OK(hsa_agent_get_info(gpu_agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES, &cooperative));
    CHECK_OK(hsa_agent_get_info(gpu_agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &min_size));
    CHECK(cooperative);

    hsa_queue_t *first = NULL, *second = NULL, *plain = NULL, *q = NULL;
    /* Arguments are checked before the type: ROCr's order. */
    CHECK_STATUS(hsa_queue_create(gpu_agent, 100, HSA_QUEUE_TYPE_COOPERATIVE, NULL, NULL, UINT32_MAX,
                                  UINT32_MAX, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_queue_create(gpu_agent, 128, HSA_QUEUE_TYPE_COOPERATIVE, on_error, NULL, UINT32_MAX,
                              UINT32_MAX, &first));
    CHECK_OK(hsa_queue_create(gpu_agent, 4096, HSA_QUEUE_TYPE_COOPERATIVE, NULL, NULL, 0, 0, &second));
    CHECK_OK(hsa_queue_create(gpu_agent, 128, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &plain));
    if (!first || !second || !plain) return check_report();
    CHECK(first == second);
    CHECK(plain != first);
    CHECK_EQ_U64(first->type, HSA_QUEUE_TYPE_COOPERATIVE);
    CHECK_EQ_U64(first->size, min_size);
    CHECK(queue_runs(first));

    /* The first destroy only drops a reference: the queue still runs packets. */
    CHECK_OK(hsa_queue_destroy(first));
    CHECK(queue_runs(second));
    CHECK_OK(hsa_queue_destroy(second));
    CHECK_STATUS(hsa_queue_destroy(second), HSA_STATUS_ERROR_INVALID_QUEUE);

    /* Once the last reference is gone, the next create makes a fresh cooperative queue. */
    CHECK_OK(hsa_queue_create(gpu_agent, 64, HSA_QUEUE_TYPE_COOPERATIVE, NULL, NULL, UINT32_MAX,
                              UINT32_MAX, &q));
    if (q) {
        CHECK(queue_runs(q));
        CHECK_OK(hsa_queue_destroy(q));
    }
    CHECK_OK(hsa_queue_destroy(plain));
    CHECK_EQ_U64(callbacks, 0);
    MUST(hsa_shut_down());
    return check_report();
}
