/* Shared set-up for AQL tests: agents, pools, code objects, packet submission. */
#ifndef SOFTGPU_TEST_AQL_UTIL_H
#define SOFTGPU_TEST_AQL_UTIL_H
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

typedef struct {
    hsa_agent_t gpu, cpu;
    hsa_amd_memory_pool_t kernarg_pool, device_pool;
    hsa_executable_t executable;
    hsa_code_object_reader_t reader;
} aql_env_t;

static inline hsa_status_t aql_pick_pool(hsa_amd_memory_pool_t pool, void *data) {
    aql_env_t *env = data;
    hsa_amd_segment_t segment;
    uint32_t flags;
    MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
    if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !env->kernarg_pool.handle)
        env->kernarg_pool = pool;
    else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !env->device_pool.handle)
        env->device_pool = pool;
    return HSA_STATUS_SUCCESS;
}

static inline void aql_setup(aql_env_t *env, const char *code_object_path) {
    memset(env, 0, sizeof *env);
    MUST(hsa_init());
    find_cpu_gpu(&env->cpu, &env->gpu);
    MUST(hsa_amd_agent_iterate_memory_pools(env->cpu, aql_pick_pool, env));
    MUST(hsa_amd_agent_iterate_memory_pools(env->gpu, aql_pick_pool, env));
    if (!env->gpu.handle || !env->kernarg_pool.handle || !env->device_pool.handle) {
        printf("FAIL: no GPU agent, kernarg pool or device pool\n");
        exit(1);
    }
    MUST(hsa_code_object_reader_create_from_file(fileno(fopen(code_object_path, "rb")), &env->reader));
    MUST(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL,
                                   &env->executable));
    MUST(hsa_executable_load_agent_code_object(env->executable, env->gpu, env->reader, NULL, NULL));
    MUST(hsa_executable_freeze(env->executable, NULL));
}

static inline uint64_t aql_kernel(aql_env_t *env, const char *name) {
    hsa_executable_symbol_t symbol;
    uint64_t object;
    char full[128];
    snprintf(full, sizeof full, "%s.kd", name);
    MUST(hsa_executable_get_symbol_by_name(env->executable, full, &env->gpu, &symbol));
    MUST(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object));
    return object;
}

/* Shared memory for host and kernels: device pool, made accessible to both agents. */
static inline void *aql_alloc(aql_env_t *env, size_t bytes) {
    void *p;
    hsa_agent_t both[2] = {env->gpu, env->cpu};
    MUST(hsa_amd_memory_pool_allocate(env->kernarg_pool, bytes, 0, &p));
    MUST(hsa_amd_agents_allow_access(2, both, NULL, p));
    memset(p, 0, bytes);
    return p;
}

/* Reserve a slot, fill the body, publish the header last (release), ring the doorbell. */
static inline void aql_publish(hsa_queue_t *queue, const void *packet) {
    uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
    while (index - hsa_queue_load_read_index_scacquire(queue) >= queue->size)
        ;
    uint8_t *slot = (uint8_t *)queue->base_address + (index % queue->size) * 64;
    memcpy(slot + 4, (const uint8_t *)packet + 4, 60);
    __atomic_store_n((uint32_t *)slot, *(const uint32_t *)packet, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)index);
}

static inline uint16_t aql_header(hsa_packet_type_t type) {
    return (uint16_t)((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

/* A 1D kernel dispatch packet (no group or private segment), for a test to adjust and publish. */
static inline hsa_kernel_dispatch_packet_t aql_dispatch_packet(uint64_t kernel_object, void *kernarg,
                                                               uint32_t grid, uint16_t workgroup,
                                                               hsa_signal_t completion) {
    hsa_kernel_dispatch_packet_t p;
    memset(&p, 0, sizeof p);
    p.header = aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH);
    p.setup = 1;
    p.workgroup_size_x = workgroup;
    p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = grid;
    p.grid_size_y = p.grid_size_z = 1;
    p.kernel_object = kernel_object;
    p.kernarg_address = kernarg;
    p.completion_signal = completion;
    return p;
}

static inline void aql_dispatch(hsa_queue_t *queue, uint64_t kernel_object, void *kernarg, uint32_t grid,
                         uint16_t workgroup, hsa_signal_t completion) {
    hsa_kernel_dispatch_packet_t p = aql_dispatch_packet(kernel_object, kernarg, grid, workgroup, completion);
    aql_publish(queue, &p);
}

/* A 64-packet queue with no error callback (ROCr's default handling). */
static inline hsa_queue_t *aql_queue(aql_env_t *env) {
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env->gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue));
    return queue;
}

/* A barrier-AND or barrier-OR packet (same layout) on `deps` (0 handles are ignored). */
static inline void aql_barrier(hsa_queue_t *queue, hsa_packet_type_t type, const hsa_signal_t deps[5],
                               hsa_signal_t completion) {
    hsa_barrier_and_packet_t p;
    memset(&p, 0, sizeof p);
    p.header = aql_header(type);
    if (deps) memcpy(p.dep_signal, deps, sizeof p.dep_signal);
    p.completion_signal = completion;
    aql_publish(queue, &p);
}

/* A queue error callback that records: how many errors arrived and the last status. */
static volatile int aql_errors_seen;
static volatile hsa_status_t aql_error_status;
static inline void aql_record_error(hsa_status_t status, hsa_queue_t *queue, void *data) {
    (void)queue;
    (void)data;
    aql_error_status = status;
    aql_errors_seen++;
}
/* Wait (at most a minute) for aql_record_error to see exactly one error, of status `expected`. */
static inline void aql_expect_one_error(hsa_status_t expected) {
    for (int i = 0; i < 60000 && !aql_errors_seen; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    CHECK_EQ_U64(aql_errors_seen, 1);
    CHECK_STATUS(aql_error_status, expected);
}
/* Wait for `completion` or for aql_record_error to see an error, whichever comes first
   (unbounded: the caller's harness bounds it); 1 if an error came. The 10 ms timeout only
   paces the polling of the error count. */
static inline int aql_wait_done_or_error(hsa_signal_t completion) {
    while (!__atomic_load_n(&aql_errors_seen, __ATOMIC_ACQUIRE) &&
           hsa_signal_wait_scacquire(completion, HSA_SIGNAL_CONDITION_LT, 1, 10 * 1000 * 1000,
                                     HSA_WAIT_STATE_BLOCKED) != 0)
        ;
    return aql_errors_seen != 0;
}
/* Wait for a completion signal with a bound: a test must fail, never hang. */
static inline int aql_wait_zero(hsa_signal_t signal, double seconds) {
    uint64_t ticks = (uint64_t)(seconds * 1e9);
    return hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_LT, 1, ticks, HSA_WAIT_STATE_BLOCKED) == 0;
}
#endif
