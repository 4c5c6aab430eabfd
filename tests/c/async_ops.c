/* Asynchronous copies and functions ordered by signals, and profiling timestamps.
   usage: async_ops CODE_OBJECT TEST */
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "aql_util.h"

static aql_env_t env;

static uint64_t system_now(void) {
    uint64_t t;
    MUST(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t));
    return t;
}

/* copy A->B waits for a host signal; copy B->C waits for the first copy's signal. */
static void test_copies_ordered_by_signals(void) {
    const size_t n = 1 << 16;
    uint8_t *a = aql_alloc(&env, n), *b = aql_alloc(&env, n), *c = aql_alloc(&env, n);
    for (size_t i = 0; i < n; i++) a[i] = (uint8_t)(i * 7);
    hsa_signal_t gate, first, second;
    MUST(hsa_signal_create(1, 0, NULL, &gate));
    MUST(hsa_signal_create(1, 0, NULL, &first));
    MUST(hsa_signal_create(1, 0, NULL, &second));
    MUST(hsa_amd_memory_async_copy(c, env.cpu, b, env.gpu, n, 1, &first, second));
    MUST(hsa_amd_memory_async_copy(b, env.gpu, a, env.cpu, n, 1, &gate, first));
    CHECK(!aql_wait_zero(second, 0.2)); /* both held by the gate */
    CHECK_EQ_U64(c[1], 0);
    hsa_signal_store_screlease(gate, 0);
    CHECK(aql_wait_zero(second, 30));
    CHECK(memcmp(a, c, n) == 0);
    MUST(hsa_signal_destroy(gate));
    MUST(hsa_signal_destroy(first));
    MUST(hsa_signal_destroy(second));
}

static void test_copy_errors(void) {
    uint8_t *a = aql_alloc(&env, 4096);
    hsa_signal_t done, dead;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    MUST(hsa_signal_create(1, 0, NULL, &dead));
    MUST(hsa_signal_destroy(dead));
    CHECK_STATUS(hsa_amd_memory_async_copy(NULL, env.gpu, a, env.gpu, 64, 0, NULL, done),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, (hsa_agent_t){12345}, a + 64, env.gpu, 64, 0, NULL, done),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, env.gpu, a + 64, env.gpu, 64, 0, NULL, dead),
                 HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, env.gpu, a + 64, env.gpu, 64, 1, &dead, done),
                 HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_STATUS(hsa_amd_memory_async_copy(a, env.gpu, a + 64, env.gpu, 64, 2, NULL, done),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy((void *)0x1000, env.gpu, a, env.gpu, 64, 0, NULL, done),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_U64(hsa_signal_load_relaxed(done), 1); /* nothing was started */
    MUST(hsa_signal_destroy(done));
}

/* A 3D box: 5 bytes x 3 rows x 2 slices out of differently pitched buffers. */
static void test_copy_rect(void) {
    uint8_t *src = aql_alloc(&env, 4096), *dst = aql_alloc(&env, 4096);
    for (int i = 0; i < 4096; i++) src[i] = (uint8_t)i;
    hsa_pitched_ptr_t s = {src, 16, 256}, d = {dst, 32, 512};
    hsa_dim3_t s_off = {1, 2, 1}, d_off = {3, 0, 0}, range = {5, 3, 2};
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    MUST(hsa_amd_memory_async_copy_rect(&d, &d_off, &s, &s_off, &range, env.gpu, hsaDeviceToDevice, 0,
                                        NULL, done));
    CHECK(aql_wait_zero(done, 30));
    int wrong = 0;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 5; x++)
                wrong += dst[3 + x + y * 32 + z * 512] != src[1 + x + (2 + y) * 16 + (1 + z) * 256];
    CHECK_EQ_U64(wrong, 0);
    CHECK_EQ_U64(dst[0], 0);   /* outside the box: untouched */
    CHECK_EQ_U64(dst[8], 0);
    hsa_dim3_t too_wide = {17, 1, 1};
    CHECK_STATUS(hsa_amd_memory_async_copy_rect(&d, &d_off, &s, &s_off, &too_wide, env.gpu, hsaDeviceToDevice,
                                                0, NULL, done),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    MUST(hsa_signal_destroy(done));
}

