/* Allocation stress: THREADS threads allocate, write, check and free device and system
   memory at once. Exact invariants: no two live allocations overlap (each thread fills
   its blocks with its own pattern and finds it intact before freeing), and the GPU's
   free memory (HSA_AMD_AGENT_INFO_MEMORY_AVAIL) is exactly what it was once all is freed.
   usage: stress_memory THREADS ROUNDS */
#include <pthread.h>

#include "memory_util.h"

#define MEMORY_AVAIL ((hsa_agent_info_t)0xA015) /* HSA_AMD_AGENT_INFO_MEMORY_AVAIL, ROCm >= 5.3 */
#define LIVE 8

static mem_env_t env;
static int rounds;

static void *churn(void *arg) {
    int id = (int)(intptr_t)arg;
    uint32_t *blocks[LIVE] = {0};
    size_t words[LIVE] = {0};
    for (int r = 0; r < rounds; r++) {
        int k = r % LIVE;
        if (blocks[k]) {
            for (size_t w = 0; w < words[k]; w += 97)
                if (blocks[k][w] != (uint32_t)(id << 24 | k)) {
                    printf("FAIL thread %d: block %p overwritten at word %zu\n", id, (void *)blocks[k], w);
                    __atomic_add_fetch(&check_failures, 1, __ATOMIC_SEQ_CST);
                    break;
                }
            CHECK_OK(hsa_amd_memory_pool_free(blocks[k]));
            blocks[k] = NULL;
        }
        /* Sizes that are not page multiples: the pools charge whole pages. */
        size_t size = 4096 * (1 + (r * 7 + id) % 5) - (r % 3) * 100;
        hsa_amd_memory_pool_t pool = (r + id) % 2 ? env.device : env.fine;
        void *p = NULL;
        CHECK_OK(hsa_amd_memory_pool_allocate(pool, size, 0, &p));
        if (!p) continue;
        words[k] = size / 4;
        /* Device memory is host memory in SoftGPU: the host fills it directly. */
        for (size_t w = 0; w < words[k]; w++) ((uint32_t *)p)[w] = (uint32_t)(id << 24 | k);
        blocks[k] = p;
    }
    for (int k = 0; k < LIVE; k++)
        if (blocks[k]) CHECK_OK(hsa_amd_memory_pool_free(blocks[k]));
    return NULL;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    rounds = argc > 2 ? atoi(argv[2]) : 2000;
    if (threads > 32) threads = 32;
    pthread_t t[32];
    mem_setup(&env);
    uint64_t avail_before = 0, avail_after = 0;
    CHECK_OK(hsa_agent_get_info(env.gpu, MEMORY_AVAIL, &avail_before));
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, churn, (void *)(intptr_t)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    CHECK_OK(hsa_agent_get_info(env.gpu, MEMORY_AVAIL, &avail_after));
    CHECK_EQ_U64(avail_after, avail_before);
    /* The whole device pool is still there to take in one piece: nothing leaked or split. */
    size_t size = 0;
    void *all = NULL;
    CHECK_OK(hsa_amd_memory_pool_get_info(env.device, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size));
    CHECK_EQ_U64(avail_before, size);
    CHECK_OK(hsa_amd_memory_pool_allocate(env.device, size / 4096 * 4096, 0, &all));
    CHECK_OK(hsa_amd_memory_pool_free(all));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
