/* Regions and memory pools: ROCr's dGPU layout, every attribute, access and links.
   argv: system pool bytes, device pool bytes, LDS bytes (from the profile in use). */
#include "memory_util.h"

static uint64_t system_bytes, device_bytes, lds_bytes;

/* HSA_AMD_MEMORY_POOL_INFO_* of later headers, answered as later ROCm releases do. */
enum { POOL_INFO_LOCATION = 17, POOL_INFO_RUNTIME_ALLOC_REC_GRANULE = 18 };
enum { POOL_LOCATION_CPU = 0, POOL_LOCATION_GPU = 1 };

typedef struct {
    hsa_amd_segment_t segment;
    uint32_t flags;
    size_t size, granule, alignment, alloc_max;
    bool allowed, by_all;
    uint32_t location;
    size_t rec_granule;
} pool_expect_t;

static void check_pool(const char *name, hsa_amd_memory_pool_t pool, pool_expect_t want) {
    hsa_amd_segment_t segment;
    uint32_t flags;
    size_t size, granule, alignment, alloc_max;
    bool allowed, by_all;
    printf("pool %s\n", name);
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
    CHECK_EQ_U64(segment, want.segment);
    if (want.segment == HSA_AMD_SEGMENT_GLOBAL) {
        CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
        CHECK_EQ_U64(flags, want.flags);
    }
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size));
    CHECK_EQ_U64(size, want.size);
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed));
    CHECK_EQ_U64(allowed, want.allowed);
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule));
    CHECK_EQ_U64(granule, want.granule);
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT, &alignment));
    CHECK_EQ_U64(alignment, want.alignment);
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &by_all));
    CHECK_EQ_U64(by_all, want.by_all);
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE, &alloc_max));
    CHECK_EQ_U64(alloc_max, want.alloc_max);
    uint32_t location = 77;
    size_t rec_granule = 77;
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, (hsa_amd_memory_pool_info_t)POOL_INFO_LOCATION, &location));
    CHECK_EQ_U64(location, want.location);
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, (hsa_amd_memory_pool_info_t)POOL_INFO_RUNTIME_ALLOC_REC_GRANULE,
                                          &rec_granule));
    CHECK_EQ_U64(rec_granule, want.rec_granule);
    /* Attributes the header does not define, and NULL out-pointers. */
    CHECK_STATUS(hsa_amd_memory_pool_get_info(pool, (hsa_amd_memory_pool_info_t)3, &size),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_pool_get_info(pool, (hsa_amd_memory_pool_info_t)0x7777, &size),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* The same object answers as a region, as in ROCr. */
    hsa_region_t region = mem_region_of(pool);
    hsa_region_segment_t rsegment;
    uint32_t rflags;
    size_t rsize, rmax, rgranule, ralign;
    bool rallowed, host_accessible;
    uint32_t private_size, bus_width, clock;
    void *base;
    CHECK_OK(hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &rsegment));
    CHECK_EQ_U64(rsegment, want.segment == HSA_AMD_SEGMENT_GROUP ? HSA_REGION_SEGMENT_GROUP
                                                                 : HSA_REGION_SEGMENT_GLOBAL);
    CHECK_OK(hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &rflags));
    CHECK_EQ_U64(rflags, want.flags);
    CHECK_OK(hsa_region_get_info(region, HSA_REGION_INFO_SIZE, &rsize));
    CHECK_EQ_U64(rsize, want.size);
    CHECK_OK(hsa_region_get_info(region, HSA_REGION_INFO_ALLOC_MAX_SIZE, &rmax));
    CHECK_EQ_U64(rmax, want.alloc_max);
    CHECK_OK(hsa_region_get_info(region, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, &rallowed));
    CHECK_EQ_U64(rallowed, want.allowed);
    CHECK_OK(hsa_region_get_info(region, HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE, &rgranule));
    CHECK_EQ_U64(rgranule, want.granule);
    CHECK_OK(hsa_region_get_info(region, HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT, &ralign));
    CHECK_EQ_U64(ralign, want.alignment);
    /* ROCr has no private-segment regions and leaves this attribute unanswered. */
    CHECK_STATUS(hsa_region_get_info(region, HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE, &private_size),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_region_get_info(region, (hsa_region_info_t)HSA_AMD_REGION_INFO_HOST_ACCESSIBLE,
                                 &host_accessible));
    CHECK_EQ_U64(host_accessible, want.by_all);  /* system memory only */
    CHECK_OK(hsa_region_get_info(region, (hsa_region_info_t)HSA_AMD_REGION_INFO_BASE, &base));
    CHECK_OK(hsa_region_get_info(region, (hsa_region_info_t)HSA_AMD_REGION_INFO_BUS_WIDTH, &bus_width));
    CHECK_OK(hsa_region_get_info(region, (hsa_region_info_t)HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY, &clock));
    CHECK_STATUS(hsa_region_get_info(region, (hsa_region_info_t)0xA004, &clock),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_region_get_info(region, HSA_REGION_INFO_SIZE, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

typedef struct {
    hsa_amd_memory_pool_access_t access;
    uint32_t hops;
} path_expect_t;

static void check_path(const char *name, hsa_agent_t agent, hsa_amd_memory_pool_t pool, path_expect_t want) {
    hsa_amd_memory_pool_access_t access;
    uint32_t hops = 99;
    struct {
        hsa_amd_memory_pool_link_info_t info;
        unsigned char guard[16];
    } link;
    printf("path %s\n", name);
    CHECK_OK(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access));
    CHECK_EQ_U64(access, want.access);
    CHECK_OK(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, &hops));
    CHECK_EQ_U64(hops, want.hops);
    memset(&link, 0xAB, sizeof link);
    CHECK_OK(hsa_amd_agent_memory_pool_get_info(agent, pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO, &link));
    /* One record is written, nothing past it. */
    for (size_t i = 0; i < sizeof link.guard; i++) CHECK(link.guard[i] == 0xAB);
    if (want.hops) {
        CHECK_EQ_U64(link.info.link_type, HSA_AMD_LINK_INFO_TYPE_PCIE);
        CHECK(link.info.atomic_support_32bit && link.info.atomic_support_64bit);
    } else {
        hsa_amd_memory_pool_link_info_t zero;
        memset(&zero, 0, sizeof zero);
        CHECK(memcmp(&link.info, &zero, sizeof zero) == 0);
    }
    CHECK_STATUS(hsa_amd_agent_memory_pool_get_info(agent, pool, (hsa_amd_agent_memory_pool_info_t)3, &hops),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static int visits;
static hsa_status_t stop_at_first(hsa_amd_memory_pool_t pool, void *data) {
    (void)pool;
    (void)data;
    visits++;
    return HSA_STATUS_INFO_BREAK;
}
static hsa_status_t fail_at_second(hsa_region_t region, void *data) {
    (void)region;
    (void)data;
    return ++visits == 2 ? HSA_STATUS_ERROR_INVALID_ISA : HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    system_bytes = strtoull(argv[1], NULL, 0);
    device_bytes = strtoull(argv[2], NULL, 0);
    lds_bytes = strtoull(argv[3], NULL, 0);
    mem_env_t env;
    mem_setup(&env);

    /* The newest ROCr's dGPU layout: the CPU's fine, kernarg and coarse system pools; the
       GPU's coarse-grained and extended-scope fine-grained device-local pools (one memory)
       and LDS; a GPU also lists the system regions it can reach. */
    CHECK_EQ_U64(env.n_cpu_pools, 3);
    CHECK_EQ_U64(env.n_gpu_pools, 3);
    CHECK_EQ_U64(env.cpu_pools[0].handle, env.fine.handle);
    CHECK_EQ_U64(env.cpu_pools[1].handle, env.kernarg.handle);
    CHECK_EQ_U64(env.cpu_pools[2].handle, env.coarse.handle);
    CHECK_EQ_U64(env.gpu_pools[0].handle, env.device.handle);
    CHECK_EQ_U64(env.gpu_pools[1].handle, env.device_extended.handle);
    CHECK_EQ_U64(env.gpu_pools[2].handle, env.lds.handle);
    CHECK_EQ_U64(env.n_cpu_regions, 3);
    for (int i = 0; i < env.n_cpu_regions && i < 3; i++)
        CHECK_EQ_U64(env.cpu_regions[i].handle, env.cpu_pools[i].handle);
    CHECK_EQ_U64(env.n_gpu_regions, 6);
    if (env.n_gpu_regions == 6) {
        CHECK_EQ_U64(env.gpu_regions[0].handle, env.device.handle);
        CHECK_EQ_U64(env.gpu_regions[1].handle, env.device_extended.handle);
        CHECK_EQ_U64(env.gpu_regions[2].handle, env.lds.handle);
        CHECK_EQ_U64(env.gpu_regions[3].handle, env.fine.handle);
        CHECK_EQ_U64(env.gpu_regions[4].handle, env.kernarg.handle);
        CHECK_EQ_U64(env.gpu_regions[5].handle, env.coarse.handle);
    }
    CHECK_EQ_U64(env.kernarg_region.handle, env.kernarg.handle);

    size_t sys_max = system_bytes / 4096 * 4096, dev_max = device_bytes / 4096 * 4096;
    check_pool("fine", env.fine, (pool_expect_t){HSA_AMD_SEGMENT_GLOBAL, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
                                                 system_bytes, 4096, 4096, sys_max, true, true,
                                                 POOL_LOCATION_CPU, 4096});
    check_pool("kernarg", env.kernarg,
               (pool_expect_t){HSA_AMD_SEGMENT_GLOBAL,
                               HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
                               system_bytes, 4096, 4096, sys_max, true, true, POOL_LOCATION_CPU, 4096});
    check_pool("coarse", env.coarse, (pool_expect_t){HSA_AMD_SEGMENT_GLOBAL, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED,
                                                     system_bytes, 4096, 4096, sys_max, true, true,
                                                     POOL_LOCATION_CPU, 4096});
    check_pool("device", env.device, (pool_expect_t){HSA_AMD_SEGMENT_GLOBAL, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED,
                                                     device_bytes, 4096, 4096, dev_max, true, false,
                                                     POOL_LOCATION_GPU, 2 << 20});
    /* HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_EXTENDED_SCOPE_FINE_GRAINED of the newest headers. */
    check_pool("device_extended", env.device_extended,
               (pool_expect_t){HSA_AMD_SEGMENT_GLOBAL, 8, device_bytes, 4096, 4096, dev_max, true, false,
                               POOL_LOCATION_GPU, 2 << 20});
    check_pool("lds", env.lds, (pool_expect_t){HSA_AMD_SEGMENT_GROUP, 0, lds_bytes, 0, 0, 0, false, false,
                                               POOL_LOCATION_GPU, 0});
    void *device_base = NULL;
    CHECK_OK(hsa_region_get_info(mem_region_of(env.device), (hsa_region_info_t)HSA_AMD_REGION_INFO_BASE, &device_base));
    CHECK(device_base != NULL);

    /* Who reaches what (ROCr's GetAccessInfo): owners by default, system memory from a GPU
       and device memory from the CPU once allowed, LDS never from the CPU. */
    hsa_amd_memory_pool_t cpu_pools[3] = {env.fine, env.kernarg, env.coarse};
    for (int i = 0; i < 3; i++) {
        check_path("cpu->system", env.cpu, cpu_pools[i], (path_expect_t){HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT, 0});
        check_path("gpu->system", env.gpu, cpu_pools[i], (path_expect_t){HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT, 1});
    }
    check_path("gpu->device", env.gpu, env.device, (path_expect_t){HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT, 0});
    check_path("gpu->lds", env.gpu, env.lds, (path_expect_t){HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT, 0});
    check_path("cpu->device", env.cpu, env.device, (path_expect_t){HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT, 1});
    check_path("gpu->device_extended", env.gpu, env.device_extended,
               (path_expect_t){HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT, 0});
    check_path("cpu->device_extended", env.cpu, env.device_extended,
               (path_expect_t){HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT, 1});
    /* The two device pools draw on one memory: what one hands out, the other has not. */
    void *half = NULL, *rest = NULL;
    CHECK_OK(hsa_amd_memory_pool_allocate(env.device, dev_max / 2 / 4096 * 4096, 0, &half));
    CHECK_STATUS(hsa_amd_memory_pool_allocate(env.device_extended, dev_max - dev_max / 2 / 4096 * 4096 + 4096, 0, &rest),
                 HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_OK(hsa_amd_memory_pool_allocate(env.device_extended, dev_max - dev_max / 2 / 4096 * 4096, 0, &rest));
    CHECK_OK(hsa_amd_memory_pool_free(half));
    CHECK_OK(hsa_amd_memory_pool_free(rest));
    check_path("cpu->lds", env.cpu, env.lds, (path_expect_t){HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED, 0});

    /* Forged, zero and wrong-kind handles; NULL callbacks and out-pointers. */
    size_t size;
    uint32_t hops;
    hsa_amd_memory_pool_t zero_pool = {0}, forged_pool = {env.device.handle + 1000};
    hsa_amd_memory_pool_t agent_as_pool = {env.gpu.handle};
    hsa_region_t forged_region = {env.fine.handle ^ (1ull << 40)};
    hsa_agent_t forged_agent = {env.gpu.handle + 77}, pool_as_agent = {env.device.handle};
    CHECK_STATUS(hsa_amd_memory_pool_get_info(zero_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size),
                 MEM_INVALID_POOL);
    CHECK_STATUS(hsa_amd_memory_pool_get_info(forged_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size),
                 MEM_INVALID_POOL);
    CHECK_STATUS(hsa_amd_memory_pool_get_info(agent_as_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size),
                 MEM_INVALID_POOL);
    CHECK_STATUS(hsa_region_get_info(forged_region, HSA_REGION_INFO_SIZE, &size), HSA_STATUS_ERROR_INVALID_REGION);
    CHECK_STATUS(hsa_amd_agent_memory_pool_get_info(env.gpu, forged_pool, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, &hops),
                 MEM_INVALID_POOL);
    CHECK_STATUS(hsa_amd_agent_memory_pool_get_info(forged_agent, env.device, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, &hops),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_agent_memory_pool_get_info(env.gpu, env.device, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(env.gpu, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_iterate_regions(env.gpu, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(forged_agent, stop_at_first, NULL), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(pool_as_agent, stop_at_first, NULL), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_agent_iterate_regions(forged_agent, fail_at_second, NULL), HSA_STATUS_ERROR_INVALID_AGENT);

    /* A callback's status ends the iteration and is returned. */
    visits = 0;
    CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(env.cpu, stop_at_first, NULL), HSA_STATUS_INFO_BREAK);
    CHECK_EQ_U64(visits, 1);
    visits = 0;
    CHECK_STATUS(hsa_agent_iterate_regions(env.gpu, fail_at_second, NULL), HSA_STATUS_ERROR_INVALID_ISA);
    CHECK_EQ_U64(visits, 2);

    CHECK_OK(hsa_shut_down());
    return check_report();
}
