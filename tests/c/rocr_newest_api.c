/* The exports the newest ROCr adds to 5.2.3's (besides virtual memory and dma-buf), against
   the newest official headers: argument checks in ROCr's order, then real behaviour.
   argv: H2D_MASK D2H_MASK SDMA_ENGINES XGMI_ENGINES H2D_ONLY_SDMA0 (the profile's engines as
   ROCr reckons them; the test's expectations come from the caller). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_image.h>
#include <hsa/hsa_ven_amd_pc_sampling.h>
#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

extern struct r_debug _amdgpu_r_debug;

static hsa_agent_t cpu, gpu;
static hsa_amd_memory_pool_t cpu_pool, gpu_pool;

static hsa_status_t find_agents(hsa_agent_t agent, void *data) {
    (void)data;
    hsa_device_type_t type;
    hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    if (type == HSA_DEVICE_TYPE_CPU && !cpu.handle) cpu = agent;
    if (type == HSA_DEVICE_TYPE_GPU && !gpu.handle) gpu = agent;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t first_global_pool(hsa_amd_memory_pool_t pool, void *data) {
    hsa_amd_segment_t segment;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
    if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    *(hsa_amd_memory_pool_t *)data = pool;
    return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t first_global_region(hsa_region_t region, void *data) {
    hsa_region_segment_t segment;
    hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &segment);
    if (segment != HSA_REGION_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    *(hsa_region_t *)data = region;
    return HSA_STATUS_INFO_BREAK;
}

static void before_init(void) {
    uint32_t mask = 0;
    uint8_t flags[8] = {0};
    hsa_agent_t any = {1};
    CHECK_STATUS(hsa_amd_memory_copy_engine_status(any, any, &mask), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_enable_logging(flags, NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
    hsa_signal_t none = {0};
    hsa_signal_condition_t cond = HSA_SIGNAL_CONDITION_EQ;
    hsa_signal_value_t value = 0;
    CHECK(hsa_amd_signal_wait_all(1, &none, &cond, &value, 0, HSA_WAIT_STATE_ACTIVE, NULL) == UINT32_MAX);
}

static void copy_engines(uint32_t h2d, uint32_t d2h, uint32_t engines, uint32_t xgmi, int h2d_only) {
    uint32_t mask = 0xdead;
    hsa_agent_t bad = {0};
    /* Agents first (destination, then source), then the pairing, then the out-pointer. */
    CHECK_STATUS(hsa_amd_memory_copy_engine_status(bad, gpu, NULL), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_memory_copy_engine_status(gpu, bad, NULL), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_memory_copy_engine_status(gpu, gpu, NULL), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_memory_copy_engine_status(cpu, cpu, &mask), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_memory_copy_engine_status(gpu, cpu, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_memory_copy_engine_status(gpu, cpu, &mask));
    CHECK_EQ_U64(mask, h2d);
    CHECK_OK(hsa_amd_memory_copy_engine_status(cpu, gpu, &mask));
    CHECK_EQ_U64(mask, d2h);
    /* The query does not reserve anything: asked again, the same engines are free. */
    CHECK_OK(hsa_amd_memory_copy_engine_status(cpu, gpu, &mask));
    CHECK_EQ_U64(mask, d2h);

    mask = 0xdead;
    CHECK_STATUS(hsa_amd_memory_get_preferred_copy_engine(gpu, gpu, &mask), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_OK(hsa_amd_memory_get_preferred_copy_engine(gpu, cpu, &mask));
    CHECK_EQ_U64(mask, 0);

    /* A real copy on each engine the status offers, from host to device and back. */
    enum { N = 4096 };
    uint8_t *host = NULL, *dev = NULL, *back = NULL;
    MUST(hsa_amd_memory_pool_allocate(cpu_pool, N, 0, (void **)&host));
    MUST(hsa_amd_memory_pool_allocate(cpu_pool, N, 0, (void **)&back));
    MUST(hsa_amd_memory_pool_allocate(gpu_pool, N, 0, (void **)&dev));
    hsa_agent_t both[2] = {cpu, gpu};
    MUST(hsa_amd_agents_allow_access(2, both, NULL, host));
    MUST(hsa_amd_agents_allow_access(2, both, NULL, back));
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    for (uint32_t engine = 0; engine < 16; engine++) {
        hsa_amd_sdma_engine_id_t id = (hsa_amd_sdma_engine_id_t)(1u << engine);
        for (int i = 0; i < N; i++) host[i] = (uint8_t)(i * 7 + engine);
        memset(back, 0, N);
        hsa_signal_store_relaxed(done, 1);
        hsa_status_t up = hsa_amd_memory_async_copy_on_engine(dev, gpu, host, cpu, N, 0, NULL, done, id, false);
        /* Engine ids run to the board's SDMA plus xGMI engines: the last one is accepted, the
           next refused. */
        hsa_status_t want = engine < engines + xgmi ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
        CHECK_EQ_U64(up, want);
        if (up != HSA_STATUS_SUCCESS) continue;
        CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
        hsa_signal_store_relaxed(done, 1);
        hsa_status_t down = hsa_amd_memory_async_copy_on_engine(back, cpu, dev, gpu, N, 0, NULL, done, id, false);
        /* gfx90a's SDMA0 copies host-to-device only. */
        CHECK_EQ_U64(down, engine == 0 && h2d_only ? HSA_STATUS_ERROR_INVALID_ARGUMENT : HSA_STATUS_SUCCESS);
        if (down != HSA_STATUS_SUCCESS) continue;
        CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
        CHECK(memcmp(host, back, N) == 0);
    }
    hsa_signal_store_relaxed(done, 1);
    /* Not one engine: none, or two at once. */
    CHECK_STATUS(hsa_amd_memory_async_copy_on_engine(dev, gpu, host, cpu, N, 0, NULL, done, 0, false),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy_on_engine(dev, gpu, host, cpu, N, 0, NULL, done,
                                                     HSA_AMD_SDMA_ENGINE_0 | HSA_AMD_SDMA_ENGINE_1, false),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* ROCr's order: pointers, dependency list, agents, signals; the engine only for a copy of
       some bytes (an empty copy succeeds whatever the engine). */
    CHECK_STATUS(hsa_amd_memory_async_copy_on_engine(NULL, gpu, host, cpu, N, 0, NULL, done, 0, false),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy_on_engine(dev, gpu, host, cpu, N, 1, NULL, done, 0, false),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_agent_t bad_agent = {0};
    CHECK_STATUS(hsa_amd_memory_async_copy_on_engine(dev, bad_agent, host, cpu, N, 0, NULL, done, 0, false),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    hsa_signal_t dead = {0};
    CHECK_STATUS(hsa_amd_memory_async_copy_on_engine(dev, gpu, host, cpu, N, 0, NULL, dead, 1, false),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_memory_async_copy_on_engine(dev, gpu, host, cpu, 0, 0, NULL, done, 0, false));
    CHECK(hsa_signal_load_relaxed(done) == 1);          /* an empty copy leaves the signal alone */
    hsa_signal_destroy(done);
    hsa_amd_memory_pool_free(host);
    hsa_amd_memory_pool_free(back);
    hsa_amd_memory_pool_free(dev);
}

static void queue_info(void) {
    hsa_queue_t *queue = NULL;
    MUST(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue));
    hsa_agent_t owner = {0};
    CHECK_OK(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_AGENT, &owner));
    CHECK_EQ_U64(owner.handle, gpu.handle);
    uint64_t doorbell = 0;
    CHECK_OK(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_DOORBELL_ID, &doorbell));
    /* ROCr's is the doorbell the queue's amd_signal_t points at; SoftGPU's doorbell is the
       value word of that amd_signal_t, the one a doorbell store writes. */
    amd_signal_t *bell_signal = (amd_signal_t *)(uintptr_t)queue->doorbell_signal.handle;
    CHECK_EQ_U64(doorbell, (uintptr_t)&bell_signal->value);
    CHECK_STATUS(hsa_amd_queue_get_info(queue, (hsa_queue_info_attribute_t)2, &doorbell),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_AGENT, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_get_info(NULL, HSA_AMD_QUEUE_INFO_AGENT, &owner), HSA_STATUS_ERROR_INVALID_QUEUE);
    /* What the newest ROCr writes in an amd_queue_v2_t: no async scratch reclaim, no
       scratch use index yet. */
    amd_queue_v2_t *amd = (amd_queue_v2_t *)queue;
    CHECK_EQ_U64(amd->caps, 0);
    CHECK_EQ_U64(amd->scratch_max_use_index, UINT64_MAX);
    CHECK_EQ_U64(amd->alt_scratch_max_use_index, UINT64_MAX);
    CHECK(amd->queue_properties & AMD_QUEUE_PROPERTIES_IS_PTR64);
    /* The flat apertures' high halves (SoftGPU's: LDS at 0x1_0000_xxxx_xxxx, scratch at
       0x2_0000_xxxx_xxxx). */
    CHECK_EQ_U64(amd->group_segment_aperture_base_hi, 0x10000);
    CHECK_EQ_U64(amd->private_segment_aperture_base_hi, 0x20000);
    MUST(hsa_queue_destroy(queue));
    CHECK_STATUS(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_AGENT, &owner), HSA_STATUS_ERROR_INVALID_QUEUE);

    /* A soft queue (ROCr's host queue) answers no info. */
    hsa_region_t region = {0};
    hsa_signal_t bell;
    MUST(hsa_signal_create(0, 0, NULL, &bell));
    hsa_agent_iterate_regions(cpu, first_global_region, &region);
    if (region.handle) {
        MUST(hsa_soft_queue_create(region, 64, HSA_QUEUE_TYPE_MULTI, HSA_QUEUE_FEATURE_AGENT_DISPATCH, bell, &queue));
        CHECK_STATUS(hsa_amd_queue_get_info(queue, HSA_AMD_QUEUE_INFO_AGENT, &owner), HSA_STATUS_ERROR_INVALID_QUEUE);
        MUST(hsa_queue_destroy(queue));
    } else {
        CHECK(!"the CPU agent has a global region");
    }
    hsa_signal_destroy(bell);
}

