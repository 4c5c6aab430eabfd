/* The HSA_EXTENSION_AMD_LOADER table, as HIP and debuggers use it.
   argv[1]: a file holding a code object at byte argv[2], argv[3] bytes long (an offload
   bundle-like container); argv[4]: the same code object as a plain file. */
#include <hsa/hsa_ven_amd_loader.h>
#include <string.h>

#include "loader_util.h"

static hsa_ven_amd_loader_1_03_pfn_t loader;

static hsa_status_t count_executables(hsa_executable_t executable, void *data) {
    (*(int *)data)++;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t first_loaded(hsa_executable_t executable, hsa_loaded_code_object_t lco, void *data) {
    *(hsa_loaded_code_object_t *)data = lco;
    return HSA_STATUS_INFO_BREAK;
}

int main(int argc, char **argv) {
    if (argc != 5) return 2;
    CHECK_OK(hsa_init());
    hsa_agent_t gpu = loader_gpu();
    CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof(loader), &loader));

    /* A reader for a code object inside a larger file. */
    size_t offset = strtoull(argv[2], NULL, 0), size = strtoull(argv[3], NULL, 0);
    int fd = open(argv[1], O_RDONLY);
    hsa_code_object_reader_t reader;
    CHECK_OK(loader.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(fd, offset, size,
                                                                                             &reader));
    CHECK_STATUS(loader.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(fd, offset, 0,
                                                                                                 &reader),
                 HSA_STATUS_ERROR_INVALID_CODE_OBJECT);     /* ROCr's status for an empty object */
    CHECK_STATUS(loader.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(
                     fd, offset, size * 100, &reader), HSA_STATUS_ERROR_INVALID_FILE);
    hsa_executable_t executable;
    CHECK_OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL,
                                       &executable));
    CHECK_OK(hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, NULL));
    CHECK_OK(hsa_executable_freeze(executable, NULL));
    close(fd);

    int executables = 0;
    CHECK_OK(loader.hsa_ven_amd_loader_iterate_executables(count_executables, &executables));
    CHECK_EQ_U64(executables, 1);

    /* Every attribute of the loaded code object. */
    hsa_loaded_code_object_t lco = {0};
    CHECK_STATUS(loader.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(executable, first_loaded, &lco),
                 HSA_STATUS_INFO_BREAK);
    hsa_executable_t owner;
    uint32_t kind, storage, uri_length;
    hsa_agent_t agent;
    uint64_t base, storage_size, load_base, load_size;
    int64_t delta;
#define LCO(attr, var) CHECK_OK(loader.hsa_ven_amd_loader_loaded_code_object_get_info( \
    lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_##attr, &(var)))
    LCO(EXECUTABLE, owner);
    LCO(KIND, kind);
    LCO(AGENT, agent);
    LCO(CODE_OBJECT_STORAGE_TYPE, storage);
    LCO(CODE_OBJECT_STORAGE_MEMORY_BASE, base);
    LCO(CODE_OBJECT_STORAGE_MEMORY_SIZE, storage_size);
    LCO(LOAD_BASE, load_base);
    LCO(LOAD_SIZE, load_size);
    LCO(LOAD_DELTA, delta);
    LCO(URI_LENGTH, uri_length);
    CHECK_EQ_U64(owner.handle, executable.handle);
    CHECK_EQ_U64(kind, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT);
    CHECK_EQ_U64(agent.handle, gpu.handle);
    CHECK_EQ_U64(storage, HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY);
    CHECK_EQ_U64(storage_size, size);
    CHECK(memcmp((const void *)base, "\x7f" "ELF", 4) == 0);
    CHECK(load_size > 0 && (uint64_t)delta == load_base);
    char *uri = calloc(1, uri_length + 1);
    CHECK_OK(loader.hsa_ven_amd_loader_loaded_code_object_get_info(lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI,
                                                                    uri));
    printf("uri %s\n", uri);
    int file_fd;
    CHECK_STATUS(loader.hsa_ven_amd_loader_loaded_code_object_get_info(
                     lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE, &file_fd),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_loaded_code_object_t forged = {77};
    CHECK_STATUS(loader.hsa_ven_amd_loader_loaded_code_object_get_info(
                     forged, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND, &kind),
                 HSA_STATUS_ERROR_INVALID_CODE_OBJECT);

    /* Host addresses and executables of device addresses inside the loaded code object. */
    hsa_executable_symbol_t symbol;
    uint64_t kernel_object;
    CHECK_OK(hsa_executable_get_symbol_by_name(executable, "lookup_tables.kd", &gpu, &symbol));
    CHECK_OK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));
    CHECK(kernel_object >= load_base && kernel_object < load_base + load_size);
    const void *host = NULL;
    CHECK_OK(loader.hsa_ven_amd_loader_query_host_address((const void *)kernel_object, &host));
    CHECK(host != NULL && memcmp(host, (const void *)kernel_object, 64) == 0);
    hsa_executable_t found;
    CHECK_OK(loader.hsa_ven_amd_loader_query_executable((const void *)kernel_object, &found));
    CHECK_EQ_U64(found.handle, executable.handle);
    /* The loaded code object's last byte is inside it, the byte after it is not. */
    const char *last = (const char *)load_base + load_size - 1;
    CHECK_OK(loader.hsa_ven_amd_loader_query_host_address(last, &host));
    CHECK(host == last);
    CHECK_OK(loader.hsa_ven_amd_loader_query_executable(last, &found));
    CHECK_EQ_U64(found.handle, executable.handle);
    CHECK_STATUS(loader.hsa_ven_amd_loader_query_host_address(last + 1, &host), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(loader.hsa_ven_amd_loader_query_executable(last + 1, &found), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    int on_stack;
    CHECK_STATUS(loader.hsa_ven_amd_loader_query_host_address(&on_stack, &host), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(loader.hsa_ven_amd_loader_query_executable(&on_stack, &found), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Segment descriptors: count, then fill; a wrong count is refused. */
    hsa_executable_t second;
    CHECK_OK(loader_load_file(argv[4], gpu, &second));
    size_t count = 0;
    CHECK_OK(loader.hsa_ven_amd_loader_query_segment_descriptors(NULL, &count));
    CHECK_EQ_U64(count, 2);
    hsa_ven_amd_loader_segment_descriptor_t descriptors[2];
    size_t wrong = 1;
    CHECK_STATUS(loader.hsa_ven_amd_loader_query_segment_descriptors(descriptors, &wrong),
                 HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS);
    CHECK_STATUS(loader.hsa_ven_amd_loader_query_segment_descriptors(NULL, &wrong), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(loader.hsa_ven_amd_loader_query_segment_descriptors(descriptors, &count));
    CHECK_EQ_U64(descriptors[0].executable.handle, executable.handle);
    CHECK_EQ_U64(descriptors[1].executable.handle, second.handle);
    CHECK_EQ_U64(descriptors[0].agent.handle, gpu.handle);
    CHECK_EQ_U64((uint64_t)descriptors[0].segment_base, load_base);
    CHECK_EQ_U64(descriptors[0].segment_size, load_size);
    CHECK_EQ_U64(descriptors[0].code_object_storage_size, size);

    CHECK_OK(hsa_executable_destroy(executable));
    CHECK_OK(hsa_executable_destroy(second));
    CHECK_STATUS(loader.hsa_ven_amd_loader_query_executable((const void *)kernel_object, &found),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_code_object_reader_destroy(reader));
    free(uri);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
