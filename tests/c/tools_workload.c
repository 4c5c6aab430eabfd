/* A small HSA workload for the timeline, statistics and capture tests: three dispatches of
   scale_add (out = 2 * a + i) and one of count_items on one queue, a barrier-AND on a satisfied signal, an
   async copy from device memory to a host buffer, then (with the argument "fault") a
   store_through dispatch to a wild address on a queue whose error callback records it.
   Usage: tools_workload CODE_OBJECT [fault] */
#include <unistd.h>

#include "aql_util.h"

static volatile int callback_status = -1;

/* The GPU's own global pool (aql_env_t's device pool may be a CPU coarse-grained one). */
static hsa_status_t pick_gpu_pool(hsa_amd_memory_pool_t pool, void *data) {
    hsa_amd_segment_t segment;
    MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
    if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    *(hsa_amd_memory_pool_t *)data = pool;
    return HSA_STATUS_INFO_BREAK;
}

static void on_queue_error(hsa_status_t status, hsa_queue_t *queue, void *data) {
    (void)queue;
    (void)data;
    callback_status = (int)status;
}

int main(int argc, char **argv) {
    aql_env_t env;
    aql_setup(&env, argv[1]);
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));

    enum { N = 1024 };
    float *a = aql_alloc(&env, N * sizeof(float)), *out = aql_alloc(&env, N * sizeof(float));
    for (int i = 0; i < N; i++) a[i] = (float)i;
    struct { float *a, *out; float scale; uint32_t n; } *args = aql_alloc(&env, 64);
    args->a = a;
    args->out = out;
    args->scale = 2.0f;
    args->n = N;
    for (int round = 0; round < 3; round++) {
        hsa_signal_store_relaxed(done, 1);
        aql_dispatch(queue, aql_kernel(&env, "scale_add"), args, N, 64, done);
        CHECK(aql_wait_zero(done, 60));
    }
    CHECK(out[5] == 15.0f);

    uint32_t **counter_args = aql_alloc(&env, 16);
    counter_args[0] = aql_alloc(&env, 4);
    hsa_signal_store_relaxed(done, 1);
    aql_dispatch(queue, aql_kernel(&env, "count_items"), counter_args, 256, 64, done);
    CHECK(aql_wait_zero(done, 60));
    CHECK(*counter_args[0] == 256);

    hsa_signal_t ready, barrier_done;
    MUST(hsa_signal_create(0, 0, NULL, &ready));
    MUST(hsa_signal_create(1, 0, NULL, &barrier_done));
    hsa_signal_t deps[5] = {ready};
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, deps, barrier_done);
    CHECK(aql_wait_zero(barrier_done, 60));

    /* out (system memory) -> device memory -> locked host memory, the second copy after the first. */
    float host_copy[N];
    void *device, *agent_copy;
    hsa_signal_t to_device, copied;
    MUST(hsa_signal_create(1, 0, NULL, &to_device));
    MUST(hsa_signal_create(1, 0, NULL, &copied));
    hsa_amd_memory_pool_t gpu_pool = {0};
    hsa_amd_agent_iterate_memory_pools(env.gpu, pick_gpu_pool, &gpu_pool);
    MUST(hsa_amd_memory_pool_allocate(gpu_pool, sizeof host_copy, 0, &device));
    MUST(hsa_amd_memory_lock(host_copy, sizeof host_copy, &env.gpu, 1, &agent_copy));
    MUST(hsa_amd_memory_async_copy(device, env.gpu, out, env.cpu, sizeof host_copy, 0, NULL, to_device));
    MUST(hsa_amd_memory_async_copy(agent_copy, env.cpu, device, env.gpu, sizeof host_copy, 1, &to_device, copied));
    CHECK(aql_wait_zero(copied, 60));
    CHECK(host_copy[7] == 21.0f);
    MUST(hsa_amd_memory_unlock(host_copy));

    if (argc > 2 && !strcmp(argv[2], "fault")) {
        hsa_queue_t *faulting;
        MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, on_queue_error, NULL, UINT32_MAX, UINT32_MAX,
                              &faulting));
        uint32_t **wild = aql_alloc(&env, 16);
        wild[0] = (uint32_t *)(uintptr_t)0x10;
        aql_dispatch(faulting, aql_kernel(&env, "store_through"), wild, 64, 64, done);
        for (int i = 0; i < 6000 && callback_status < 0; i++) usleep(10000);
        CHECK(callback_status == HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
    }
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_shut_down());
    return check_report();
}
