/* hsa_memory_copy, hsa_amd_memory_fill and hsa_memory_assign_agent. */
#include <stdint.h>

#include "memory_util.h"

int main(void) {
    mem_env_t env;
    mem_setup(&env);
    enum { N = 3000 };
    uint32_t *host = malloc(N * 4), *back = malloc(N * 4);
    for (uint32_t i = 0; i < N; i++) host[i] = i * 2654435761u;
    void *dev = NULL, *dev2 = NULL, *sys = NULL;
    MUST(hsa_amd_memory_pool_allocate(env.device, N * 4, 0, &dev));
    MUST(hsa_amd_memory_pool_allocate(env.device, N * 4, 0, &dev2));
    MUST(hsa_amd_memory_pool_allocate(env.fine, 4096, 0, &sys));

    /* Host -> device -> device -> host. */
    CHECK_OK(hsa_memory_copy(dev, host, N * 4));
    CHECK_OK(hsa_memory_copy(dev2, dev, N * 4));
    memset(back, 0, N * 4);
    CHECK_OK(hsa_memory_copy(back, dev2, N * 4));
    CHECK(memcmp(back, host, N * 4) == 0);
    /* An interior range of an allocation. */
    CHECK_OK(hsa_memory_copy((char *)dev + 100, host, 64));
    CHECK(memcmp((char *)dev + 100, host, 64) == 0);

    /* Zero bytes is a no-op whatever the pointers; NULL is not. */
    CHECK_OK(hsa_memory_copy((void *)0x10, (void *)0x20, 0));
    CHECK_STATUS(hsa_memory_copy(NULL, host, 4), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_copy(dev, NULL, 4), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* Garbage pointers are an error, not a crash. */
    CHECK_STATUS(hsa_memory_copy((void *)0x10, host, 16), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_copy(back, (void *)0x10, 16), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_copy((void *)"read-only", host, 4), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* Device ranges must stay inside one live allocation. */
    CHECK_STATUS(hsa_memory_copy((char *)dev + N * 4 - 8, host, 4096 + 64), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    void *gone = NULL;
    MUST(hsa_amd_memory_pool_allocate(env.device, 4096, 0, &gone));
    MUST(hsa_amd_memory_pool_free(gone));
    CHECK_STATUS(hsa_memory_copy(gone, host, 16), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_copy(back, gone, 16), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Fill: `count` dwords of the pattern, nothing around them. */
    memset(dev, 0, N * 4);
    CHECK_OK(hsa_amd_memory_fill((uint32_t *)dev + 1, 0xDEADBEEF, 10));
    uint32_t *d = dev;
    CHECK(d[0] == 0 && d[11] == 0);
    for (int i = 1; i <= 10; i++) CHECK(d[i] == 0xDEADBEEF);
    CHECK_OK(hsa_amd_memory_fill(sys, 0x01020304, 1024));  /* a whole system-pool page */
    CHECK(((uint32_t *)sys)[1023] == 0x01020304);
    CHECK_OK(hsa_amd_memory_fill(dev, 7, 0));
    CHECK_OK(hsa_amd_memory_fill(host, 7, 0));  /* zero dwords: nothing is checked further */
    CHECK_STATUS(hsa_amd_memory_fill(NULL, 7, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_fill((char *)dev + 2, 7, 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_fill(host, 7, 1), HSA_STATUS_ERROR_INVALID_ALLOCATION);  /* not HSA memory */
    CHECK_STATUS(hsa_amd_memory_fill((uint32_t *)sys + 1, 7, 1024), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_memory_fill(gone, 7, 1), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(((uint32_t *)sys)[1] == 0x01020304);
    /* Locked host memory can be filled. */
    void *agent_ptr = NULL;
    MUST(hsa_amd_memory_lock(back, N * 4, NULL, 0, &agent_ptr));
    CHECK_OK(hsa_amd_memory_fill(agent_ptr, 0xA5A5A5A5, N));
    CHECK(back[0] == 0xA5A5A5A5 && back[N - 1] == 0xA5A5A5A5);
    MUST(hsa_amd_memory_unlock(back));
    CHECK_STATUS(hsa_amd_memory_fill(back, 7, 1), HSA_STATUS_ERROR_INVALID_ALLOCATION);

    /* assign_agent: ROCr checks its arguments and the agent, and accepts any pointer. */
    hsa_agent_t forged = {env.gpu.handle + 3};
    CHECK_OK(hsa_memory_assign_agent(dev, env.gpu, HSA_ACCESS_PERMISSION_RW));
    CHECK_OK(hsa_memory_assign_agent(sys, env.cpu, HSA_ACCESS_PERMISSION_RO));
    CHECK_STATUS(hsa_memory_assign_agent(NULL, env.gpu, HSA_ACCESS_PERMISSION_RW), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_assign_agent(dev, env.gpu, (hsa_access_permission_t)0), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_assign_agent(dev, env.gpu, (hsa_access_permission_t)4), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_assign_agent(dev, forged, HSA_ACCESS_PERMISSION_RW), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_OK(hsa_memory_assign_agent((char *)dev + 4096, env.gpu, HSA_ACCESS_PERMISSION_RW));
    CHECK_OK(hsa_memory_assign_agent(host, env.gpu, HSA_ACCESS_PERMISSION_RW));

    MUST(hsa_amd_memory_pool_free(dev));
    MUST(hsa_amd_memory_pool_free(dev2));
    MUST(hsa_amd_memory_pool_free(sys));
    free(host);
    free(back);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
