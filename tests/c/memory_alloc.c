/* Allocation and free: statuses, granules, per-pool accounting, no overlap while live.
   argv: system pool bytes, device pool bytes (a small profile, so pools can be exhausted). */
#include <stdint.h>

#include "memory_util.h"

static int is_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

#define LIVE 48

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    size_t system_bytes = strtoull(argv[1], NULL, 0), device_bytes = strtoull(argv[2], NULL, 0);
    mem_env_t env;
    mem_setup(&env);
    void *p = NULL, *q = NULL;

    /* The classic kernarg path: a region found through the GPU agent. */
    CHECK_OK(hsa_memory_allocate(env.kernarg_region, 100, &p));
    CHECK(p != NULL && (uintptr_t)p % 4096 == 0);
    CHECK(is_zero(p, 4096));
    memset(p, 0x5A, 4096);  /* the whole granule belongs to the caller */
    CHECK_OK(hsa_memory_free(p));

    /* Every allocatable pool; the group segment is not. */
    hsa_amd_memory_pool_t allocatable[4] = {env.fine, env.kernarg, env.coarse, env.device};
    for (int i = 0; i < 4; i++) {
        p = NULL;
        CHECK_OK(hsa_amd_memory_pool_allocate(allocatable[i], 1, 0, &p));
        CHECK(p != NULL && (uintptr_t)p % 4096 == 0 && is_zero(p, 4096));
        CHECK_OK(hsa_amd_memory_pool_free(p));
    }
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.lds, 64, 0, &p), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_memory_allocate(mem_region_of(env.lds), 64, &p), HSA_STATUS_ERROR_INVALID_ALLOCATION);

    /* Argument checks, in ROCr's order (size and out-pointer before the pool). */
    hsa_amd_memory_pool_t forged = {env.device.handle + 5};
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.device, 0, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.device, 4096, 0, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* The newest ROCr's allocation flags (PCIe, contiguous, executable) and unknown bits: accepted. */
    for (uint32_t flags = 1; flags <= 0x80; flags <<= 1) {
        p = NULL;
        CHECK_OK(hsa_amd_memory_pool_allocate(env.device, 4096, flags, &p));
        CHECK(p != NULL && is_zero(p, 4096));
        CHECK_OK(hsa_amd_memory_pool_free(p));
    }
    CHECK_STATUS(hsa_amd_memory_pool_allocate(forged, 0, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_pool_allocate(forged, 4096, 0, &p), MEM_INVALID_POOL);
    CHECK_STATUS(hsa_memory_allocate(mem_region_of(forged), 4096, &p), HSA_STATUS_ERROR_INVALID_REGION);
    CHECK_STATUS(hsa_memory_allocate(env.kernarg_region, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_allocate(env.kernarg_region, 64, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Bigger than ALLOC_MAX_SIZE: INVALID_ALLOCATION, whatever is free. */
    size_t device_max, system_max;
    MUST(hsa_amd_memory_pool_get_info(env.device, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &device_max));
    MUST(hsa_amd_memory_pool_get_info(env.fine, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &system_max));
    CHECK_EQ_U64(device_max, device_bytes / 4096 * 4096);
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.device, device_max + 1, 0, &p), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_memory_allocate(mem_region_of(env.device), device_max + 1, &p), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.fine, system_max + 1, 0, &p), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    /* Exactly ALLOC_MAX_SIZE is allowed (the limit is inclusive, as ROCr's `size >` test). */
    p = NULL;
    CHECK_OK(hsa_amd_memory_pool_allocate(env.device, device_max, 0, &p));
    CHECK(p != NULL);
    if (p) CHECK_OK(hsa_amd_memory_pool_free(p));
    p = NULL;
    CHECK_OK(hsa_memory_allocate(mem_region_of(env.device), device_max, &p));
    CHECK(p != NULL);
    if (p) CHECK_OK(hsa_memory_free(p));
    p = NULL;
    CHECK_OK(hsa_amd_memory_pool_allocate(env.coarse, system_max, 0, &p));
    CHECK(p != NULL);
    if (p) CHECK_OK(hsa_amd_memory_pool_free(p));
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.fine, SIZE_MAX, 0, &p), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_memory_allocate(env.kernarg_region, system_max + 4096, &p), HSA_STATUS_ERROR_INVALID_ALLOCATION);

    /* Accounting: the device pool hands out exactly its size, then OUT_OF_RESOURCES;
       a free makes room again. */
    size_t quarter = device_bytes / 4 / 4096 * 4096;
    void *quarters[4] = {0};
    for (int i = 0; i < 4; i++) CHECK_OK(hsa_amd_memory_pool_allocate(env.device, quarter, 0, &quarters[i]));
    size_t left = device_bytes / 4096 * 4096 - 4 * quarter;
    if (left) CHECK_OK(hsa_amd_memory_pool_allocate(env.device, left, 0, &q));
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.device, 4096, 0, &p), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_OK(hsa_amd_memory_pool_free(quarters[2]));
    CHECK_OK(hsa_amd_memory_pool_allocate(env.device, quarter, 0, &quarters[2]));
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.device, 1, 0, &p), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    for (int i = 0; i < 4; i++) CHECK_OK(hsa_amd_memory_pool_free(quarters[i]));
    if (left) CHECK_OK(hsa_amd_memory_pool_free(q));

    /* The three system pools are views of one host memory: together they hold its size. */
    size_t half = system_bytes / 2 / 4096 * 4096;
    void *a = NULL, *b = NULL;
    CHECK_OK(hsa_amd_memory_pool_allocate(env.fine, half, 0, &a));
    CHECK_OK(hsa_amd_memory_pool_allocate(env.coarse, system_bytes / 4096 * 4096 - half, 0, &b));
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.kernarg, 4096, 0, &p), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_memory_allocate(env.kernarg_region, 1, &p), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_OK(hsa_amd_memory_pool_allocate(env.device, 4096, 0, &p));  /* a separate budget */
    CHECK_OK(hsa_amd_memory_pool_free(p));
    CHECK_OK(hsa_memory_free(a));
    CHECK_OK(hsa_memory_free(b));

    /* Frees: NULL is fine; anything but a live allocation start is INVALID_ALLOCATION. */
    int on_stack;
    CHECK_OK(hsa_memory_free(NULL));
    CHECK_OK(hsa_amd_memory_pool_free(NULL));
    CHECK_STATUS(hsa_memory_free(&on_stack), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_memory_pool_free((void *)0x1000), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_OK(hsa_amd_memory_pool_allocate(env.device, 3 * 4096, 0, &p));
    CHECK_STATUS(hsa_amd_memory_pool_free((char *)p + 4096), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    memset(p, 0xFF, 3 * 4096);
    CHECK_OK(hsa_amd_memory_pool_free(p));
    CHECK_STATUS(hsa_amd_memory_pool_free(p), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_memory_free(p), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    /* Memory handed out again reads as zero. */
    CHECK_OK(hsa_amd_memory_pool_allocate(env.device, 3 * 4096, 0, &q));
    CHECK(is_zero(q, 3 * 4096));
    CHECK_OK(hsa_amd_memory_pool_free(q));

    /* Live allocations never overlap, also across frees and reuse. */
    void *live[LIVE] = {0};
    size_t sizes[LIVE];
    hsa_amd_memory_pool_t from[3] = {env.fine, env.device, env.kernarg};
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < LIVE; i++) {
            if (live[i]) continue;
            sizes[i] = 1 + (size_t)((i * 7919 + round * 104729) % (5 * 4096));
            CHECK_OK(hsa_amd_memory_pool_allocate(from[i % 3], sizes[i], 0, &live[i]));
            memset(live[i], i + 1, sizes[i]);
        }
        for (int i = 0; i < LIVE; i++)
            for (int j = i + 1; j < LIVE; j++) {
                uintptr_t ai = (uintptr_t)live[i], aj = (uintptr_t)live[j];
                CHECK(ai + sizes[i] <= aj || aj + sizes[j] <= ai);
            }
        for (int i = 0; i < LIVE; i++) {
            unsigned char *bytes = live[i];
            CHECK(bytes[0] == (unsigned char)(i + 1) && bytes[sizes[i] - 1] == (unsigned char)(i + 1));
        }
        for (int i = round % 2; i < LIVE; i += 2) {
            CHECK_OK(hsa_amd_memory_pool_free(live[i]));
            live[i] = NULL;
        }
    }
    for (int i = 0; i < LIVE; i++)
        if (live[i]) CHECK_OK(hsa_amd_memory_pool_free(live[i]));

    CHECK_OK(hsa_shut_down());
    return check_report();
}
