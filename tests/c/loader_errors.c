/* Bad input to the loader gets ROCr's statuses, never a crash.
   argv[1]: a good gfx1030 code object, argv[2]: the same source built for gfx90a,
   argv[3]: an object with undefined symbols app_value and app_table. */
#include <string.h>

#include "loader_util.h"

static hsa_status_t load_bytes(hsa_executable_t executable, hsa_agent_t gpu, const void *data, size_t size) {
    hsa_code_object_reader_t reader;
    CHECK_OK(hsa_code_object_reader_create_from_memory(data, size, &reader));
    hsa_status_t status = hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, NULL);
    CHECK_OK(hsa_code_object_reader_destroy(reader));
    return status;
}

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    CHECK_OK(hsa_init());
    hsa_agent_t gpu = loader_gpu();
    size_t size;
    char *good = loader_read_file(argv[1], &size);
    hsa_executable_t executable;
    CHECK_OK(hsa_executable_create(HSA_PROFILE_FULL, HSA_EXECUTABLE_STATE_UNFROZEN, NULL, &executable));

    /* Corrupted copies of a good object. */
    char *bad = malloc(size);
    memcpy(bad, good, size);
    bad[7] = 3;                                   /* EI_OSABI: not AMDGPU HSA */
    CHECK_STATUS(load_bytes(executable, gpu, bad, size), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    CHECK_STATUS(load_bytes(executable, gpu, good, 100), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    CHECK_STATUS(load_bytes(executable, gpu, good, size / 2), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    memset(bad, 0xff, size);
    CHECK_STATUS(load_bytes(executable, gpu, bad, size), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);

    /* Readers. */
    hsa_code_object_reader_t reader;
    CHECK_STATUS(hsa_code_object_reader_create_from_memory(NULL, size, &reader), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_code_object_reader_create_from_memory(good, 0, &reader), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_code_object_reader_create_from_file(-1, &reader), HSA_STATUS_ERROR_INVALID_FILE);
    CHECK_STATUS(hsa_code_object_reader_create_from_file(0, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_code_object_reader_t forged = {0x1234};
    CHECK_STATUS(hsa_executable_load_agent_code_object(executable, gpu, forged, NULL, NULL),
                 HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);
    CHECK_STATUS(hsa_code_object_reader_destroy(forged), HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER);

    /* Another GPU's object, an agent that is not one. */
    hsa_executable_t other;
    CHECK_STATUS(loader_load_file(argv[2], gpu, &other), HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    CHECK_OK(hsa_executable_destroy(other));
    hsa_agent_t no_agent = {0x4321};
    CHECK_OK(hsa_code_object_reader_create_from_memory(good, size, &reader));
    /* ROCr does not resolve the agent: it asks it for its ISAs and finds none. */
    CHECK_STATUS(hsa_executable_load_agent_code_object(executable, no_agent, reader, NULL, NULL),
                 HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);

    /* Duplicate definitions, after a good load. */
    hsa_loaded_code_object_t loaded = {0};
    CHECK_OK(hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, &loaded));
    CHECK(loaded.handle != 0);
    CHECK_STATUS(hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, NULL),
                 HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);

    /* Undefined symbols, then defined ones. */
    hsa_executable_t needs;
    int app_value = 1, app_table[4] = {0};
    CHECK_STATUS(loader_load_file(argv[3], gpu, &needs), HSA_STATUS_ERROR_VARIABLE_UNDEFINED);
    CHECK_OK(hsa_executable_agent_global_variable_define(needs, gpu, "app_value", &app_value));
    CHECK_OK(hsa_executable_readonly_variable_define(needs, gpu, "app_table", app_table));
    CHECK_STATUS(hsa_executable_readonly_variable_define(needs, gpu, "app_table", app_table),
                 HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED);
    CHECK_STATUS(hsa_executable_global_variable_define(needs, NULL, &app_value), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    int fd = open(argv[3], O_RDONLY);
    hsa_code_object_reader_t extern_reader;
    CHECK_OK(hsa_code_object_reader_create_from_file(fd, &extern_reader));
    close(fd);
    CHECK_OK(hsa_executable_load_agent_code_object(needs, gpu, extern_reader, NULL, NULL));
    CHECK_OK(hsa_code_object_reader_destroy(extern_reader));

    /* Frozen executables take nothing more. */
    CHECK_OK(hsa_executable_freeze(executable, NULL));
    CHECK_STATUS(hsa_executable_freeze(executable, NULL), HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
    CHECK_STATUS(hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, NULL),
                 HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
    CHECK_STATUS(hsa_executable_agent_global_variable_define(executable, gpu, "late", &app_value),
                 HSA_STATUS_ERROR_FROZEN_EXECUTABLE);

    /* Unknown symbols and dead handles. */
    hsa_executable_symbol_t symbol;
    CHECK_STATUS(hsa_executable_get_symbol_by_name(executable, "no_such_kernel.kd", &gpu, &symbol),
                 HSA_STATUS_ERROR_INVALID_SYMBOL_NAME);
    CHECK_OK(hsa_executable_get_symbol_by_name(executable, "lookup_tables.kd", &gpu, &symbol));
    CHECK_OK(hsa_executable_destroy(executable));
    uint32_t kind;
    CHECK_STATUS(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind),
                 HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL);
    CHECK_STATUS(hsa_executable_freeze(executable, NULL), HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    CHECK_STATUS(hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, NULL),
                 HSA_STATUS_ERROR_INVALID_EXECUTABLE);
    CHECK_OK(hsa_code_object_reader_destroy(reader));
    CHECK_OK(hsa_executable_destroy(needs));

    /* The v2 API keeps any bytes and refuses to use what it cannot take. */
    hsa_code_object_t code_object;
    CHECK_OK(hsa_code_object_deserialize(bad, size, NULL, &code_object));
    hsa_code_object_type_t type;
    CHECK_STATUS(hsa_code_object_get_info(code_object, HSA_CODE_OBJECT_INFO_TYPE, &type),
                 HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    CHECK_OK(hsa_code_object_destroy(code_object));
    CHECK_OK(hsa_code_object_deserialize(good, size, NULL, &code_object));
    char version[64];
    CHECK_STATUS(hsa_code_object_get_info(code_object, HSA_CODE_OBJECT_INFO_VERSION, version),
                 HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
    CHECK_OK(hsa_code_object_get_info(code_object, HSA_CODE_OBJECT_INFO_TYPE, &type));
    CHECK_EQ_U64(type, HSA_CODE_OBJECT_TYPE_PROGRAM);
    CHECK_OK(hsa_code_object_destroy(code_object));
    CHECK_STATUS(hsa_code_object_destroy(code_object), HSA_STATUS_ERROR_INVALID_CODE_OBJECT);

    free(bad);
    free(good);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
