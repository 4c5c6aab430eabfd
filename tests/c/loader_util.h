/* Shared by the loader C tests: find the GPU agent, read a file, load a code object. */
#ifndef SOFTGPU_TEST_LOADER_UTIL_H
#define SOFTGPU_TEST_LOADER_UTIL_H
#include <fcntl.h>
#include <hsa/hsa.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"

static hsa_status_t loader_find_gpu(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS &&
        type == HSA_DEVICE_TYPE_GPU) {
        *(hsa_agent_t *)data = agent;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

static inline hsa_agent_t loader_gpu(void) {
    hsa_agent_t gpu = {0};
    hsa_iterate_agents(loader_find_gpu, &gpu);
    CHECK(gpu.handle != 0);
    return gpu;
}

/* The whole file in malloc'd memory; *size gets its length. */
static inline char *loader_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { printf("FAIL cannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(*size);
    if (fread(data, 1, *size, f) != *size) { printf("FAIL cannot read %s\n", path); exit(2); }
    fclose(f);
    return data;
}

/* Load the code object file at `path` for `gpu` into a new executable; the status is returned. */
static inline hsa_status_t loader_load_file(const char *path, hsa_agent_t gpu, hsa_executable_t *executable) {
    int fd = open(path, O_RDONLY);
    hsa_code_object_reader_t reader;
    CHECK_OK(hsa_code_object_reader_create_from_file(fd, &reader));
    close(fd);
    CHECK_OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL,
                                       executable));
    hsa_status_t status = hsa_executable_load_agent_code_object(*executable, gpu, reader, NULL, NULL);
    CHECK_OK(hsa_code_object_reader_destroy(reader));
    return status;
}
#endif
