/* Kernarg/grid fuzzer: real kernels dispatched with hostile kernel arguments and grids.
   Invariants: every dispatch completes or reports a fault through the error callback
   within a bounded time; host memory the kernels were never given access to is never
   written; nothing crashes. SOFTGPU_FUZZ_CODE_OBJECT names tests/kernels/aql_kernels.cl
   compiled for gfx1030. */
#include "fuzz_common.h"

static hsa_agent_t gpu, cpu;
static hsa_amd_memory_pool_t kernarg_pool;
static uint64_t kernels[3];
static uint8_t *buffer, *kernarg;
static uint8_t canary[8192];
static volatile int errors;

static const char *KERNELS[3] = {"scale_add.kd", "store_through.kd", "count_items.kd"};

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

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("SOFTGPU_QUIET", "1", 0);
    setenv("SOFTGPU_QUEUE_ERRORS", "continue", 0);
    if (hsa_init() != HSA_STATUS_SUCCESS) abort();
    hsa_iterate_agents(find_agents, NULL);
    hsa_amd_agent_iterate_memory_pools(cpu, find_kernarg, NULL);
    /* Pool memory of the CPU reaches a GPU only once allowed, as in ROCr: without this every
       dispatch would fault at its first kernarg load, and the arguments would go untested. */
    if (hsa_amd_memory_pool_allocate(kernarg_pool, 1 << 16, 0, (void **)&buffer) ||
        hsa_amd_memory_pool_allocate(kernarg_pool, 4096, 0, (void **)&kernarg) ||
        hsa_amd_agents_allow_access(1, &gpu, NULL, buffer) || hsa_amd_agents_allow_access(1, &gpu, NULL, kernarg))
        abort();
    const char *path = getenv("SOFTGPU_FUZZ_CODE_OBJECT");
    FILE *f = path ? fopen(path, "rb") : NULL;
    hsa_code_object_reader_t reader;
    hsa_executable_t exe;
    if (!f || hsa_code_object_reader_create_from_file(fileno(f), &reader) ||
        hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe) ||
        hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL) || hsa_executable_freeze(exe, NULL)) {
        fprintf(stderr, "set SOFTGPU_FUZZ_CODE_OBJECT to aql_kernels.cl compiled for gfx1030\n");
        abort();
    }
    for (int k = 0; k < 3; k++) {
        hsa_executable_symbol_t symbol;
        if (hsa_executable_get_symbol_by_name(exe, KERNELS[k], &gpu, &symbol) ||
            hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernels[k]))
            abort();
    }
    memset(canary, 0x5A, sizeof canary);
    return 0;
}

static uint64_t choose_pointer(input_t *in) {
    switch (take_u8(in) % 5) {
    case 0: return (uint64_t)(uintptr_t)buffer + take_u32(in) % (1 << 16);
    case 1: return (uint64_t)(uintptr_t)canary; /* host memory never registered */
    case 2: return take_u64(in);
    case 3: return (uint64_t)(uintptr_t)buffer + (1 << 16) - take_u8(in) % 16;
    default: return (uint64_t)(uintptr_t)buffer;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input_t in = {data, size, 0};
    hsa_queue_t *queue;
    errors = 0;
    if (hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, NULL, UINT32_MAX, UINT32_MAX, &queue)) abort();
    hsa_signal_t done;
    hsa_signal_create(1, 0, NULL, &done);

    uint8_t which = take_u8(&in) % 3;
    uint64_t *args = (uint64_t *)kernarg;
    memset(kernarg, 0, 256);
    for (int i = 0; i < 4; i++) args[i] = take_u8(&in) & 1 ? choose_pointer(&in) : take_u64(&in);
    hsa_kernel_dispatch_packet_t p;
    memset(&p, 0, sizeof p);
    p.header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
               (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
               (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    p.setup = 1 + take_u8(&in) % 3;
    /* Grids stay small: the engine is Python, and the fuzzer's job is the arguments. */
    p.workgroup_size_x = 1 + take_u8(&in) % 64;
    p.workgroup_size_y = p.setup > 1 ? 1 + take_u8(&in) % 4 : 1;
    p.workgroup_size_z = p.setup > 2 ? 1 + take_u8(&in) % 4 : 1;
    p.grid_size_x = 1 + take_u8(&in) % 128;
    p.grid_size_y = p.setup > 1 ? 1 + take_u8(&in) % 8 : 1;
    p.grid_size_z = p.setup > 2 ? 1 + take_u8(&in) % 4 : 1;
    p.kernel_object = kernels[which];
    p.kernarg_address = kernarg;
    p.completion_signal = done;

    uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
    uint8_t *slot = (uint8_t *)queue->base_address + (index % queue->size) * 64;
    memcpy(slot + 4, (uint8_t *)&p + 4, 60);
    __atomic_store_n((uint32_t *)slot, *(uint32_t *)&p, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)index);

    for (int waited = 0; waited < 600 && !errors; waited++)
        if (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 100000000, HSA_WAIT_STATE_BLOCKED) == 0)
            break;
    FUZZ_ASSERT(errors || hsa_signal_load_relaxed(done) == 0, "dispatch neither completed nor faulted in 60 s");
    for (size_t i = 0; i < sizeof canary; i++)
        FUZZ_ASSERT(canary[i] == 0x5A, "unregistered host memory written at offset %zu", i);
    FUZZ_ASSERT(CHECKED(hsa_queue_destroy(queue)) == HSA_STATUS_SUCCESS, "queue destroy");
    hsa_signal_destroy(done);
    return 0;
}
