/* Queue creation with ROCr's checks, the amd_queue_t a client reads directly,
   inactivation, destruction, CU masks, priority, soft queues, and calls before hsa_init. */
#include "queue_util.h"
#include <hsa/amd_hsa_queue.h>
#include <hsa/hsa_ext_amd.h>
#include <stddef.h>
#include <string.h>

static void check_before_init(void) {
    hsa_queue_t *q = NULL;
    hsa_agent_t agent = {1};
    char fake[256] = {0};
    CHECK_STATUS(hsa_queue_create(agent, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_queue_destroy((hsa_queue_t *)fake), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_queue_inactivate((hsa_queue_t *)fake), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_EQ_U64(hsa_queue_load_write_index_relaxed((hsa_queue_t *)fake), 0);
    CHECK_EQ_U64(hsa_queue_add_write_index_relaxed((hsa_queue_t *)fake, 1), 0);
}

static void check_creation_errors(uint32_t min_size, uint32_t max_size) {
    hsa_queue_t *q = NULL;
    hsa_agent_t bogus = {0x1100000000000777ull};
    CHECK_STATUS(hsa_queue_create(gpu_agent, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_create(gpu_agent, 0, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_create(gpu_agent, 100, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_create(gpu_agent, 64, 3, NULL, NULL, UINT32_MAX, UINT32_MAX, &q),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_create(bogus, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_queue_create(cpu_agent, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q),
                 HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_queue_create(gpu_agent, min_size / 2, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                  UINT32_MAX, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_create(gpu_agent, max_size * 2, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                  UINT32_MAX, &q), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    /* One past either limit is not a power of two: ROCr checks that first. */
    CHECK_STATUS(hsa_queue_create(gpu_agent, max_size + 1, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                  UINT32_MAX, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_create(gpu_agent, max_size - 1, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                  UINT32_MAX, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_create(gpu_agent, 3 * min_size, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                  UINT32_MAX, &q), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_create(gpu_agent, 0x80000000u, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                  UINT32_MAX, &q), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_queue_create(gpu_agent, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 300000, 0, &q),
                 HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_queue_create(gpu_agent, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX,
                                  (hsa_queue_t **)(uintptr_t)0x1000), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    bool cooperative = true;
    CHECK_OK(hsa_agent_get_info(gpu_agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES, &cooperative));
    if (!cooperative)
        CHECK_STATUS(hsa_queue_create(gpu_agent, 64, HSA_QUEUE_TYPE_COOPERATIVE, NULL, NULL, UINT32_MAX,
                                      UINT32_MAX, &q), HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
}

/* Exactly the smallest and the largest size the agent reports: created, with that size. */
static void check_size_limits(uint32_t min_size, uint32_t max_size) {
    uint32_t sizes[2] = {min_size, max_size};
    for (int i = 0; i < 2; i++) {
        hsa_queue_t *q = NULL;
        CHECK_OK(hsa_queue_create(gpu_agent, sizes[i], HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
        if (!q) continue;
        CHECK_EQ_U64(q->size, sizes[i]);
        CHECK_OK(hsa_queue_destroy(q));
    }
    /* The private segment hint: ROCr refuses more than 262128 bytes a work-item. */
    hsa_queue_t *q = NULL;
    CHECK_OK(hsa_queue_create(gpu_agent, min_size, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 262128, UINT32_MAX, &q));
    if (q) CHECK_OK(hsa_queue_destroy(q));
    CHECK_STATUS(hsa_queue_create(gpu_agent, min_size, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 262129, UINT32_MAX, &q),
                 HSA_STATUS_ERROR_OUT_OF_RESOURCES);
}

static void on_error(hsa_status_t status, hsa_queue_t *source, void *data) {
    (void)status; (void)source; (void)data;
}

static void check_layout(void) {
    hsa_queue_t *q = NULL, *other = NULL;
    CHECK_OK(hsa_queue_create(gpu_agent, 128, HSA_QUEUE_TYPE_MULTI, on_error, NULL, UINT32_MAX, UINT32_MAX, &q));
    CHECK_OK(hsa_queue_create(gpu_agent, 256, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &other));
    if (!q || !other) return;
    amd_queue_t *amd = (amd_queue_t *)q;
    CHECK((uintptr_t)q % 64 == 0);
    CHECK(q->type == HSA_QUEUE_TYPE_MULTI && other->type == HSA_QUEUE_TYPE_SINGLE);
    CHECK(q->features & HSA_QUEUE_FEATURE_KERNEL_DISPATCH);
    CHECK_EQ_U64(q->size, 128);
    CHECK_EQ_U64(other->size, 256);
    CHECK(q->base_address != NULL && (uintptr_t)q->base_address % 64 == 0);
    CHECK(q->base_address != other->base_address);
    CHECK(q->id != other->id);
    CHECK_EQ_U64(amd->write_dispatch_id, 0);
    CHECK_EQ_U64(amd->read_dispatch_id, 0);
    /* Reserving a slot shows in the field a client or kernel reads. */
    CHECK_EQ_U64(hsa_queue_add_write_index_screlease(other, 1), 0);
    CHECK_EQ_U64(((amd_queue_t *)other)->write_dispatch_id, 1);
    CHECK_EQ_U64(amd->read_dispatch_id_field_base_byte_offset, offsetof(amd_queue_t, read_dispatch_id));
    CHECK(amd->queue_properties & AMD_QUEUE_PROPERTIES_IS_PTR64);
    /* Every slot starts INVALID, as ROCr leaves a new ring. */
    const hsa_kernel_dispatch_packet_t *ring = q->base_address;
    int invalid = 0;
    for (uint32_t i = 0; i < q->size; i++)
        invalid += ((ring[i].header >> HSA_PACKET_HEADER_TYPE) & 0xFF) == HSA_PACKET_TYPE_INVALID;
    CHECK_EQ_U64(invalid, q->size);
    /* The doorbell is a live signal the client may store to. */
    CHECK(q->doorbell_signal.handle != 0 && q->doorbell_signal.handle != other->doorbell_signal.handle);
    hsa_signal_t probe = q->doorbell_signal;
    hsa_signal_store_screlease(probe, 0);
    CHECK_EQ_U64(hsa_signal_load_relaxed(probe), 0);
    /* It belongs to the queue: a client cannot destroy it from under the packet processor. */
    CHECK_STATUS(hsa_signal_destroy(probe), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_EQ_U64(hsa_signal_load_relaxed(probe), 0);

    CHECK_OK(hsa_queue_inactivate(q));
    CHECK_OK(hsa_queue_destroy(q));
    CHECK_STATUS(hsa_queue_destroy(q), HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK_STATUS(hsa_queue_inactivate(q), HSA_STATUS_ERROR_INVALID_QUEUE);
    /* The doorbell died with its queue. */
    CHECK_STATUS(hsa_signal_destroy(probe), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_OK(hsa_queue_destroy(other));
}

static void check_invalid_pointers(void) {
    char stack_fake[512];
    memset(stack_fake, 0xAB, sizeof stack_fake);
    void *heap_fake = calloc(1, 512);
    hsa_queue_t *fakes[] = {(hsa_queue_t *)stack_fake, heap_fake, (hsa_queue_t *)(uintptr_t)0x1000,
                            (hsa_queue_t *)(uintptr_t)0xdeadbeef000ull, (hsa_queue_t *)(uintptr_t)1};
    for (size_t i = 0; i < sizeof fakes / sizeof *fakes; i++) {
        hsa_queue_t *f = fakes[i];
        CHECK_STATUS(hsa_queue_destroy(f), HSA_STATUS_ERROR_INVALID_QUEUE);
        CHECK_STATUS(hsa_queue_inactivate(f), HSA_STATUS_ERROR_INVALID_QUEUE);
        CHECK_STATUS(hsa_amd_queue_set_priority(f, HSA_AMD_QUEUE_PRIORITY_HIGH), HSA_STATUS_ERROR_INVALID_QUEUE);
        uint32_t mask[1] = {1};
        CHECK_STATUS(hsa_amd_queue_cu_set_mask(f, 32, mask), HSA_STATUS_ERROR_INVALID_QUEUE);
        CHECK_STATUS(hsa_amd_queue_cu_get_mask(f, 32, mask), HSA_STATUS_ERROR_INVALID_QUEUE);
        CHECK_EQ_U64(hsa_queue_load_read_index_scacquire(f), 0);
        CHECK_EQ_U64(hsa_queue_load_write_index_relaxed(f), 0);
        CHECK_EQ_U64(hsa_queue_add_write_index_scacq_screl(f, 1), 0);
        CHECK_EQ_U64(hsa_queue_cas_write_index_relaxed(f, 0, 1), 0);
        hsa_queue_store_write_index_screlease(f, 9);
        hsa_queue_store_read_index_relaxed(f, 9);
    }
    CHECK_STATUS(hsa_queue_destroy(NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* The fakes were not written. */
    CHECK(((unsigned char *)stack_fake)[0] == 0xAB && ((unsigned char *)stack_fake)[128] == 0xAB);
    CHECK(((uint64_t *)heap_fake)[7] == 0 && ((uint64_t *)heap_fake)[16] == 0);
    free(heap_fake);
}

static void check_cu_mask_and_priority(void) {
    hsa_queue_t *q = NULL;
    CHECK_OK(hsa_queue_create(gpu_agent, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    if (!q) return;
    uint32_t cus = 0;
    CHECK_OK(hsa_agent_get_info(gpu_agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
    uint32_t mask[8];
    CHECK_OK(hsa_amd_queue_cu_get_mask(q, 256, mask));
    for (uint32_t cu = 0; cu < 256; cu++)  /* by default every CU the agent has is enabled */
        CHECK(((mask[cu / 32] >> (cu % 32)) & 1) == (cu < cus));

    uint32_t half[1] = {0x0000FFFF};
    CHECK_OK(hsa_amd_queue_cu_set_mask(q, 32, half));
    CHECK_OK(hsa_amd_queue_cu_get_mask(q, 64, mask));
    CHECK_EQ_U64(mask[0], 0x0000FFFF);
    CHECK_EQ_U64(mask[1], 0);
    uint32_t too_many[8];
    memset(too_many, 0xFF, sizeof too_many);
    /* ROCr trims a mask to the CUs that exist and answers SUCCESS (CU_MASK_REDUCED is for
       CUs its HSA_CU_MASK setting took away). */
    CHECK_OK(hsa_amd_queue_cu_set_mask(q, 256, too_many));
    CHECK_OK(hsa_amd_queue_cu_get_mask(q, 256, mask));
    for (uint32_t cu = 0; cu < 256; cu++) CHECK(((mask[cu / 32] >> (cu % 32)) & 1) == (cu < cus));
    CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 33, half), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 32, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_cu_get_mask(q, 0, mask), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_cu_get_mask(q, 32, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 32, (const uint32_t *)(uintptr_t)0x1000),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 1u << 30, half), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_cu_get_mask(q, 32, (uint32_t *)"read-only"), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_queue_cu_set_mask(q, 0, NULL));  /* back to every CU */
    CHECK_OK(hsa_amd_queue_cu_get_mask(q, 32, mask));
    CHECK_EQ_U64(mask[0], cus >= 32 ? 0xFFFFFFFFu : (1u << cus) - 1);

    CHECK_OK(hsa_amd_queue_set_priority(q, HSA_AMD_QUEUE_PRIORITY_HIGH));
    CHECK_OK(hsa_amd_queue_set_priority(q, HSA_AMD_QUEUE_PRIORITY_LOW));
    CHECK_STATUS(hsa_amd_queue_set_priority(q, (hsa_amd_queue_priority_t)7), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_queue_destroy(q));
}

static void check_soft_queue(void) {
    hsa_region_t region = {0}, bogus_region = {0x1200000000000999ull};
    CHECK_STATUS(hsa_agent_iterate_regions(cpu_agent, first_region, &region), HSA_STATUS_INFO_BREAK);
    hsa_signal_t doorbell, bogus_signal = {0x5100000000000777ull};
    CHECK_OK(hsa_signal_create(0, 0, NULL, &doorbell));
    hsa_queue_t *q = NULL;
    const uint32_t dispatch = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
    CHECK_STATUS(hsa_soft_queue_create((hsa_region_t){0}, 64, HSA_QUEUE_TYPE_MULTI, dispatch, doorbell, &q),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_soft_queue_create(region, 64, HSA_QUEUE_TYPE_MULTI, 0, doorbell, &q),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_soft_queue_create(region, 48, HSA_QUEUE_TYPE_MULTI, dispatch, doorbell, &q),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_soft_queue_create(region, 64, HSA_QUEUE_TYPE_MULTI, dispatch, doorbell, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_soft_queue_create(bogus_region, 64, HSA_QUEUE_TYPE_MULTI, dispatch, doorbell, &q),
                 HSA_STATUS_ERROR_INVALID_REGION);
    CHECK_STATUS(hsa_soft_queue_create(region, 64, HSA_QUEUE_TYPE_MULTI, dispatch, bogus_signal, &q),
                 HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_OK(hsa_soft_queue_create(region, 64, HSA_QUEUE_TYPE_SINGLE, dispatch, doorbell, &q));
    if (q) {
        CHECK_EQ_U64(q->doorbell_signal.handle, doorbell.handle);
        CHECK_EQ_U64(q->size, 64);
        CHECK(q->type == HSA_QUEUE_TYPE_SINGLE);
        CHECK_EQ_U64(hsa_queue_add_write_index_relaxed(q, 2), 0);
        CHECK_EQ_U64(hsa_queue_load_write_index_scacquire(q), 2);
        CHECK_OK(hsa_queue_destroy(q));
    }
    /* The doorbell belongs to the client and outlives the soft queue. */
    CHECK_OK(hsa_signal_destroy(doorbell));
}

int main(void) {
    check_before_init();
    CHECK_OK(hsa_init());
    find_gpu_and_cpu();
    uint32_t min_size = 0, max_size = 0;
    CHECK_OK(hsa_agent_get_info(gpu_agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE, &min_size));
    CHECK_OK(hsa_agent_get_info(gpu_agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &max_size));
    CHECK(min_size >= 1 && min_size <= 128 && max_size >= 256);
    check_creation_errors(min_size, max_size);
    check_size_limits(min_size, max_size);
    check_layout();
    check_invalid_pointers();
    check_cu_mask_and_priority();
    check_soft_queue();

    /* A queue pointer kept past hsa_shut_down is dead: its memory is gone, and the
       exports neither read it nor crash. */
    hsa_queue_t *q = NULL;
    CHECK_OK(hsa_queue_create(gpu_agent, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    CHECK_OK(hsa_shut_down());
    CHECK_EQ_U64(hsa_queue_load_write_index_relaxed(q), 0);
    hsa_queue_store_write_index_relaxed(q, 3);
    CHECK_OK(hsa_init());
    CHECK_STATUS(hsa_queue_destroy(q), HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK_OK(hsa_shut_down());
    check_before_init();
    return check_report();
}
