/* The HSAIL finalizer entry points answer as ROCr's do without its finalizer library:
 * HSA_STATUS_ERROR_NOT_INITIALIZED, whatever they are given, before and after hsa_init. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_finalize.h>

#include "check.h"

static hsa_status_t count_module(hsa_ext_program_t program, hsa_ext_module_t module, void *data) {
    return HSA_STATUS_SUCCESS;
}

static void every_entry(void) {
    hsa_ext_program_t program = {0};
    CHECK_STATUS(hsa_ext_program_create(HSA_MACHINE_MODEL_LARGE, HSA_PROFILE_FULL,
                                        HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &program),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_EQ_U64(program.handle, 0);
    CHECK_STATUS(hsa_ext_program_destroy(program), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_ext_program_add_module(program, (hsa_ext_module_t)0), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_ext_program_iterate_modules(program, count_module, NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
    hsa_machine_model_t model;
    CHECK_STATUS(hsa_ext_program_get_info(program, HSA_EXT_PROGRAM_INFO_MACHINE_MODEL, &model),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
    hsa_ext_control_directives_t directives = {0};
    hsa_code_object_t code_object;
    CHECK_STATUS(hsa_ext_program_finalize(program, (hsa_isa_t){0}, 0, directives, NULL,
                                          HSA_CODE_OBJECT_TYPE_PROGRAM, &code_object),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
}

int main(void) {
    every_entry();
    CHECK_OK(hsa_init());
    every_entry();
    uint8_t mask[128] = {0};
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_EXTENSIONS, mask));
    CHECK((mask[HSA_EXTENSION_FINALIZER / 8] & (1 << (HSA_EXTENSION_FINALIZER % 8))) == 0);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