static hsa_signal_t late[2];

static void *set_later(void *arg) {
    (void)arg;
    usleep(20000);
    hsa_signal_store_screlease(late[0], 5);
    usleep(20000);
    hsa_signal_store_screlease(late[1], 7);
    return NULL;
}

static void wait_all(void) {
    hsa_signal_t s[3];
    for (int i = 0; i < 3; i++) MUST(hsa_signal_create(i, 0, NULL, &s[i]));
    hsa_signal_condition_t eq[3] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_GTE};
    hsa_signal_value_t want[3] = {0, 1, 2};
    hsa_signal_value_t seen[3] = {-1, -1, -1};
    CHECK(hsa_amd_signal_wait_all(3, s, eq, want, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, seen) == 0);
    CHECK(seen[0] == 0 && seen[1] == 1 && seen[2] == 2);
    /* One condition short: a timeout (UINT32_MAX); the met ones' values are still given. */
    want[2] = 3;
    seen[0] = seen[1] = seen[2] = -1;
    CHECK(hsa_amd_signal_wait_all(3, s, eq, want, 1000000, HSA_WAIT_STATE_ACTIVE, seen) == UINT32_MAX);
    CHECK(seen[0] == 0 && seen[1] == 1 && seen[2] == 0);
    /* A null handle counts as satisfied (value 0); with nothing else to wait on, 0 at once. */
    hsa_signal_t nulls[2] = {{0}, s[1]};
    want[0] = 99;
    want[1] = 1;
    seen[0] = seen[1] = -1;
    CHECK(hsa_amd_signal_wait_all(2, nulls, eq, want, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, seen) == 0);
    CHECK(seen[0] == 0 && seen[1] == 1);
    CHECK(hsa_amd_signal_wait_all(1, nulls, eq, want, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, seen) == 0);
    CHECK(hsa_amd_signal_wait_all(0, NULL, NULL, NULL, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, NULL) == 0);
    /* As many handles as SoftGPU's signal table holds (262144), all null: satisfied; one more
       is more signals than can exist, an invalid call. */
    enum { TABLE = 262144 };
    hsa_signal_t *many = calloc(TABLE + 1, sizeof *many);
    hsa_signal_condition_t *many_conds = calloc(TABLE + 1, sizeof *many_conds);
    hsa_signal_value_t *many_values = calloc(TABLE + 1, sizeof *many_values);
    CHECK(hsa_amd_signal_wait_all(TABLE, many, many_conds, many_values, 0, HSA_WAIT_STATE_ACTIVE, NULL) == 0);
    CHECK(hsa_amd_signal_wait_all(TABLE + 1, many, many_conds, many_values, 0, HSA_WAIT_STATE_ACTIVE, NULL) ==
          UINT32_MAX);
    free(many);
    free(many_conds);
    free(many_values);
    /* A condition ROCr does not know ends the wait. */
    hsa_signal_condition_t odd[1] = {(hsa_signal_condition_t)9};
    CHECK(hsa_amd_signal_wait_all(1, &s[0], odd, want, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, NULL) == UINT32_MAX);
    CHECK(hsa_amd_signal_wait_all(2, s, NULL, want, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, NULL) == UINT32_MAX);
    /* Every signal met, in any order, by another thread while the wait sleeps. */
    late[0] = s[0];
    late[1] = s[1];
    hsa_signal_value_t later[2] = {5, 7};
    pthread_t t;
    pthread_create(&t, NULL, set_later, NULL);
    CHECK(hsa_amd_signal_wait_all(2, late, eq, later, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, seen) == 0);
    CHECK(seen[0] == 5 && seen[1] == 7);
    pthread_join(t, NULL);
    for (int i = 0; i < 3; i++) hsa_signal_destroy(s[i]);
    /* Around the library's 16-signal small-wait path: 16 and 17 live signals, each value
       reported in its own slot; the 17th unmet is a timeout at either size. */
    enum { ROW = 17 };
    hsa_signal_t row[ROW];
    hsa_signal_condition_t row_conds[ROW];
    hsa_signal_value_t row_want[ROW], row_seen[ROW];
    for (int i = 0; i < ROW; i++) {
        MUST(hsa_signal_create(100 + i, 0, NULL, &row[i]));
        row_conds[i] = HSA_SIGNAL_CONDITION_EQ;
        row_want[i] = 100 + i;
    }
    for (int count = ROW - 1; count <= ROW; count++) {
        for (int i = 0; i < ROW; i++) row_seen[i] = -1;
        CHECK(hsa_amd_signal_wait_all(count, row, row_conds, row_want, UINT64_MAX, HSA_WAIT_STATE_BLOCKED,
                                      row_seen) == 0);
        for (int i = 0; i < count; i++) CHECK(row_seen[i] == 100 + i);
        CHECK(count == ROW || row_seen[ROW - 1] == -1);
        row_want[count - 1] = -5;
        CHECK(hsa_amd_signal_wait_all(count, row, row_conds, row_want, 1000, HSA_WAIT_STATE_ACTIVE, NULL) ==
              UINT32_MAX);
        row_want[count - 1] = 100 + count - 1;
    }
    for (int i = 0; i < ROW; i++) hsa_signal_destroy(row[i]);
}

