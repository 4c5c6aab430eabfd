/* ROCr 5.2.3's answers for async copies, rectangle copies, profiling and queue pointers:
   which status wins when several arguments are wrong, signal handle 0 (INVALID_ARGUMENT,
   before any other signal check), NULL queues where ROCr converts without a NULL check
   (INVALID_QUEUE), and empty copies (SUCCESS, the completion signal untouched). */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <string.h>

#include "check.h"

static hsa_amd_memory_pool_t device_pool;

static hsa_status_t pick_global_pool(hsa_amd_memory_pool_t pool, void *data) {
    hsa_amd_segment_t segment;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
    if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    *(hsa_amd_memory_pool_t *)data = pool;
    return HSA_STATUS_INFO_BREAK;
}

static void async_copies(hsa_agent_t cpu, hsa_agent_t gpu, char *a, char *b) {
    hsa_signal_t done, dead, zero = {0};
    MUST(hsa_signal_create(1, 0, NULL, &done));
    MUST(hsa_signal_create(1, 0, NULL, &dead));
    MUST(hsa_signal_destroy(dead));
    hsa_agent_t bad_agent = {gpu.handle ^ (1ull << 40)};

    /* NULL pointers and a dependency count that disagrees with its array come first... */
    CHECK_STATUS(hsa_amd_memory_async_copy(NULL, bad_agent, b, gpu, 64, 0, NULL, zero),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, gpu, b, gpu, 64, 0, &done, done), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, gpu, b, gpu, 64, 1, NULL, done), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* ...then agents, then dependencies, then the completion signal. */
    CHECK_STATUS(hsa_amd_memory_async_copy(a, bad_agent, b, gpu, 64, 1, &dead, zero), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, gpu, b, gpu, 64, 1, &zero, dead), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, gpu, b, gpu, 64, 1, &dead, zero), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, gpu, b, gpu, 64, 0, NULL, zero), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, gpu, b, gpu, 64, 0, NULL, dead), HSA_STATUS_ERROR_INVALID_SIGNAL);

    /* An empty copy succeeds and leaves its completion signal alone. */
    CHECK_OK(hsa_amd_memory_async_copy(a, gpu, b, cpu, 0, 0, NULL, done));
    CHECK_EQ_U64(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 50000000, HSA_WAIT_STATE_BLOCKED), 1);

    /* Copy times: ERROR for a signal that completed no profiled copy, the times after one. */
    hsa_amd_profiling_async_copy_time_t copy_time;
    CHECK_STATUS(hsa_amd_profiling_get_async_copy_time(done, &copy_time), HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_amd_profiling_get_async_copy_time(done, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_profiling_get_async_copy_time(zero, &copy_time), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_profiling_get_async_copy_time(dead, &copy_time), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_OK(hsa_amd_profiling_async_copy_enable(true));
    memset(b, 0x3c, 4096);
    CHECK_OK(hsa_amd_memory_async_copy(a, gpu, b, gpu, 4096, 0, NULL, done));
    CHECK_EQ_U64(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 0);
    CHECK(a[0] == 0x3c && a[4095] == 0x3c);
    CHECK_OK(hsa_amd_profiling_get_async_copy_time(done, &copy_time));
    CHECK(copy_time.start != 0 && copy_time.start <= copy_time.end);
    CHECK_OK(hsa_amd_profiling_async_copy_enable(false));
    MUST(hsa_signal_destroy(done));
}

static void rect_copies(hsa_agent_t cpu, hsa_agent_t gpu, char *a, char *b) {
    hsa_signal_t done, zero = {0};
    MUST(hsa_signal_create(1, 0, NULL, &done));
    hsa_pitched_ptr_t dst = {a, 256, 256 * 4}, src = {b, 256, 256 * 4};
    hsa_dim3_t origin = {0, 0, 0}, box = {64, 4, 2}, empty = {64, 0, 2};

    CHECK_STATUS(hsa_amd_memory_async_copy_rect(&dst, &origin, &src, NULL, &box, gpu, hsaDeviceToDevice, 0, NULL,
                                                done), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy_rect(&dst, &origin, &src, &origin, &box, gpu, hsaHostToHost, 0, NULL,
                                                done), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* A copy engine is a GPU's: the CPU agent is INVALID_AGENT, before the signals are looked at. */
    CHECK_STATUS(hsa_amd_memory_async_copy_rect(&dst, &origin, &src, &origin, &box, cpu, hsaDeviceToDevice, 0, NULL,
                                                zero), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_memory_async_copy_rect(&dst, &origin, &src, &origin, &box, gpu, hsaDeviceToDevice, 0, NULL,
                                                zero), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* An empty box succeeds without touching the completion signal. */
    CHECK_OK(hsa_amd_memory_async_copy_rect(&dst, &origin, &src, &origin, &empty, gpu, hsaDeviceToDevice, 0, NULL,
                                            done));
    CHECK_EQ_U64(hsa_signal_load_scacquire(done), 1);
    /* The copy engine's rules: dword-aligned pitches, rows inside the pitch. */
    hsa_pitched_ptr_t odd = {b, 254, 254 * 4};
    CHECK_STATUS(hsa_amd_memory_async_copy_rect(&dst, &origin, &odd, &origin, &box, gpu, hsaDeviceToDevice, 0, NULL,
                                                done), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_dim3_t far = {200, 0, 0};
    CHECK_STATUS(hsa_amd_memory_async_copy_rect(&dst, &far, &src, &origin, &box, gpu, hsaDeviceToDevice, 0, NULL,
                                                done), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* A box the engine accepts is copied, rows and slices. */
    memset(a, 0, 8192);
    for (int i = 0; i < 8192; i++) b[i] = (char)(i * 7);
    CHECK_OK(hsa_amd_memory_async_copy_rect(&dst, &origin, &src, &origin, &box, gpu, hsaDeviceToDevice, 0, NULL,
                                            done));
    CHECK_EQ_U64(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 0);
    CHECK(a[1024 + 3 * 256 + 63] == b[1024 + 3 * 256 + 63] && a[64] == 0);
    MUST(hsa_signal_destroy(done));
}

static void profiling(hsa_agent_t cpu, hsa_agent_t gpu) {
    hsa_signal_t sig, zero = {0};
    MUST(hsa_signal_create(0, 0, NULL, &sig));
    hsa_amd_profiling_dispatch_time_t t;
    hsa_agent_t bad_agent = {0x77};
    /* The out-pointer first, then the agent, then the signal, and only then the agent's kind. */
    CHECK_STATUS(hsa_amd_profiling_get_dispatch_time(bad_agent, zero, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_profiling_get_dispatch_time(bad_agent, zero, &t), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_profiling_get_dispatch_time(cpu, zero, &t), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_profiling_get_dispatch_time(cpu, sig, &t), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_OK(hsa_amd_profiling_get_dispatch_time(gpu, sig, &t));
    uint64_t tick = 0;
    CHECK_STATUS(hsa_amd_profiling_convert_tick_to_system_domain(bad_agent, 5, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_profiling_convert_tick_to_system_domain(cpu, 5, &tick), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_OK(hsa_amd_profiling_convert_tick_to_system_domain(gpu, 5, &tick));
    CHECK_EQ_U64(tick, 5);
    MUST(hsa_signal_destroy(sig));
}

static void queue_pointers(hsa_agent_t gpu) {
    uint32_t mask[2] = {0xFF, 0};
    /* ROCr converts these queues without a NULL check: no queue, INVALID_QUEUE. */
    CHECK_STATUS(hsa_amd_profiling_set_profiler_enabled(NULL, 1), HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK_STATUS(hsa_amd_queue_cu_set_mask(NULL, 32, mask), HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK_STATUS(hsa_amd_queue_cu_get_mask(NULL, 32, mask), HSA_STATUS_ERROR_INVALID_QUEUE);
    CHECK_STATUS(hsa_amd_queue_cu_get_mask(NULL, 32, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* These check for NULL first. */
    CHECK_STATUS(hsa_queue_destroy(NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_queue_inactivate(NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_queue_set_priority(NULL, HSA_AMD_QUEUE_PRIORITY_LOW), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_queue_t *q = NULL;
    MUST(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
    CHECK_OK(hsa_amd_profiling_set_profiler_enabled(q, 1));
    CHECK_OK(hsa_amd_queue_cu_set_mask(q, 32, mask));
    CHECK_OK(hsa_queue_destroy(q));
    CHECK_STATUS(hsa_amd_queue_cu_set_mask(q, 32, mask), HSA_STATUS_ERROR_INVALID_QUEUE);
}

int main(void) {
    MUST(hsa_init());
    hsa_agent_t cpu, gpu;
    find_cpu_gpu(&cpu, &gpu);
    MUST(hsa_amd_agent_iterate_memory_pools(gpu, pick_global_pool, &device_pool) == HSA_STATUS_INFO_BREAK
             ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR);
    char *a = NULL, *b = NULL;
    MUST(hsa_amd_memory_pool_allocate(device_pool, 8192, 0, (void **)&a));
    MUST(hsa_amd_memory_pool_allocate(device_pool, 8192, 0, (void **)&b));
    async_copies(cpu, gpu, a, b);
    rect_copies(cpu, gpu, a, b);
    profiling(cpu, gpu);
    queue_pointers(gpu);
    MUST(hsa_amd_memory_pool_free(a));
    MUST(hsa_amd_memory_pool_free(b));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
