/* hsa_init under the environment's SOFTGPU_PROFILE: prints "hsa_init 0x<status>", then
   (on success) each GPU's compute unit count, BDFID and UUID, and shuts down. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "check.h"

static hsa_status_t print_gpu(hsa_agent_t agent, void *data) {
    (void)data;
    hsa_device_type_t type;
    uint32_t cus = 0;
    CHECK_OK(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
    if (type == HSA_DEVICE_TYPE_GPU) {
        uint32_t bdfid = 0;
        char uuid[32] = "";
        CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
        CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_BDFID, &bdfid));
        CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_UUID, uuid));
        printf("gpu compute units %u bdfid %u uuid %s\n", cus, bdfid, uuid);
    }
    return HSA_STATUS_SUCCESS;
}

int main(void) {
    hsa_status_t status = hsa_init();
    printf("hsa_init 0x%x\n", (unsigned)status);
    if (status != HSA_STATUS_SUCCESS) {
        /* Nothing was left behind: the runtime is still uninitialized. */
        CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);
        return check_report();
    }
    CHECK_OK(hsa_iterate_agents(print_gpu, NULL));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