/* Locked host memory unmapped while a copy from it waits: the copy fails, nothing
   crashes, and the waiter is still released. */
static void test_copy_from_vanished_memory(void) {
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *agent_ptr;
    MUST(hsa_amd_memory_lock(page, 4096, &env.gpu, 1, &agent_ptr));
    uint8_t *dst = aql_alloc(&env, 4096);
    hsa_signal_t gate, done;
    MUST(hsa_signal_create(1, 0, NULL, &gate));
    MUST(hsa_signal_create(1, 0, NULL, &done));
    MUST(hsa_amd_memory_async_copy(dst, env.gpu, agent_ptr, env.gpu, 4096, 1, &gate, done));
    MUST(hsa_amd_memory_unlock(page));
    munmap(page, 4096);
    hsa_signal_store_screlease(gate, 0);
    CHECK(aql_wait_zero(done, 30));
    MUST(hsa_signal_destroy(gate));
    MUST(hsa_signal_destroy(done));
}

static volatile int called;
static void async_callback(void *arg) { called = *(int *)arg; }

static void test_async_function(void) {
    static int value = 42;
    MUST(hsa_amd_async_function(async_callback, &value));
    for (int i = 0; i < 5000 && !called; i++) usleep(1000);
    CHECK_EQ_U64(called, 42);
    CHECK_STATUS(hsa_amd_async_function(NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

/* Timestamps come from the HSA system clock and lie within the host's bracket. */
static void test_profiling(void) {
    hsa_queue_t *queue = aql_queue(&env);
    MUST(hsa_amd_profiling_set_profiler_enabled(queue, 1));
    uint32_t *counter = aql_alloc(&env, 64);
    void **args = aql_alloc(&env, 64);
    args[0] = counter;
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    uint64_t before = system_now();
    aql_dispatch(queue, aql_kernel(&env, "count_items"), args, 64, 64, done);
    CHECK(aql_wait_zero(done, 60));
    uint64_t after = system_now();
    hsa_amd_profiling_dispatch_time_t time;
    MUST(hsa_amd_profiling_get_dispatch_time(env.gpu, done, &time));
    CHECK(before <= time.start && time.start <= time.end && time.end <= after);
    uint64_t converted;
    MUST(hsa_amd_profiling_convert_tick_to_system_domain(env.gpu, time.start, &converted));
    CHECK_EQ_U64(converted, time.start);
    CHECK_STATUS(hsa_amd_profiling_get_dispatch_time(env.gpu, done, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    MUST(hsa_amd_profiling_async_copy_enable(1));
    uint8_t *a = aql_alloc(&env, 4096), *b = aql_alloc(&env, 4096);
    hsa_signal_store_relaxed(done, 1);
    before = system_now();
    MUST(hsa_amd_memory_async_copy(b, env.gpu, a, env.gpu, 4096, 0, NULL, done));
    CHECK(aql_wait_zero(done, 30));
    after = system_now();
    hsa_amd_profiling_async_copy_time_t copy_time;
    MUST(hsa_amd_profiling_get_async_copy_time(done, &copy_time));
    CHECK(before <= copy_time.start && copy_time.start <= copy_time.end && copy_time.end <= after);
    MUST(hsa_signal_destroy(done));
    MUST(hsa_queue_destroy(queue));
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    aql_setup(&env, argv[1]);
    const char *test = argv[2];
    if (!strcmp(test, "ordered")) test_copies_ordered_by_signals();
    else if (!strcmp(test, "errors")) test_copy_errors();
    else if (!strcmp(test, "rect")) test_copy_rect();
    else if (!strcmp(test, "vanished")) test_copy_from_vanished_memory();
    else if (!strcmp(test, "function")) test_async_function();
    else if (!strcmp(test, "profiling")) test_profiling();
    else return 2;
    MUST(hsa_shut_down());
    return check_report();
}
