/* Loader exports given dangling, unmapped and read-only pointers (found by the API-sequence
   fuzzer): each answers HSA_STATUS_ERROR_INVALID_ARGUMENT instead of crashing.
   usage: loader_dangling_pointers CODE_OBJECT (with a kernel `empty`) */
#include <hsa/hsa_ext_amd.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) exit(2);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(*size);
    if (fread(data, 1, *size, f) != *size) exit(2);
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    size_t size;
    uint8_t *object = read_file(argv[1], &size);
    /* A read-only page followed by an inaccessible one (PROT_NONE: as a dangling pointer
       faults, but the address can never be mapped again under the test's feet). */
    char *readonly = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *dangling = readonly + 4096;
    mprotect(dangling, 4096, PROT_NONE);
    hsa_code_object_reader_t reader;
    hsa_executable_t exe;
    hsa_executable_symbol_t symbol;
    hsa_code_object_t code_object;

    hsa_agent_t cpu, gpu;
    CHECK_OK(hsa_init());
    find_cpu_gpu(&cpu, &gpu);
    CHECK_STATUS(hsa_code_object_reader_create_from_memory(dangling, 64, &reader), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* A readable start that runs into unmapped memory. */
    CHECK_STATUS(hsa_code_object_reader_create_from_memory(readonly, 8192, &reader), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_code_object_deserialize(dangling, 64, NULL, &code_object), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    CHECK_OK(hsa_code_object_reader_create_from_memory(object, size, &reader));
    CHECK_OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
    CHECK_OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
    CHECK_OK(hsa_executable_freeze(exe, NULL));
    CHECK_STATUS(hsa_executable_get_symbol_by_name(exe, dangling, &gpu, &symbol), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_executable_get_symbol_by_name(exe, "empty.kd", (hsa_agent_t *)dangling, &symbol),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_executable_get_symbol(exe, dangling, "empty.kd", gpu, 0, &symbol),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_executable_get_symbol_by_name(exe, "empty.kd", &gpu, &symbol));
    CHECK_STATUS(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, readonly),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, dangling),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    char name[64];
    memset(name, 0, sizeof name);
    CHECK_OK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name));
    CHECK(strcmp(name, "empty.kd") == 0);
    CHECK_OK(hsa_executable_destroy(exe));
    CHECK_OK(hsa_code_object_reader_destroy(reader));
    CHECK_OK(hsa_shut_down());
    free(object);
    return check_report();
}
