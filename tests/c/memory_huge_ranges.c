/* Registering or locking a mapped start with an absurd size (found by the API-sequence
   fuzzer): each call answers an error at once, without the runtime allocating memory in
   proportion to the size (once it took seconds and gigabytes). */
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

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(void) {
    char *host = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* Sizes up to the end of the user address space (2^47), where the runtime's checks stop. */
    size_t sizes[] = {(size_t)1 << 36, (size_t)1 << 40, (size_t)1 << 44, ((size_t)1 << 47) - (uintptr_t)host - 4096};
    void *agent_ptr;
    CHECK_OK(hsa_init());
    long rss_before = peak_rss_mb();
    double start = now_s();
    for (int i = 0; i < 4; i++) {
        CHECK_STATUS(hsa_memory_register(host, sizes[i]), HSA_STATUS_ERROR);
        CHECK_STATUS(hsa_amd_memory_lock(host, sizes[i], NULL, 0, &agent_ptr), HSA_STATUS_ERROR);
    }
    double seconds = now_s() - start;
    long grown = peak_rss_mb() - rss_before;
    CHECK(seconds < 2.0);
    CHECK(grown < 64);
    if (seconds >= 2.0 || grown >= 64) printf("took %.2f s, peak RSS grew %ld MB\n", seconds, grown);
    /* The mapped part alone is fine. */
    CHECK_OK(hsa_memory_register(host, 1 << 20));
    CHECK_OK(hsa_memory_deregister(host, 1 << 20));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
