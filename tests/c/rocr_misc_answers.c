/* ROCr 5.2.3's answers for extensions, ISAs and the loader where the spec leaves room:
   what ROCr reads only when it answers yes, the full profile of the gfx700/gfx801 APU
   ISAs, the finalizer table at version 0, agent handles the loader does not resolve,
   and agent {0}, which ROCr cannot load code for.
   usage: rocr_misc_answers CODE_OBJECT   (a gfx1030 code object) */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ven_amd_loader.h>

#include "check.h"
#include "loader_util.h"

static void extensions(hsa_agent_t cpu, hsa_agent_t gpu) {
    bool result = true;
    uint16_t minor = 7;
    /* version_minor is written, and so needed, only when the answer is yes (a GPU). */
    CHECK_OK(hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, cpu, 1, NULL, &result));
    CHECK(!result);
    CHECK_OK(hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, gpu, 1, &minor, &result));
    CHECK(result && minor == 0);

    /* Without a finalizer library ROCr's finalizer table is at version 0: SUCCESS, and its
       entries answer NOT_INITIALIZED. Version 1 has no table. */
    hsa_ext_finalizer_1_00_pfn_t finalizer;
    CHECK_STATUS(hsa_system_get_major_extension_table(HSA_EXTENSION_FINALIZER, 1, sizeof finalizer, &finalizer),
                 HSA_STATUS_ERROR);
    CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_FINALIZER, 0, sizeof finalizer, &finalizer));
    hsa_ext_program_t program;
    CHECK_STATUS(finalizer.hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                                  HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &program),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
}

static void isa_profiles(void) {
    const struct { const char *name; bool full; } isas[] = {
        {"amdgcn-amd-amdhsa--gfx700", true}, {"amdgcn-amd-amdhsa--gfx801:xnack+", true},
        {"amdgcn-amd-amdhsa--gfx803", false}, {"amdgcn-amd-amdhsa--gfx1030", false}};
    for (unsigned i = 0; i < sizeof isas / sizeof isas[0]; i++) {
        hsa_isa_t isa;
        bool profiles[2] = {false, !isas[i].full};
        CHECK_OK(hsa_isa_from_name(isas[i].name, &isa));
        CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_PROFILES, profiles));
        CHECK(profiles[0] && profiles[1] == isas[i].full);
    }
}

static void loader(hsa_agent_t gpu, const char *path) {
    size_t size;
    char *data = loader_read_file(path, &size);
    hsa_code_object_reader_t reader;
    hsa_executable_t executable;
    MUST(hsa_code_object_reader_create_from_memory(data, size, &reader));
    MUST(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &executable));

    /* An agent variable keys on the agent handle; ROCr does not check that it is an agent. */
    static int cell;
    hsa_agent_t nobody = {0x4321};
    CHECK_OK(hsa_executable_agent_global_variable_define(executable, nobody, "cell", &cell));
    CHECK_STATUS(hsa_executable_agent_global_variable_define(executable, nobody, "cell", &cell),
                 HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);

    /* Agent {0}: ROCr allocates the code segment by asking that agent's profile, which
       fails, so a program load and an agent load for handle 0 answer OUT_OF_RESOURCES and
       change nothing (the executable keeps no symbol, the handle is not written). */
    hsa_loaded_code_object_t loaded = {77};
    hsa_agent_t none = {0};
    CHECK_STATUS(hsa_executable_load_agent_code_object(executable, none, reader, NULL, &loaded),
                 HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_STATUS(hsa_executable_load_program_code_object(executable, reader, NULL, &loaded),
                 HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_EQ_U64(loaded.handle, 77);
    hsa_executable_symbol_t symbol;
    CHECK_STATUS(hsa_executable_get_symbol_by_name(executable, "lookup_tables.kd", &gpu, &symbol),
                 HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
    CHECK_OK(hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, &loaded));
    CHECK_OK(hsa_executable_get_symbol_by_name(executable, "lookup_tables.kd", &gpu, &symbol));
    hsa_ven_amd_loader_1_01_pfn_t amd;
    MUST(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof amd, &amd));
    hsa_agent_t owner = {77};

    /* An agent that does not exist supports no ISA: the object is incompatible with it. */
    hsa_executable_t other;
    MUST(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &other));
    CHECK_STATUS(hsa_executable_load_agent_code_object(other, nobody, reader, NULL, NULL),
                 HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    CHECK_OK(hsa_executable_load_agent_code_object(other, gpu, reader, NULL, &loaded));
    CHECK_OK(amd.hsa_ven_amd_loader_loaded_code_object_get_info(
                 loaded, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT, &owner));
    CHECK_EQ_U64(owner.handle, gpu.handle);
    CHECK_OK(hsa_executable_destroy(other));
    CHECK_OK(hsa_executable_destroy(executable));
    CHECK_OK(hsa_code_object_reader_destroy(reader));
    free(data);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    MUST(hsa_init());
    hsa_agent_t cpu, gpu;
    find_cpu_gpu(&cpu, &gpu);
    extensions(cpu, gpu);
    isa_profiles();
    loader(gpu, argv[1]);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
