/* Minimal assertions for C tests: print each failure, exit non-zero at the end. */
#ifndef SOFTGPU_TEST_CHECK_H
#define SOFTGPU_TEST_CHECK_H
#include <hsa/hsa.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int check_failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                    \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

#define CHECK_STATUS(call, expected)                                                  \
    do {                                                                              \
        hsa_status_t check_s_ = (call);                                               \
        if (check_s_ != (expected)) {                                                 \
            printf("FAIL %s:%d: %s returned 0x%x, expected 0x%x\n", __FILE__, __LINE__,\
                   #call, (unsigned)check_s_, (unsigned)(expected));                  \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, HSA_STATUS_SUCCESS)

#define CHECK_EQ_U64(a, b)                                                            \
    do {                                                                              \
        uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);                  \
        if (check_a_ != check_b_) {                                                   \
            printf("FAIL %s:%d: %s == %" PRIu64 ", expected %" PRIu64 "\n", __FILE__,  \
                   __LINE__, #a, check_a_, check_b_);                                 \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

/* For set-up steps a test cannot go on without. */
#define MUST(call)                                                                    \
    do {                                                                              \
        hsa_status_t must_s_ = (call);                                                \
        if (must_s_ != HSA_STATUS_SUCCESS) {                                          \
            printf("FAIL %s:%d: %s returned 0x%x\n", __FILE__, __LINE__, #call,         \
                   (unsigned)must_s_);                                                \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

/* Every agent, in hsa_iterate_agents order. */
typedef struct {
    hsa_agent_t list[8];
    int count;
} agents_t;

static inline hsa_status_t collect_agent(hsa_agent_t agent, void *data) {
    agents_t *a = data;
    if (a->count < 8) a->list[a->count++] = agent;
    return HSA_STATUS_SUCCESS;
}

/* The first CPU and the first GPU agent (either may be left 0). */
static inline void find_cpu_gpu(hsa_agent_t *cpu, hsa_agent_t *gpu) {
    agents_t all = {{{0}}, 0};
    MUST(hsa_iterate_agents(collect_agent, &all));
    cpu->handle = gpu->handle = 0;
    for (int i = 0; i < all.count; i++) {
        hsa_device_type_t type;
        MUST(hsa_agent_get_info(all.list[i], HSA_AGENT_INFO_DEVICE, &type));
        if (type == HSA_DEVICE_TYPE_GPU && !gpu->handle) *gpu = all.list[i];
        if (type == HSA_DEVICE_TYPE_CPU && !cpu->handle) *cpu = all.list[i];
    }
}

static inline int check_report(void) {
    printf("%s: %d failure(s)\n", check_failures ? "FAILED" : "PASSED", check_failures);
    return check_failures ? 1 : 0;
}
#endif
