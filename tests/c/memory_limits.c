/* Copies and fills at the very end of an allocation: a range that ends exactly at the end is
   done in full; one byte (or dword) further is refused with the export's status and moves
   nothing. For hsa_memory_copy, hsa_amd_memory_async_copy (device memory and locked host
   memory) and hsa_amd_memory_fill. Sizes are whole pages, so the allocation's end is the
   end of what was asked for. */
#include <stdint.h>
#include <sys/mman.h>

#include "memory_util.h"

enum { SIZE = 8192 };

static hsa_signal_t done;

/* hsa_amd_memory_async_copy, then wait for it: its status, and whether it completed. */
static hsa_status_t async_copy(void *dst, hsa_agent_t dst_agent, const void *src, hsa_agent_t src_agent, size_t n) {
    hsa_signal_store_screlease(done, 1);
    hsa_status_t status = hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, n, 0, NULL, done);
    if (status == HSA_STATUS_SUCCESS)
        CHECK_EQ_U64(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 0);
    else
        CHECK_EQ_U64(hsa_signal_load_relaxed(done), 1); /* a refused copy never completes */
    return status;
}

static int all_bytes(const uint8_t *p, size_t n, uint8_t value) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != value) return 0;
    return 1;
}

int main(void) {
    mem_env_t env;
    mem_setup(&env);
    uint8_t *host = malloc(SIZE + 64), *dev = NULL, *dev2 = NULL;
    memset(host, 0xAB, SIZE + 64);
    MUST(hsa_amd_memory_pool_allocate(env.device, SIZE, 0, (void **)&dev));
    MUST(hsa_amd_memory_pool_allocate(env.device, SIZE, 0, (void **)&dev2));
    MUST(hsa_amd_agents_allow_access(1, &env.cpu, NULL, dev));
    MUST(hsa_amd_agents_allow_access(1, &env.cpu, NULL, dev2));
    MUST(hsa_signal_create(1, 0, NULL, &done));

    /* hsa_memory_copy: into and out of the last 16 bytes, and the whole allocation. */
    memset(dev, 0, SIZE);
    CHECK_OK(hsa_memory_copy(dev + SIZE - 16, host, 16));
    CHECK(all_bytes(dev + SIZE - 16, 16, 0xAB) && dev[SIZE - 17] == 0);
    CHECK_OK(hsa_memory_copy(dev, host, SIZE));
    CHECK_OK(hsa_memory_copy(host, dev + SIZE - 16, 16));
    memset(dev, 0, SIZE);
    CHECK_STATUS(hsa_memory_copy(dev + SIZE - 16, host, 17), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_copy(dev, host, SIZE + 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(all_bytes(dev, SIZE, 0));                          /* refused: nothing moved */
    memset(host, 0xCD, SIZE + 64);
    CHECK_STATUS(hsa_memory_copy(host, dev + SIZE - 16, 17), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_memory_copy(host, dev, SIZE + 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(all_bytes(host, SIZE + 64, 0xCD));
    /* device to device, both ends at once */
    memset(dev2, 0x11, SIZE);
    CHECK_OK(hsa_memory_copy(dev + SIZE - 100, dev2 + SIZE - 100, 100));
    CHECK(all_bytes(dev + SIZE - 100, 100, 0x11) && dev[SIZE - 101] == 0);
    CHECK_STATUS(hsa_memory_copy(dev + SIZE - 100, dev2 + SIZE - 100, 101), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* hsa_amd_memory_async_copy between device allocations. */
    memset(dev, 0, SIZE);
    memset(dev2, 0x22, SIZE);
    CHECK_OK(async_copy(dev + SIZE - 16, env.gpu, dev2, env.gpu, 16));
    CHECK(all_bytes(dev + SIZE - 16, 16, 0x22) && dev[SIZE - 17] == 0);
    CHECK_OK(async_copy(dev, env.gpu, dev2 + SIZE - 16, env.gpu, 16));
    CHECK_OK(async_copy(dev, env.gpu, dev2, env.gpu, SIZE));
    CHECK(all_bytes(dev, SIZE, 0x22));
    memset(dev, 0, SIZE);
    CHECK_STATUS(async_copy(dev + SIZE - 16, env.gpu, dev2, env.gpu, 17), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(async_copy(dev, env.gpu, dev2 + SIZE - 16, env.gpu, 17), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(async_copy(dev, env.gpu, dev2, env.gpu, SIZE + 1), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(all_bytes(dev, SIZE, 0));

    /* ... and from locked host memory, whose agent address ends where the locked range does. */
    uint8_t *pinned = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(pinned != MAP_FAILED);
    memset(pinned, 0x33, SIZE);
    void *agent_ptr = NULL;
    MUST(hsa_amd_memory_lock(pinned, SIZE, &env.gpu, 1, &agent_ptr));
    uint8_t *agent_bytes = agent_ptr;
    CHECK_OK(async_copy(dev + SIZE - 16, env.gpu, agent_bytes + SIZE - 16, env.cpu, 16));
    CHECK(all_bytes(dev + SIZE - 16, 16, 0x33));
    CHECK_OK(async_copy(agent_bytes + SIZE - 16, env.cpu, dev2, env.gpu, 16));
    CHECK(all_bytes(pinned + SIZE - 16, 16, 0x22) && pinned[SIZE - 17] == 0x33);
    CHECK_STATUS(async_copy(dev, env.gpu, agent_bytes + SIZE - 16, env.cpu, 17), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(async_copy(agent_bytes + SIZE - 16, env.cpu, dev2, env.gpu, 17), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(pinned[SIZE - 17] == 0x33);
    MUST(hsa_amd_memory_unlock(pinned));
    munmap(pinned, SIZE);

    /* hsa_amd_memory_fill: dwords up to the last one, and one dword more. */
    memset(dev, 0, SIZE);
    CHECK_OK(hsa_amd_memory_fill(dev + SIZE - 16, 0x01020304, 4));
    CHECK(((uint32_t *)dev)[SIZE / 4 - 1] == 0x01020304 && ((uint32_t *)dev)[SIZE / 4 - 5] == 0);
    CHECK_OK(hsa_amd_memory_fill(dev, 0x05060708, SIZE / 4));
    CHECK(((uint32_t *)dev)[SIZE / 4 - 1] == 0x05060708);
    memset(dev, 0, SIZE);
    CHECK_STATUS(hsa_amd_memory_fill(dev + SIZE - 16, 7, 5), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK_STATUS(hsa_amd_memory_fill(dev, 7, SIZE / 4 + 1), HSA_STATUS_ERROR_INVALID_ALLOCATION);
    CHECK(all_bytes(dev, SIZE, 0));

    MUST(hsa_signal_destroy(done));
    MUST(hsa_amd_memory_pool_free(dev));
    MUST(hsa_amd_memory_pool_free(dev2));
    free(host);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
