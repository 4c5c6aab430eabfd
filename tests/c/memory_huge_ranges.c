/* Absurd sizes and counts with valid pointers (found by the API-sequence fuzzer): each
   call answers its status without the runtime allocating memory in proportion to the size
   or count (peak RSS, which a busy machine does not change; a walk over the range would
   also never end within the harness's timeout). Registering or locking a mapped start with a huge size once took
   seconds and gigabytes; an async copy or allow_access with a huge array count answered
   HSA_STATUS_ERROR after trying to allocate the copy of the array. */
#include <hsa/hsa_ext_amd.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "check.h"

static long peak_rss_mb(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024;
}

int main(void) {
    char *host = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* Sizes up to the end of the user address space (2^47), where the runtime's checks stop. */
    size_t sizes[] = {(size_t)1 << 36, (size_t)1 << 40, (size_t)1 << 44, ((size_t)1 << 47) - (uintptr_t)host - 4096};
    void *agent_ptr;
    CHECK_OK(hsa_init());
    long rss_before = peak_rss_mb();
    for (int i = 0; i < 4; i++) {
        CHECK_OK(hsa_memory_register(host, sizes[i]));   /* ROCr registers nothing: success */
        CHECK_STATUS(hsa_amd_memory_lock(host, sizes[i], NULL, 0, &agent_ptr), HSA_STATUS_ERROR);
    }
    long grown = peak_rss_mb() - rss_before;
    CHECK(grown < 64);
    /* Arrays: a real one of two elements, announced as 2^32-1 or 2^28 elements long. */
    hsa_signal_t deps[2];
    hsa_agent_t agents[2] = {{0}, {0}};
    CHECK_OK(hsa_signal_create(0, 0, NULL, &deps[0]));
    deps[1] = deps[0];
    hsa_agent_t cpu, gpu;
    find_cpu_gpu(&cpu, &gpu);
    rss_before = peak_rss_mb();
    CHECK_STATUS(hsa_amd_memory_async_copy(host, cpu, host + 4096, cpu, 64, UINT32_MAX, deps, deps[0]),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_memory_async_copy(host, cpu, host + 4096, cpu, 64, 1u << 28, deps, deps[0]),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_agents_allow_access(1u << 28, agents, NULL, host), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    grown = peak_rss_mb() - rss_before;
    CHECK(grown < 64);
    CHECK_OK(hsa_signal_destroy(deps[0]));

    /* The mapped part alone is fine. */
    CHECK_OK(hsa_memory_register(host, 1 << 20));
    CHECK_OK(hsa_memory_deregister(host, 1 << 20));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
