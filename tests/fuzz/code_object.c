/* Code-object fuzzer: mutated ELF files go through readers and executables as a
   client's would (create reader, load, freeze, query every symbol, destroy).
   An input is either a whole ELF file, or (first byte 'P') a list of patches to the
   real code object named by SOFTGPU_FUZZ_CODE_OBJECT: (offset, width, value) triples,
   then a truncation. Patches keep most of the file valid, so loads get deep.
   Invariants: every call returns an HSA status; a rejected object leaves nothing
   behind; the executable can always be destroyed. */
#include "fuzz_common.h"

static hsa_agent_t gpu;
static uint8_t *base_object, *patched;
static size_t base_size;

static void read_base_object(void) {
    const char *path = getenv("SOFTGPU_FUZZ_CODE_OBJECT");
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        fprintf(stderr, "set SOFTGPU_FUZZ_CODE_OBJECT to a code object\n");
        abort();
    }
    fseek(f, 0, SEEK_END);
    base_size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    base_object = malloc(base_size);
    patched = malloc(base_size);
    if (fread(base_object, 1, base_size, f) != base_size) abort();
    fclose(f);
}

/* The base object with the input's patches applied; returns its size. */
static size_t apply_patches(input_t *in) {
    memcpy(patched, base_object, base_size);
    size_t size = base_size;
    while (more(in)) {
        uint8_t op = take_u8(in);
        if (op == 0xFF) { /* truncate, and stop */
            size = take_u32(in) % base_size;
            break;
        }
        size_t offset = take_u32(in) % base_size;
        size_t width = (size_t)1 << (op % 4);
        uint64_t value = take_u64(in);
        if (offset + width > base_size) offset = base_size - width;
        memcpy(patched + offset, &value, width);
    }
    return size;
}

static hsa_status_t find_gpu(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    (void)data;
    if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS &&
        type == HSA_DEVICE_TYPE_GPU)
        gpu = agent;
    return HSA_STATUS_SUCCESS;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("SOFTGPU_QUIET", "1", 0);
    read_base_object();
    if (hsa_init() != HSA_STATUS_SUCCESS) abort();
    hsa_iterate_agents(find_gpu, NULL);
    return 0;
}

static hsa_status_t query_symbol(hsa_executable_t exe, hsa_executable_symbol_t symbol, void *data) {
    uint8_t buffer[4096] __attribute__((aligned(16)));
    (void)exe;
    (void)data;
    for (int attribute = 0; attribute <= 25; attribute++)
        CHECKED(hsa_executable_symbol_get_info(symbol, (hsa_executable_symbol_info_t)attribute, buffer));
    return HSA_STATUS_SUCCESS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size && data[0] == 'P') {
        input_t in = {data, size, 1};
        size = apply_patches(&in);
        data = patched;
    }
    hsa_code_object_reader_t reader;
    if (CHECKED(hsa_code_object_reader_create_from_memory(data, size, &reader)) != HSA_STATUS_SUCCESS)
        return 0;
    hsa_executable_t exe;
    if (CHECKED(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                          NULL, &exe)) == HSA_STATUS_SUCCESS) {
        hsa_loaded_code_object_t loaded;
        if (CHECKED(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, &loaded)) ==
            HSA_STATUS_SUCCESS) {
            uint32_t result;
            CHECKED(hsa_executable_freeze(exe, NULL));
            CHECKED(hsa_executable_validate(exe, &result));
            CHECKED(hsa_executable_iterate_symbols(exe, query_symbol, NULL));
        }
        FUZZ_ASSERT(CHECKED(hsa_executable_destroy(exe)) == HSA_STATUS_SUCCESS, "executable destroy");
    }
    FUZZ_ASSERT(CHECKED(hsa_code_object_reader_destroy(reader)) == HSA_STATUS_SUCCESS, "reader destroy");
    return 0;
}
