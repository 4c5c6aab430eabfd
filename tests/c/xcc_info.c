/* The GPU agent's XCCs (accelerator complex dies) as ROCr 6 reports them: NUM_XCC is the
   profile's count (argv[1]) and the scratch aperture ROCr reserves is 4 GiB per XCC. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdlib.h>

#include "check.h"

/* HSA_AMD_AGENT_INFO_* of ROCm releases after the 5.2.3 headers. */
enum { AMD_AGENT_INFO_NUM_XCC = 0xA111, AMD_AGENT_INFO_SCRATCH_LIMIT_MAX = 0xA116 };

int main(int argc, char **argv) {
    uint64_t xccs = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    CHECK_OK(hsa_init());
    agents_t agents = {.count = 0};
    CHECK_OK(hsa_iterate_agents(collect_agent, &agents));
    CHECK_EQ_U64(agents.count, 2);
    if (agents.count == 2) {
        hsa_agent_t gpu = agents.list[1];
        uint32_t count = 0xDEADBEEF;
        CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)AMD_AGENT_INFO_NUM_XCC, &count));
        CHECK_EQ_U64(count, xccs);
        uint64_t limit = 0;
        CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)AMD_AGENT_INFO_SCRATCH_LIMIT_MAX, &limit));
        CHECK_EQ_U64(limit, xccs << 32);
    }
    CHECK_OK(hsa_shut_down());
    return check_report();
}