static void samplers(void) {
    hsa_ext_sampler_descriptor_v2_t d = {HSA_EXT_SAMPLER_COORDINATE_MODE_NORMALIZED, HSA_EXT_SAMPLER_FILTER_MODE_LINEAR,
                                         {HSA_EXT_SAMPLER_ADDRESSING_MODE_CLAMP_TO_EDGE,
                                          HSA_EXT_SAMPLER_ADDRESSING_MODE_REPEAT,
                                          HSA_EXT_SAMPLER_ADDRESSING_MODE_MIRRORED_REPEAT}};
    hsa_ext_sampler_t sampler = {0};
    hsa_agent_t zero = {0};
    CHECK_STATUS(hsa_ext_sampler_create_v2(zero, &d, &sampler), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_sampler_create_v2(gpu, NULL, &sampler), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_create_v2(gpu, &d, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_create_v2(cpu, &d, &sampler), HSA_STATUS_ERROR_INVALID_AGENT);
    d.address_modes[2] = (hsa_ext_sampler_addressing_mode32_t)99;
    CHECK_STATUS(hsa_ext_sampler_create_v2(gpu, &d, &sampler), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    d.address_modes[2] = HSA_EXT_SAMPLER_ADDRESSING_MODE_MIRRORED_REPEAT;
    CHECK_OK(hsa_ext_sampler_create_v2(gpu, &d, &sampler));
    CHECK(sampler.handle != 0);
    CHECK_OK(hsa_ext_sampler_destroy(gpu, sampler));
    CHECK_STATUS(hsa_ext_sampler_destroy(gpu, sampler), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* The images table grew to 112 bytes with sampler_create_v2 at its end; a 1.00 table
       (80 bytes) is copied no further than asked. */
    hsa_ext_images_1_pfn_t table;
    CHECK_EQ_U64(sizeof table, 112);
    memset(&table, 0, sizeof table);
    CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, sizeof table, &table));
    CHECK(table.hsa_ext_sampler_create_v2 == hsa_ext_sampler_create_v2);
    CHECK(table.hsa_ext_sampler_create == hsa_ext_sampler_create);
    memset(&table, 0, sizeof table);
    CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, sizeof(hsa_ext_images_1_00_pfn_t), &table));
    CHECK(table.hsa_ext_sampler_create == hsa_ext_sampler_create);
    CHECK(table.hsa_ext_sampler_create_v2 == NULL);
}

