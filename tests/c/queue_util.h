/* Shared by the queue tests: find the GPU and CPU agents and a region to put soft queues in. */
#ifndef SOFTGPU_TEST_QUEUE_UTIL_H
#define SOFTGPU_TEST_QUEUE_UTIL_H
#include "check.h"

static hsa_agent_t gpu_agent, cpu_agent;

static hsa_status_t first_region(hsa_region_t region, void *data) {
    *(hsa_region_t *)data = region;
    return HSA_STATUS_INFO_BREAK;
}

static void find_gpu_and_cpu(void) {
    find_cpu_gpu(&cpu_agent, &gpu_agent);
    CHECK(gpu_agent.handle != 0);
    CHECK(cpu_agent.handle != 0);
}
#endif
