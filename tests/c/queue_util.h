/* Shared by the queue tests: find the GPU and CPU agents and a region to put soft queues in. */
#ifndef SOFTGPU_TEST_QUEUE_UTIL_H
#define SOFTGPU_TEST_QUEUE_UTIL_H
#include "check.h"

static hsa_agent_t gpu_agent, cpu_agent;

static hsa_status_t find_agents(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    (void)data;
    if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
    if (type == HSA_DEVICE_TYPE_GPU && gpu_agent.handle == 0) gpu_agent = agent;
    if (type == HSA_DEVICE_TYPE_CPU && cpu_agent.handle == 0) cpu_agent = agent;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t first_region(hsa_region_t region, void *data) {
    *(hsa_region_t *)data = region;
    return HSA_STATUS_INFO_BREAK;
}

static void find_gpu_and_cpu(void) {
    gpu_agent.handle = cpu_agent.handle = 0;
    CHECK_OK(hsa_iterate_agents(find_agents, NULL));
    CHECK(gpu_agent.handle != 0);
    CHECK(cpu_agent.handle != 0);
}
#endif
