/* Deallocation callbacks, coherency, migration, and the memory API outside a session. */
#include <stdint.h>

#include "memory_util.h"

static int calls;
static void *seen_ptr, *seen_data;
static void on_free(void *ptr, void *user_data) {
    calls++;
    seen_ptr = ptr;
    seen_data = user_data;
}
static void on_free_other(void *ptr, void *user_data) {
    (void)ptr;
    (void)user_data;
    calls += 100;
}

/* A callback that uses the runtime while the memory is being released. */
static hsa_amd_memory_pool_t reentrant_pool;
static void *reentrant_got;
static void on_free_allocate(void *ptr, void *user_data) {
    (void)ptr;
    (void)user_data;
    calls++;
    CHECK_OK(hsa_amd_memory_pool_allocate(reentrant_pool, 4096, 0, &reentrant_got));
}

int main(void) {
    hsa_amd_memory_pool_t stale_pool;
    void *stale_ptr = NULL;
    hsa_amd_coherency_type_t coherency;
    size_t size;
    void *p = NULL;
    hsa_agent_t nobody = {0};

    /* Before hsa_init every memory export answers NOT_INITIALIZED. */
    CHECK_STATUS(hsa_memory_allocate((hsa_region_t){1}, 64, &p), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_memory_pool_allocate((hsa_amd_memory_pool_t){1}, 64, 0, &p), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_memory_free(NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_memory_pool_free(NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_memory_pool_get_info((hsa_amd_memory_pool_t){1}, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_region_get_info((hsa_region_t){1}, HSA_REGION_INFO_SIZE, &size), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_memory_copy(&size, &size, 1), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_memory_fill(&size, 0, 1), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_memory_lock(&size, 8, NULL, 0, &p), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_memory_unlock(&size), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_memory_register(&size, 8), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_amd_coherency_get_type(nobody, &coherency), HSA_STATUS_ERROR_NOT_INITIALIZED);

    mem_env_t env;
    mem_setup(&env);

    /* Deallocation callbacks run once, on free, with their user data, then are gone. */
    void *a = NULL;
    MUST(hsa_amd_memory_pool_allocate(env.device, 3 * 4096, 0, &a));
    char *inside = (char *)a + 4096;
    CHECK_OK(hsa_amd_register_deallocation_callback(inside, on_free, (void *)0x1234));
    calls = 0;
    CHECK_OK(hsa_amd_memory_pool_free(a));
    CHECK_EQ_U64(calls, 1);
    CHECK(seen_ptr == inside && seen_data == (void *)0x1234);
    /* Deregistered callbacks do not run; deregistering twice is an error. */
    MUST(hsa_memory_allocate(env.kernarg_region, 64, &a));
    CHECK_OK(hsa_amd_register_deallocation_callback(a, on_free, NULL));
    CHECK_OK(hsa_amd_register_deallocation_callback(a, on_free_other, NULL));
    CHECK_OK(hsa_amd_deregister_deallocation_callback(a, on_free_other));
    CHECK_STATUS(hsa_amd_deregister_deallocation_callback(a, on_free_other), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_deregister_deallocation_callback((char *)a + 8, on_free), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    calls = 0;
    CHECK_OK(hsa_memory_free(a));
    CHECK_EQ_U64(calls, 1);
    /* A callback may allocate (the freed block is already out of the table). */
    reentrant_pool = env.fine;
    MUST(hsa_amd_memory_pool_allocate(env.fine, 64, 0, &a));
    CHECK_OK(hsa_amd_register_deallocation_callback(a, on_free_allocate, NULL));
    calls = 0;
    CHECK_OK(hsa_amd_memory_pool_free(a));
    CHECK_EQ_U64(calls, 1);
    CHECK(reentrant_got != NULL);
    MUST(hsa_amd_memory_pool_free(reentrant_got));
    /* Argument checks. */
    int local;
    CHECK_STATUS(hsa_amd_register_deallocation_callback(NULL, on_free, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_register_deallocation_callback(&local, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_register_deallocation_callback(&local, on_free, NULL), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_register_deallocation_callback(a, on_free, NULL), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_deregister_deallocation_callback(&local, on_free), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_deregister_deallocation_callback(NULL, on_free), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Coherency: GPUs only, coherent by default, settable. */
    CHECK_OK(hsa_amd_coherency_get_type(env.gpu, &coherency));
    CHECK_EQ_U64(coherency, HSA_AMD_COHERENCY_TYPE_COHERENT);
    CHECK_OK(hsa_amd_coherency_set_type(env.gpu, HSA_AMD_COHERENCY_TYPE_NONCOHERENT));
    CHECK_OK(hsa_amd_coherency_get_type(env.gpu, &coherency));
    CHECK_EQ_U64(coherency, HSA_AMD_COHERENCY_TYPE_NONCOHERENT);
    CHECK_STATUS(hsa_amd_coherency_get_type(env.cpu, &coherency), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_coherency_get_type(env.gpu, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_coherency_get_type(nobody, &coherency), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_coherency_set_type(env.cpu, HSA_AMD_COHERENCY_TYPE_COHERENT), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_coherency_set_type(env.gpu, (hsa_amd_coherency_type_t)2), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Migration: ROCr implements none and says so. */
    bool can = true;
    MUST(hsa_amd_memory_pool_allocate(env.fine, 64, 0, &a));
    CHECK_STATUS(hsa_amd_memory_pool_can_migrate(env.fine, env.device, &can), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK(!can);
    CHECK_STATUS(hsa_amd_memory_pool_can_migrate(env.fine, env.device, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_pool_can_migrate((hsa_amd_memory_pool_t){7}, env.device, &can),
                 MEM_INVALID_POOL);
    CHECK_STATUS(hsa_amd_memory_migrate(a, env.device, 0), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_amd_memory_migrate(a, env.device, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_migrate(NULL, env.device, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_migrate(a, (hsa_amd_memory_pool_t){7}, 0), MEM_INVALID_POOL);
    MUST(hsa_amd_memory_pool_free(a));

    /* Nested init: memory lives until the last shutdown; then handles and pointers are stale. */
    MUST(hsa_init());
    MUST(hsa_amd_memory_pool_allocate(env.device, 4096, 0, &stale_ptr));
    MUST(hsa_shut_down());
    CHECK_OK(hsa_amd_memory_fill(stale_ptr, 1, 1));
    stale_pool = env.device;
    CHECK_OK(hsa_shut_down());
    CHECK_STATUS(hsa_amd_memory_pool_free(stale_ptr), HSA_STATUS_ERROR_NOT_INITIALIZED);
    MUST(hsa_init());
    CHECK_STATUS(hsa_amd_memory_pool_get_info(stale_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size),
                 MEM_INVALID_POOL);
    CHECK_STATUS(hsa_amd_memory_pool_allocate(stale_pool, 64, 0, &p), MEM_INVALID_POOL);
    CHECK_STATUS(hsa_region_get_info(env.kernarg_region, HSA_REGION_INFO_SIZE, &size), HSA_STATUS_ERROR_INVALID_REGION);
    CHECK_STATUS(hsa_amd_memory_pool_free(stale_ptr), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
