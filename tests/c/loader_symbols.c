/* Load a code object (argv[1]) for the GPU, freeze, and print every attribute of every
   symbol, one line per symbol; the Python side compares the lines with what
   llvm-readelf-15 reports for the same file. The checks here are the ones that need no
   oracle: lookups by name find the iterated symbol, attributes of the other symbol kind
   are refused, kernel objects are 64-byte aligned descriptors. */
#include <string.h>

#include "loader_util.h"

static hsa_agent_t gpu;
/* HSA_CODE_SYMBOL_INFO_KERNEL_WAVEFRONT_SIZE of the newest hsa.h (not in 5.2.3's), which
   ROCr's kernel symbols answer through hsa_executable_symbol_get_info too. */
#define KERNEL_WAVEFRONT_SIZE ((hsa_executable_symbol_info_t)19)

#define GET(attr, var) CHECK_OK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_##attr, &(var)))
#define REFUSED(attr)                                                                          \
    do {                                                                                       \
        uint64_t unused_;                                                                      \
        CHECK_STATUS(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_##attr, \
                                                    &unused_), HSA_STATUS_ERROR_INVALID_ARGUMENT); \
    } while (0)

static hsa_status_t print_symbol(hsa_executable_t executable, hsa_executable_symbol_t symbol, void *data) {
    hsa_symbol_kind_t kind;
    uint32_t name_length, module_length, call_convention;
    hsa_symbol_linkage_t linkage;
    bool is_definition;
    hsa_agent_t agent;
    GET(TYPE, kind);
    GET(NAME_LENGTH, name_length);
    GET(MODULE_NAME_LENGTH, module_length);
    GET(LINKAGE, linkage);
    GET(IS_DEFINITION, is_definition);
    GET(AGENT, agent);
    GET(KERNEL_CALL_CONVENTION, call_convention);
    char *name = calloc(1, name_length + 1);
    CHECK_OK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name));
    CHECK_EQ_U64(strlen(name), name_length);

    hsa_executable_symbol_t found;
    CHECK_OK(hsa_executable_get_symbol_by_name(executable, name, &gpu, &found));
    CHECK_EQ_U64(found.handle, symbol.handle);
    CHECK_OK(hsa_executable_get_symbol(executable, NULL, name, gpu, 0, &found));
    CHECK_EQ_U64(found.handle, symbol.handle);

    printf("symbol %s kind=%d module_name_length=%u linkage=%d definition=%d gpu=%d call_convention=%u",
           name, (int)kind, module_length, (int)linkage, (int)is_definition, agent.handle == gpu.handle,
           call_convention);
    if (kind == HSA_SYMBOL_KIND_KERNEL) {
        uint64_t object;
        uint32_t kernarg_size, kernarg_align, group, private_size;
        bool dynamic;
        GET(KERNEL_OBJECT, object);
        GET(KERNEL_KERNARG_SEGMENT_SIZE, kernarg_size);
        GET(KERNEL_KERNARG_SEGMENT_ALIGNMENT, kernarg_align);
        GET(KERNEL_GROUP_SEGMENT_SIZE, group);
        GET(KERNEL_PRIVATE_SEGMENT_SIZE, private_size);
        GET(KERNEL_DYNAMIC_CALLSTACK, dynamic);
        uint32_t wavefront = 0;
        CHECK_OK(hsa_executable_symbol_get_info(symbol, KERNEL_WAVEFRONT_SIZE, &wavefront));
        CHECK(object != 0 && object % 64 == 0);
        REFUSED(VARIABLE_SIZE);
        REFUSED(VARIABLE_ALLOCATION);
        REFUSED(INDIRECT_FUNCTION_OBJECT);
        printf(" kernarg_size=%u kernarg_align=%u group=%u private=%u dynamic_callstack=%d wavefront=%u\n",
               kernarg_size, kernarg_align, group, private_size, (int)dynamic, wavefront);
    } else {
        uint64_t address;
        hsa_variable_allocation_t allocation;
        hsa_variable_segment_t segment;
        uint32_t alignment, size;
        bool is_const;
        GET(VARIABLE_ADDRESS, address);
        GET(VARIABLE_ALLOCATION, allocation);
        GET(VARIABLE_SEGMENT, segment);
        GET(VARIABLE_ALIGNMENT, alignment);
        GET(VARIABLE_SIZE, size);
        GET(VARIABLE_IS_CONST, is_const);
        CHECK(address != 0);
        REFUSED(KERNEL_KERNARG_SEGMENT_SIZE);
        REFUSED(KERNEL_DYNAMIC_CALLSTACK);
        uint32_t wavefront;
        CHECK_STATUS(hsa_executable_symbol_get_info(symbol, KERNEL_WAVEFRONT_SIZE, &wavefront),
                     HSA_STATUS_ERROR_INVALID_ARGUMENT);
        printf(" allocation=%d segment=%d alignment=%u size=%u const=%d\n", (int)allocation, (int)segment,
               alignment, size, (int)is_const);
    }
    free(name);
    (*(int *)data)++;
    return HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    CHECK_OK(hsa_init());
    gpu = loader_gpu();
    hsa_executable_t executable;
    CHECK_OK(loader_load_file(argv[1], gpu, &executable));
    CHECK_OK(hsa_executable_freeze(executable, NULL));
    int count = 0;
    CHECK_OK(hsa_executable_iterate_symbols(executable, print_symbol, &count));
    CHECK(count > 0);
    CHECK_OK(hsa_executable_destroy(executable));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
