/* Shared set-up for memory tests: the agents, their pools and their regions, by role. */
#ifndef SOFTGPU_TEST_MEMORY_UTIL_H
#define SOFTGPU_TEST_MEMORY_UTIL_H
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MEM_MAX 16
/* The AMD status lives in another enum than hsa_status_t. */
#define MEM_INVALID_POOL ((hsa_status_t)HSA_STATUS_ERROR_INVALID_MEMORY_POOL)

typedef struct {
    hsa_agent_t cpu, gpu;
    hsa_amd_memory_pool_t cpu_pools[MEM_MAX], gpu_pools[MEM_MAX];
    int n_cpu_pools, n_gpu_pools;
    hsa_region_t cpu_regions[MEM_MAX], gpu_regions[MEM_MAX];
    int n_cpu_regions, n_gpu_regions;
    /* By role, as clients look them up. */
    hsa_amd_memory_pool_t fine, kernarg, coarse, device, device_extended, lds;
    hsa_region_t kernarg_region;
} mem_env_t;

typedef struct {
    hsa_amd_memory_pool_t *items;
    int *count;
} mem_pool_list_t;

typedef struct {
    hsa_region_t *items;
    int *count;
} mem_region_list_t;

static hsa_status_t mem_collect_pool(hsa_amd_memory_pool_t pool, void *data) {
    mem_pool_list_t *list = data;
    if (*list->count < MEM_MAX) list->items[(*list->count)++] = pool;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t mem_collect_region(hsa_region_t region, void *data) {
    mem_region_list_t *list = data;
    if (*list->count < MEM_MAX) list->items[(*list->count)++] = region;
    return HSA_STATUS_SUCCESS;
}

static uint32_t mem_pool_flags(hsa_amd_memory_pool_t pool) {
    uint32_t flags = 0;
    MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
    return flags;
}

static hsa_amd_segment_t mem_pool_segment(hsa_amd_memory_pool_t pool) {
    hsa_amd_segment_t segment;
    MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
    return segment;
}

/* hsa_init, then every agent's pools and regions; exits if the layout is missing a role. */
static void mem_setup(mem_env_t *env) {
    memset(env, 0, sizeof *env);
    MUST(hsa_init());
    find_cpu_gpu(&env->cpu, &env->gpu);
    if (!env->cpu.handle || !env->gpu.handle) {
        printf("FAIL: no CPU or no GPU agent\n");
        exit(1);
    }
    mem_pool_list_t cpu_pools = {env->cpu_pools, &env->n_cpu_pools};
    mem_pool_list_t gpu_pools = {env->gpu_pools, &env->n_gpu_pools};
    MUST(hsa_amd_agent_iterate_memory_pools(env->cpu, mem_collect_pool, &cpu_pools));
    MUST(hsa_amd_agent_iterate_memory_pools(env->gpu, mem_collect_pool, &gpu_pools));
    mem_region_list_t cpu_regions = {env->cpu_regions, &env->n_cpu_regions};
    mem_region_list_t gpu_regions = {env->gpu_regions, &env->n_gpu_regions};
    MUST(hsa_agent_iterate_regions(env->cpu, mem_collect_region, &cpu_regions));
    MUST(hsa_agent_iterate_regions(env->gpu, mem_collect_region, &gpu_regions));
    for (int i = 0; i < env->n_cpu_pools; i++) {
        uint32_t flags = mem_pool_flags(env->cpu_pools[i]);
        if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) env->kernarg = env->cpu_pools[i];
        else if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) env->fine = env->cpu_pools[i];
        else if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) env->coarse = env->cpu_pools[i];
    }
    for (int i = 0; i < env->n_gpu_pools; i++) {
        if (mem_pool_segment(env->gpu_pools[i]) == HSA_AMD_SEGMENT_GROUP) env->lds = env->gpu_pools[i];
        else if (mem_pool_flags(env->gpu_pools[i]) & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)
            env->device = env->gpu_pools[i];
        else env->device_extended = env->gpu_pools[i];   /* the newest ROCr's extended-scope pool */
    }
    for (int i = 0; i < env->n_gpu_regions; i++) {
        uint32_t flags = 0;
        MUST(hsa_region_get_info(env->gpu_regions[i], HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
        if (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) env->kernarg_region = env->gpu_regions[i];
    }
    if (!env->fine.handle || !env->kernarg.handle || !env->coarse.handle || !env->device.handle ||
        !env->lds.handle || !env->kernarg_region.handle) {
        printf("FAIL: a memory pool role is missing\n");
        exit(1);
    }
}

static inline hsa_region_t mem_region_of(hsa_amd_memory_pool_t pool) {
    hsa_region_t region = {pool.handle};
    return region;
}
#endif
