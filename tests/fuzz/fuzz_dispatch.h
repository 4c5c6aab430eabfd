/* Shared by the harnesses that dispatch kernels (aql_packets, kernarg_grid): the agents,
   GPU-visible kernel memory, the queue error callback and the kernels of the code object
   SOFTGPU_FUZZ_CODE_OBJECT names. */
#ifndef SOFTGPU_FUZZ_DISPATCH_H
#define SOFTGPU_FUZZ_DISPATCH_H
#include "fuzz_common.h"

static hsa_agent_t gpu, cpu;
static hsa_amd_memory_pool_t kernarg_pool;
static volatile int errors; /* queue error callbacks since the input began */

static hsa_status_t find_agents(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    (void)data;
    hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
    if (type == HSA_DEVICE_TYPE_GPU) gpu = agent;
    else cpu = agent;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_kernarg(hsa_amd_memory_pool_t pool, void *data) {
    uint32_t flags = 0;
    (void)data;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) kernarg_pool = pool;
    return HSA_STATUS_SUCCESS;
}

static void on_error(hsa_status_t status, hsa_queue_t *queue, void *data) {
    (void)queue;
    (void)data;
    FUZZ_ASSERT(is_hsa_status(status), "queue error 0x%x", status);
    errors++;
}

/* hsa_init, the agents and the kernarg pool, for a harness that dispatches. */
static void start_dispatching(void) {
    setenv("SOFTGPU_QUIET", "1", 0);
    setenv("SOFTGPU_QUEUE_ERRORS", "continue", 0);
    if (hsa_init() != HSA_STATUS_SUCCESS) abort();
    hsa_iterate_agents(find_agents, NULL);
    hsa_amd_agent_iterate_memory_pools(cpu, find_kernarg, NULL);
}

/* Kernel memory from the CPU's kernarg pool: it reaches the GPU only once allowed, as in
   ROCr, or every dispatch would fault at its first kernarg load. */
static void *gpu_visible(size_t size) {
    void *p;
    if (hsa_amd_memory_pool_allocate(kernarg_pool, size, 0, &p) || hsa_amd_agents_allow_access(1, &gpu, NULL, p))
        abort();
    return p;
}

/* The kernel object of `name` ("name.kd") in the code object SOFTGPU_FUZZ_CODE_OBJECT names. */
static uint64_t fuzz_kernel(const char *name) {
    static hsa_executable_t exe;
    const char *path = getenv("SOFTGPU_FUZZ_CODE_OBJECT");
    if (!exe.handle) {
        FILE *f = path ? fopen(path, "rb") : NULL;
        hsa_code_object_reader_t reader;
        if (!f || hsa_code_object_reader_create_from_file(fileno(f), &reader) ||
            hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe) ||
            hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL) || hsa_executable_freeze(exe, NULL)) {
            fprintf(stderr, "set SOFTGPU_FUZZ_CODE_OBJECT to tests/kernels/aql_kernels.cl compiled for gfx1030\n");
            abort();
        }
    }
    hsa_executable_symbol_t symbol;
    uint64_t object;
    if (hsa_executable_get_symbol_by_name(exe, name, &gpu, &symbol) ||
        hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object))
        abort();
    return object;
}
#endif
