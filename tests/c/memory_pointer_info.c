/* hsa_amd_pointer_info, locking, registration, allow_access and user data. */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#include "memory_util.h"

static int allocs;
static void *counting_malloc(size_t size) {
    allocs++;
    return malloc(size ? size : 1);
}
static void *failing_malloc(size_t size) {
    (void)size;
    return NULL;
}

static int has_agent(hsa_agent_t *list, uint32_t n, hsa_agent_t agent) {
    for (uint32_t i = 0; i < n; i++)
        if (list[i].handle == agent.handle) return 1;
    return 0;
}

/* pointer_info with the accessible list; returns the list's length. */
static uint32_t info_of(const void *p, hsa_amd_pointer_info_t *info, hsa_agent_t **list) {
    uint32_t n = 12345;
    memset(info, 0xCC, sizeof *info);
    info->size = sizeof *info;
    *list = NULL;
    CHECK_OK(hsa_amd_pointer_info(p, info, counting_malloc, &n, list));
    return n;
}

int main(void) {
    mem_env_t env;
    mem_setup(&env);
    hsa_amd_pointer_info_t info;
    hsa_agent_t *list;
    uint32_t n;

    /* Device memory: HSA type, base and size of the allocation from an interior pointer,
       owned and reachable by its GPU. */
    void *dev = NULL;
    MUST(hsa_amd_memory_pool_allocate(env.device, 10000, 0, &dev));
    allocs = 0;
    n = info_of((char *)dev + 5000, &info, &list);
    CHECK_EQ_U64(allocs, 1);
    CHECK_EQ_U64(info.size, sizeof info);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_HSA);
    CHECK(info.agentBaseAddress == dev && info.hostBaseAddress == dev);
    CHECK_EQ_U64(info.sizeInBytes, 12288);
    CHECK(info.userData == NULL);
    CHECK_EQ_U64(info.agentOwner.handle, env.gpu.handle);
    CHECK_EQ_U64(info.global_flags, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
    CHECK_EQ_U64(n, 1);
    CHECK(has_agent(list, n, env.gpu));
    free(list);

    /* System memory from the pool API is mapped to no GPU until allowed (ROCr's restricted
       allocation); from hsa_memory_allocate it is mapped to every GPU. */
    void *sys = NULL, *kernarg = NULL;
    MUST(hsa_amd_memory_pool_allocate(env.kernarg, 64, 0, &sys));
    n = info_of(sys, &info, &list);
    CHECK_EQ_U64(info.agentOwner.handle, env.cpu.handle);
    CHECK_EQ_U64(info.global_flags, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
    CHECK_EQ_U64(n, 0);
    free(list);
    CHECK_OK(hsa_amd_agents_allow_access(1, &env.gpu, NULL, sys));
    n = info_of(sys, &info, &list);
    CHECK(n == 1 && has_agent(list, n, env.gpu));
    free(list);
    CHECK_OK(hsa_amd_agents_allow_access(1, &env.cpu, NULL, sys));  /* CPU only: GPUs unmapped */
    n = info_of(sys, &info, &list);
    CHECK_EQ_U64(n, 0);
    free(list);
    MUST(hsa_memory_allocate(env.kernarg_region, 64, &kernarg));
    n = info_of(kernarg, &info, &list);
    CHECK(n == 1 && has_agent(list, n, env.gpu));
    free(list);
    /* Device memory allowed to the CPU stays mapped to its GPU. */
    CHECK_OK(hsa_amd_agents_allow_access(1, &env.cpu, NULL, dev));
    n = info_of(dev, &info, &list);
    CHECK(n == 1 && has_agent(list, n, env.gpu));
    free(list);

    /* allow_access argument checks. */
    hsa_agent_t forged = {env.gpu.handle + 9};
    uint32_t flags = 0;
    CHECK_STATUS(hsa_amd_agents_allow_access(0, &env.gpu, NULL, sys), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_agents_allow_access(1, NULL, NULL, sys), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_agents_allow_access(1, &env.gpu, &flags, sys), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_agents_allow_access(1, &env.gpu, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_agents_allow_access(1, &forged, NULL, sys), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_agents_allow_access(1, &env.gpu, NULL, (char *)sys + 8), HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_amd_agents_allow_access(1, &env.gpu, NULL, &n), HSA_STATUS_ERROR);

    /* The in-struct size governs what is written: an old, smaller struct keeps the rest. */
    memset(&info, 0xCC, sizeof info);
    info.size = offsetof(hsa_amd_pointer_info_t, sizeInBytes);
    CHECK_OK(hsa_amd_pointer_info(dev, &info, NULL, NULL, NULL));
    CHECK_EQ_U64(info.size, offsetof(hsa_amd_pointer_info_t, sizeInBytes));
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_HSA);
    CHECK(info.agentBaseAddress == dev);
    const unsigned char *tail = (const unsigned char *)&info.sizeInBytes;
    for (size_t i = 0; i < sizeof info - offsetof(hsa_amd_pointer_info_t, sizeInBytes); i++) CHECK(tail[i] == 0xCC);
    /* A bigger (future) struct: size comes back as the runtime's. */
    struct {
        hsa_amd_pointer_info_t info;
        uint64_t future;
    } big;
    memset(&big, 0xCC, sizeof big);
    big.info.size = sizeof big;
    CHECK_OK(hsa_amd_pointer_info(dev, &big.info, NULL, NULL, NULL));
    CHECK_EQ_U64(big.info.size, sizeof(hsa_amd_pointer_info_t));
    CHECK_EQ_U64(big.future, 0xCCCCCCCCCCCCCCCCull);
    /* No list unless all three list arguments are given. */
    allocs = 0;
    n = 777;
    list = NULL;
    info.size = sizeof info;
    CHECK_OK(hsa_amd_pointer_info(dev, &info, counting_malloc, NULL, &list));
    CHECK_OK(hsa_amd_pointer_info(dev, &info, NULL, &n, &list));
    CHECK(allocs == 0 && n == 777 && list == NULL);
    CHECK_STATUS(hsa_amd_pointer_info(dev, &info, failing_malloc, &n, &list), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_amd_pointer_info(NULL, &info, NULL, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_pointer_info(dev, NULL, NULL, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    info.size = 0;
    CHECK_STATUS(hsa_amd_pointer_info(dev, &info, NULL, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_pointer_info(dev, (hsa_amd_pointer_info_t *)0x40, NULL, NULL, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Unknown memory: type UNKNOWN, zeros, the CPU as owner (ROCr's node 0). */
    int local;
    n = info_of(&local, &info, &list);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
    CHECK(info.agentBaseAddress == NULL && info.hostBaseAddress == NULL && info.sizeInBytes == 0);
    CHECK_EQ_U64(info.agentOwner.handle, env.cpu.handle);
    CHECK_EQ_U64(n, 0);
    free(list);

    /* Locked host memory: as ROCr on a discrete GPU, the agent pointer is an address of its
       own (HIP keys pinned memory by both and needs them distinct), and pointer info
       answers the same at either address; LOCKED type, coarse grained, reachable by the
       listed GPUs. */
    size_t page = 4096;
    char *buffer = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    void *agent_ptr = (void *)1;
    CHECK_OK(hsa_amd_memory_lock(buffer + 100, 2 * page, &env.gpu, 1, &agent_ptr));
    CHECK(agent_ptr != NULL && agent_ptr != (void *)1 && agent_ptr != buffer + 100);
    for (int at_agent = 0; at_agent < 2; at_agent++) {
        n = info_of((char *)(at_agent ? agent_ptr : buffer + 100) + 200, &info, &list);
        CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_LOCKED);
        CHECK(info.agentBaseAddress == agent_ptr && info.hostBaseAddress == buffer + 100);
        CHECK_EQ_U64(info.sizeInBytes, 2 * page);
        CHECK_EQ_U64(info.agentOwner.handle, env.cpu.handle);
        CHECK_EQ_U64(info.global_flags, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
        CHECK(n == 1 && has_agent(list, n, env.gpu));
        free(list);
    }
    /* Copies through the agent pointer move the host bytes. */
    char got = 0;
    buffer[150] = 42;
    CHECK_OK(hsa_memory_copy(&got, (char *)agent_ptr + 50, 1));
    CHECK(got == 42);
    void *p = NULL;
    CHECK_OK(hsa_amd_pointer_info_set_userdata(buffer + 100, (void *)0xFEED));
    n = info_of(buffer + 100, &info, &list);
    CHECK(info.userData == (void *)0xFEED);
    free(list);
    /* Locked twice, unlocked twice. */
    CHECK_OK(hsa_amd_memory_lock(buffer + 100, 2 * page, NULL, 0, &p));
    CHECK_OK(hsa_amd_memory_unlock(buffer + 100));
    n = info_of(buffer + 100, &info, &list);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_LOCKED);
    free(list);
    CHECK_OK(hsa_amd_memory_unlock(buffer + 100));
    n = info_of(buffer + 100, &info, &list);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
    free(list);
    n = info_of(agent_ptr, &info, &list);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
    free(list);
    CHECK_STATUS(hsa_memory_copy(&got, agent_ptr, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_amd_memory_unlock(buffer + 100));  /* ROCr: unlocking unlocked memory succeeds */
    /* A list without GPUs pins nothing (ROCr): the CPU reaches host memory anyway. */
    CHECK_OK(hsa_amd_memory_lock(buffer, page, &env.cpu, 1, &p));
    CHECK(p == buffer);
    n = info_of(buffer, &info, &list);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
    free(list);
    /* Overlapping locks at one start with different sizes are separate mappings. */
    CHECK_OK(hsa_amd_memory_lock(buffer, page, NULL, 0, &p));
    CHECK_OK(hsa_amd_memory_lock(buffer, 3 * page, NULL, 0, &p));
    n = info_of(buffer + 2 * page, &info, &list);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_LOCKED);
    CHECK_EQ_U64(info.sizeInBytes, 3 * page);
    free(list);
    CHECK_OK(hsa_amd_memory_unlock(buffer));
    n = info_of(buffer + 2 * page, &info, &list);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_UNKNOWN);
    free(list);
    n = info_of(buffer, &info, &list);
    CHECK_EQ_U64(info.type, HSA_EXT_POINTER_TYPE_LOCKED);
    free(list);
    CHECK_OK(hsa_amd_memory_unlock(buffer));
    /* lock_to_pool takes the pool's properties; it needs a CPU pool. */
    CHECK_OK(hsa_amd_memory_lock_to_pool(buffer, page, NULL, 0, env.fine, 0, &p));
    CHECK(p != NULL && p != buffer);
    n = info_of(buffer, &info, &list);
    CHECK_EQ_U64(info.global_flags, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED);
    CHECK(n == 1 && has_agent(list, n, env.gpu));  /* no list: every GPU */
    free(list);
    CHECK_OK(hsa_amd_memory_unlock(buffer));
    CHECK_STATUS(hsa_amd_memory_lock_to_pool(buffer, page, NULL, 0, env.device, 0, &p), MEM_INVALID_POOL);
    hsa_amd_memory_pool_t forged_pool = {env.fine.handle + 100};
    CHECK_STATUS(hsa_amd_memory_lock_to_pool(buffer, page, NULL, 0, forged_pool, 0, &p), MEM_INVALID_POOL);
    CHECK_STATUS(hsa_amd_memory_lock_to_pool(buffer, page, NULL, 0, env.fine, 1, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* Lock argument checks and memory that is not there. */
    CHECK_STATUS(hsa_amd_memory_lock(buffer, 0, NULL, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_lock(NULL, page, NULL, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_lock(buffer, page, NULL, 0, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_lock(buffer, page, &env.gpu, 0, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_lock(buffer, page, NULL, 1, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_lock(buffer, page, &env.gpu, -1, &p), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_lock(buffer, page, &forged, 1, &p), HSA_STATUS_ERROR_INVALID_AGENT);
    munmap(buffer + 2 * page, 2 * page);
    CHECK_STATUS(hsa_amd_memory_lock(buffer, 3 * page, NULL, 0, &p), HSA_STATUS_ERROR);
    CHECK(p == NULL);  /* ROCr clears the out-pointer of a failed lock */
    CHECK_STATUS(hsa_amd_memory_lock((void *)0x1000, page, NULL, 0, &p), HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_amd_memory_lock(dev, page, NULL, 0, &p), HSA_STATUS_ERROR);  /* device memory */

    /* Registration: ROCr's argument rules; ROCr 5.2.3 registers nothing and succeeds, so
       unmapped memory succeeds too (it only stays unreachable by kernels). */
    CHECK_OK(hsa_memory_register(buffer, page));
    CHECK_OK(hsa_memory_deregister(buffer, page));
    CHECK_OK(hsa_memory_register(NULL, 0));
    CHECK_OK(hsa_memory_register(NULL, page));  /* ROCr: nothing to register, success */
    CHECK_OK(hsa_memory_deregister(buffer, page));  /* nothing registered: still success */
    CHECK_STATUS(hsa_memory_register(buffer, 0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_memory_register(buffer + 2 * page, page));
    CHECK_OK(hsa_memory_register(dev, page));  /* device memory: already reachable */

    /* User data on allocations, only at their start. */
    CHECK_OK(hsa_amd_pointer_info_set_userdata(dev, (void *)0xBEEF));
    n = info_of((char *)dev + 64, &info, &list);
    CHECK(info.userData == (void *)0xBEEF);
    free(list);
    CHECK_STATUS(hsa_amd_pointer_info_set_userdata((char *)dev + 64, (void *)1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_pointer_info_set_userdata(&local, (void *)1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_pointer_info_set_userdata(NULL, (void *)1), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    munmap(buffer, 2 * page);
    MUST(hsa_amd_memory_pool_free(dev));
    MUST(hsa_amd_memory_pool_free(sys));
    MUST(hsa_memory_free(kernarg));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