static hsa_status_t count_configuration(const hsa_ven_amd_pcs_configuration_t *c, void *data) {
    (void)c;
    ++*(int *)data;
    return HSA_STATUS_SUCCESS;
}

static void data_ready(void *client, size_t bytes, size_t lost, hsa_ven_amd_pcs_data_copy_callback_t copy, void *hsa) {
    (void)client, (void)bytes, (void)lost, (void)copy, (void)hsa;
}

static void counters_and_limits(void) {
    /* SPM: ROCr's answer when the driver has no SPM (ERROR), after the agent check. */
    CHECK_STATUS(hsa_amd_spm_acquire(cpu), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_spm_acquire(gpu), HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_amd_spm_release(gpu), HSA_STATUS_ERROR);
    uint32_t timeout = 0, copied = 0;
    bool lost = false;
    CHECK_STATUS(hsa_amd_spm_set_dest_buffer(cpu, 0, &timeout, &copied, NULL, &lost), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_spm_set_dest_buffer(gpu, 0, &timeout, &copied, NULL, &lost), HSA_STATUS_ERROR);

    /* PC sampling: no configuration; a session is checked, then refused. */
    int configurations = 0;
    CHECK_STATUS(hsa_ven_amd_pcs_iterate_configuration(cpu, count_configuration, &configurations),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_OK(hsa_ven_amd_pcs_iterate_configuration(gpu, count_configuration, &configurations));
    CHECK(configurations == 0);
    hsa_ven_amd_pcs_t pcs = {0};
    size_t pair = 2 * sizeof(perf_sample_hosttrap_v1_t);
    CHECK_STATUS(hsa_ven_amd_pcs_create(cpu, HSA_VEN_AMD_PCS_METHOD_HOSTTRAP_V1, HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS,
                                        100, 0, pair, data_ready, NULL, &pcs), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ven_amd_pcs_create(gpu, HSA_VEN_AMD_PCS_METHOD_HOSTTRAP_V1, HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS,
                                        100, 0, pair, data_ready, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ven_amd_pcs_create(gpu, HSA_VEN_AMD_PCS_METHOD_HOSTTRAP_V1, HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS,
                                        100, 0, pair, NULL, NULL, &pcs), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ven_amd_pcs_create(gpu, HSA_VEN_AMD_PCS_METHOD_HOSTTRAP_V1, HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS,
                                        0, 0, pair, data_ready, NULL, &pcs), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* The buffer holds whole pairs of samples: one pair passes the check, a byte more not. */
    CHECK_STATUS(hsa_ven_amd_pcs_create(gpu, HSA_VEN_AMD_PCS_METHOD_HOSTTRAP_V1, HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS,
                                        100, 0, pair + 1, data_ready, NULL, &pcs), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ven_amd_pcs_create(gpu, HSA_VEN_AMD_PCS_METHOD_HOSTTRAP_V1, HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS,
                                        100, 0, pair, data_ready, NULL, &pcs), HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_ven_amd_pcs_create_from_id(1, gpu, (hsa_ven_amd_pcs_method_kind_t)7,
                                                HSA_VEN_AMD_PCS_INTERVAL_UNITS_MICRO_SECONDS, 100, 0, pair,
                                                data_ready, NULL, &pcs), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ven_amd_pcs_start(pcs), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ven_amd_pcs_stop(pcs), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ven_amd_pcs_flush(pcs), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ven_amd_pcs_destroy(pcs), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* The extension table the newest ROCr hands out for PC sampling. */
    hsa_ven_amd_pc_sampling_1_00_pfn_t pcs_table;
    memset(&pcs_table, 0, sizeof pcs_table);
    CHECK_OK(hsa_system_get_extension_table(HSA_EXTENSION_AMD_PC_SAMPLING, 1, 0, &pcs_table));
    CHECK(pcs_table.hsa_ven_amd_pcs_create == hsa_ven_amd_pcs_create);
    CHECK(pcs_table.hsa_ven_amd_pcs_flush == hsa_ven_amd_pcs_flush);
    CHECK_STATUS(hsa_system_get_extension_table(HSA_EXTENSION_AMD_PC_SAMPLING, 2, 0, &pcs_table), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Scratch: the 4 GiB aperture of one XCC, no async threshold, none settable. */
    uint64_t limit = 1;
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX, &limit));
    CHECK_EQ_U64(limit, 1ull << 32);
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_CURRENT, &limit));
    CHECK_EQ_U64(limit, 0);
    CHECK_STATUS(hsa_amd_agent_set_async_scratch_limit(cpu, 0), HSA_STATUS_ERROR_INVALID_AGENT);
    hsa_agent_t zero = {0};
    CHECK_STATUS(hsa_amd_agent_set_async_scratch_limit(zero, 0), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_agent_set_async_scratch_limit(gpu, 1 << 20), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Clock counters, read together: the system counter lies between two system timestamps
       and runs at the system timestamp's frequency; the GPU counter moves on. */
    hsa_amd_clock_counters_t first, second;
    uint64_t before, after, frequency;
    MUST(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency));
    MUST(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &before));
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CLOCK_COUNTERS, &first));
    MUST(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &after));
    CHECK(before <= first.system_clock_counter && first.system_clock_counter <= after);
    CHECK_EQ_U64(first.system_clock_frequency, frequency);
    usleep(1000);
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CLOCK_COUNTERS, &second));
    CHECK(second.gpu_clock_counter > first.gpu_clock_counter);
    CHECK(second.system_clock_counter > first.system_clock_counter);
    /* The CPU agent answers these GPU-only attributes with zeros, as the newest ROCr. */
    limit = 1;
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_MAX, &limit));
    CHECK_EQ_U64(limit, 0);
    limit = 1;
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_SCRATCH_LIMIT_CURRENT, &limit));
    CHECK_EQ_U64(limit, 0);
    memset(&first, 0xff, sizeof first);
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CLOCK_COUNTERS, &first));
    CHECK(first.gpu_clock_counter == 0 && first.cpu_clock_counter == 0 &&
          first.system_clock_counter == 0 && first.system_clock_frequency == 0);

    /* Logging: the flags must be readable; the last call wins. */
    uint8_t flags[8] = {1 << HSA_AMD_LOG_FLAG_BLIT_KERNEL_PKTS};
    CHECK_STATUS(hsa_amd_enable_logging(NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_enable_logging(flags, stdout));
    flags[0] = 0;
    CHECK_OK(hsa_amd_enable_logging(flags, NULL));
    /* The flags are 8 bytes: 8 readable before an unreadable page pass, 7 do not. */
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    MUST(pages == MAP_FAILED ? HSA_STATUS_ERROR : HSA_STATUS_SUCCESS);
    mprotect(pages + page, page, PROT_NONE);
    CHECK_OK(hsa_amd_enable_logging(pages + page - 8, NULL));
    CHECK_STATUS(hsa_amd_enable_logging(pages + page - 7, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    munmap(pages, 2 * page);

    /* The statuses the newer headers add have their names. */
    const char *text = NULL;
    CHECK_OK(hsa_status_string(HSA_STATUS_ERROR_OUT_OF_REGISTERS, &text));
    CHECK(text && strstr(text, "HSA_STATUS_ERROR_OUT_OF_REGISTERS"));
    CHECK_OK(hsa_status_string(HSA_STATUS_ERROR_RESOURCE_BUSY, &text));
    CHECK(text && strstr(text, "HSA_STATUS_ERROR_RESOURCE_BUSY"));
    CHECK_OK(hsa_status_string(HSA_STATUS_ERROR_NOT_SUPPORTED, &text));
    CHECK(text && strstr(text, "HSA_STATUS_ERROR_NOT_SUPPORTED"));
    CHECK_STATUS(hsa_status_string((hsa_status_t)(HSA_STATUS_ERROR_NOT_SUPPORTED + 1), &text),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void debugger_rendezvous(void) {
    /* As ROCr leaves it after hsa_init: version 11, an empty map, consistent, a breakpoint
       address inside the library. */
    CHECK_EQ_U64(_amdgpu_r_debug.r_version, 11);
    CHECK(_amdgpu_r_debug.r_map == NULL);
    CHECK_EQ_U64(_amdgpu_r_debug.r_state, RT_CONSISTENT);
    Dl_info where;
    CHECK(_amdgpu_r_debug.r_brk != 0 && dladdr((void *)_amdgpu_r_debug.r_brk, &where) &&
          strstr(where.dli_fname, "libhsa-runtime64.so"));
}

int main(int argc, char **argv) {
    if (argc != 6) return 2;
    before_init();
    MUST(hsa_init());
    hsa_iterate_agents(find_agents, NULL);
    hsa_amd_agent_iterate_memory_pools(cpu, first_global_pool, &cpu_pool);
    hsa_amd_agent_iterate_memory_pools(gpu, first_global_pool, &gpu_pool);
    copy_engines((uint32_t)strtoul(argv[1], NULL, 0), (uint32_t)strtoul(argv[2], NULL, 0),
                 (uint32_t)atoi(argv[3]), (uint32_t)atoi(argv[4]), atoi(argv[5]));
    queue_info();
    wait_all();
    samplers();
    counters_and_limits();
    debugger_rendezvous();
    MUST(hsa_shut_down());
    return check_failures ? 1 : 0;
}
