/* The newest ROCr's ISA answers for generic targets and code object v6, through the ABI:
   every generic ISA name resolves (with the feature settings its family supports, and no
   others), a generic ISA is compatible with no agent ISA through hsa_isa_compatible (ROCr
   passes no generic version there), a v6 object for the GPU's processor or its generic
   family loads on it, and one for another family is INCOMPATIBLE_ARGUMENTS.
   usage: isa_generic_targets V6_GFX1030 V6_GFX10_3_GENERIC V6_GFX11_GENERIC */
#include <hsa/hsa.h>
#include <string.h>

#include "check.h"
#include "loader_util.h"

static const char PREFIX[] = "amdgcn-amd-amdhsa--";

static hsa_isa_t isa_named(const char *target) {
    char name[96];
    snprintf(name, sizeof name, "%s%s", PREFIX, target);
    hsa_isa_t isa = {0};
    CHECK_OK(hsa_isa_from_name(name, &isa));
    char back[96] = "";
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, back));
    CHECK(strcmp(back, name) == 0);
    return isa;
}

static hsa_status_t first_isa(hsa_isa_t isa, void *data) {
    *(hsa_isa_t *)data = isa;
    return HSA_STATUS_INFO_BREAK;
}

static void names(void) {
    static const char *known[] = {"gfx9-generic", "gfx9-generic:xnack-", "gfx9-generic:xnack+",
                                  "gfx9-4-generic", "gfx9-4-generic:sramecc+:xnack-", "gfx10-1-generic:xnack+",
                                  "gfx10-3-generic", "gfx11-generic", "gfx12-generic",
                                  "gfx942:sramecc+", "gfx950", "gfx1151", "gfx1201"};
    for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++) isa_named(known[i]);
    /* Features a family does not have, and families ROCr does not list. */
    static const char *unknown[] = {"amdgcn-amd-amdhsa--gfx10-3-generic:xnack-",
                                    "amdgcn-amd-amdhsa--gfx11-generic:sramecc+",
                                    "amdgcn-amd-amdhsa--gfx9-generic:sramecc-",
                                    "amdgcn-amd-amdhsa--gfx10-2-generic", "amdgcn-amd-amdhsa--gfx940"};
    for (unsigned i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        hsa_isa_t isa = {77};
        CHECK_STATUS(hsa_isa_from_name(unknown[i], &isa), HSA_STATUS_ERROR_INVALID_ISA_NAME);
    }
    /* A generic ISA's answers come from its family: gfx11-generic is major 11 (fast f16),
       and an ISA no profile names lists the one wavefront ROCr's registry gives it. */
    bool fast = false;
    CHECK_OK(hsa_isa_get_info_alt(isa_named("gfx11-generic"), HSA_ISA_INFO_FAST_F16_OPERATION, &fast));
    CHECK(fast);
    hsa_wavefront_t wave;
    uint32_t size = 0;
    CHECK_STATUS(hsa_isa_iterate_wavefronts(isa_named("gfx1201"), (hsa_status_t(*)(hsa_wavefront_t, void *))first_isa,
                                            &wave),
                 HSA_STATUS_INFO_BREAK);
    CHECK_OK(hsa_wavefront_get_info(wave, HSA_WAVEFRONT_INFO_SIZE, &size));
    CHECK_EQ_U64(size, 32);
}

static void compatibility(hsa_agent_t gpu) {
    hsa_isa_t agent_isa;
    CHECK_STATUS(hsa_agent_iterate_isas(gpu, first_isa, &agent_isa), HSA_STATUS_INFO_BREAK);
    bool result = true;
    CHECK_OK(hsa_isa_compatible(isa_named("gfx10-3-generic"), agent_isa, &result));
    CHECK(!result);
    CHECK_OK(hsa_isa_compatible(isa_named("gfx1030"), agent_isa, &result));
    CHECK(result);
    CHECK_OK(hsa_isa_compatible(isa_named("gfx1031"), agent_isa, &result));
    CHECK(!result);
}

static void loads(hsa_agent_t gpu, char **paths) {
    const hsa_status_t want[3] = {HSA_STATUS_SUCCESS, HSA_STATUS_SUCCESS, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS};
    for (int i = 0; i < 3; i++) {
        hsa_executable_t executable;
        CHECK_STATUS(loader_load_file(paths[i], gpu, &executable), want[i]);
        CHECK_OK(hsa_executable_destroy(executable));
    }
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    MUST(hsa_init());
    hsa_agent_t gpu = loader_gpu();
    names();
    compatibility(gpu);
    loads(gpu, argv + 1);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
