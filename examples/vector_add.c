/* An HSA host program written the way ROCm's samples are: find a GPU agent and its
   pools, load a code object compiled from OpenCL C, fill kernel arguments from a
   kernarg pool, dispatch through an AQL queue, wait, and check the result.
   It knows nothing of SoftGPU: link it with -lhsa-runtime64.

   usage: vector_add CODE_OBJECT [N] */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        hsa_status_t status_ = (call);                                               \
        if (status_ != HSA_STATUS_SUCCESS) {                                         \
            const char *text_ = NULL;                                                \
            hsa_status_string(status_, &text_);                                      \
            fprintf(stderr, "%s failed: %s\n", #call, text_ ? text_ : "?");          \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

struct pools {
    hsa_amd_memory_pool_t kernarg, device, host;
    int have_kernarg, have_device, have_host;
};

static hsa_status_t find_gpu(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    CHECK(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
    if (type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
    *(hsa_agent_t *)data = agent;
    return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t find_cpu(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    CHECK(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type));
    if (type != HSA_DEVICE_TYPE_CPU) return HSA_STATUS_SUCCESS;
    *(hsa_agent_t *)data = agent;
    return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t find_pools(hsa_amd_memory_pool_t pool, void *data) {
    struct pools *p = data;
    hsa_amd_segment_t segment;
    uint32_t flags;
    bool alloc;
    CHECK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
    if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    CHECK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc));
    if (!alloc) return HSA_STATUS_SUCCESS;
    CHECK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !p->have_kernarg) {
        p->kernarg = pool;
        p->have_kernarg = 1;
    } else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !p->have_device) {
        p->device = pool;
        p->have_device = 1;
    } else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !p->have_host) {
        p->host = pool;
        p->have_host = 1;
    }
    return HSA_STATUS_SUCCESS;
}

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = malloc(*size);
    if (fread(data, 1, *size, f) != *size) {
        fprintf(stderr, "%s: short read\n", path);
        exit(1);
    }
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CODE_OBJECT [N]\n", argv[0]);
        return 2;
    }
    uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 1000000;
    const float scale = 0.5f;

    CHECK(hsa_init());
    hsa_agent_t gpu = {0}, cpu = {0};
    hsa_iterate_agents(find_gpu, &gpu);
    hsa_iterate_agents(find_cpu, &cpu);
    if (!gpu.handle || !cpu.handle) {
        fprintf(stderr, "no GPU or CPU agent\n");
        return 1;
    }
    char name[64];
    CHECK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));

    struct pools pools = {0};
    CHECK(hsa_amd_agent_iterate_memory_pools(cpu, find_pools, &pools));
    struct pools gpu_pools = {0};
    CHECK(hsa_amd_agent_iterate_memory_pools(gpu, find_pools, &gpu_pools));
    if (!pools.have_kernarg || !gpu_pools.have_device) {
        fprintf(stderr, "no kernarg or device pool\n");
        return 1;
    }

    size_t size;
    void *elf = read_file(argv[1], &size);
    hsa_code_object_reader_t reader;
    CHECK(hsa_code_object_reader_create_from_memory(elf, size, &reader));
    hsa_executable_t executable;
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL,
                                    &executable));
    CHECK(hsa_executable_load_agent_code_object(executable, gpu, reader, NULL, NULL));
    CHECK(hsa_executable_freeze(executable, NULL));

    hsa_executable_symbol_t symbol;
    CHECK(hsa_executable_get_symbol_by_name(executable, "vector_add.kd", &gpu, &symbol));
    uint64_t kernel_object;
    uint32_t kernarg_size, group_size, private_size;
    CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));
    CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                         &kernarg_size));
    CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                         &group_size));
    CHECK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                         &private_size));

    /* Inputs in host memory, copied to device buffers; the result comes back the same way. */
    size_t bytes = (size_t)n * sizeof(float);
    float *a, *b, *c, *host;
    CHECK(hsa_amd_memory_pool_allocate(gpu_pools.device, bytes, 0, (void **)&a));
    CHECK(hsa_amd_memory_pool_allocate(gpu_pools.device, bytes, 0, (void **)&b));
    CHECK(hsa_amd_memory_pool_allocate(gpu_pools.device, bytes, 0, (void **)&c));
    CHECK(hsa_amd_memory_pool_allocate(pools.kernarg, bytes, 0, (void **)&host));
    hsa_agent_t both[2] = {gpu, cpu};
    CHECK(hsa_amd_agents_allow_access(2, both, NULL, a));
    CHECK(hsa_amd_agents_allow_access(2, both, NULL, b));
    CHECK(hsa_amd_agents_allow_access(2, both, NULL, c));
    CHECK(hsa_amd_agents_allow_access(2, both, NULL, host));

    for (uint32_t i = 0; i < n; i++) host[i] = (float)i;
    CHECK(hsa_memory_copy(a, host, bytes));
    for (uint32_t i = 0; i < n; i++) host[i] = (float)(2 * (i % 1000));
    CHECK(hsa_memory_copy(b, host, bytes));

    struct __attribute__((aligned(16))) {
        const float *a, *b;
        float *c;
        float scale;
        uint32_t n;
    } args = {a, b, c, scale, n};
    void *kernarg;
    CHECK(hsa_amd_memory_pool_allocate(pools.kernarg, kernarg_size, 0, &kernarg));
    CHECK(hsa_amd_agents_allow_access(1, &gpu, NULL, kernarg));
    memset(kernarg, 0, kernarg_size);
    memcpy(kernarg, &args, sizeof args);

    hsa_queue_t *queue;
    CHECK(hsa_queue_create(gpu, 256, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue));
    hsa_signal_t done;
    CHECK(hsa_signal_create(1, 0, NULL, &done));

    const uint16_t workgroup = 256;
    uint64_t index = hsa_queue_add_write_index_relaxed(queue, 1);
    hsa_kernel_dispatch_packet_t *packet =
        (hsa_kernel_dispatch_packet_t *)queue->base_address + (index & (queue->size - 1));
    memset((uint8_t *)packet + 4, 0, sizeof *packet - 4);
    packet->setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    packet->workgroup_size_x = workgroup;
    packet->workgroup_size_y = 1;
    packet->workgroup_size_z = 1;
    packet->grid_size_x = (n + workgroup - 1) / workgroup * workgroup;
    packet->grid_size_y = 1;
    packet->grid_size_z = 1;
    packet->kernel_object = kernel_object;
    packet->kernarg_address = kernarg;
    packet->private_segment_size = private_size;
    packet->group_segment_size = group_size;
    packet->completion_signal = done;
    uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                      (1 << HSA_PACKET_HEADER_BARRIER) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    __atomic_store_n((uint32_t *)packet, header | ((uint32_t)packet->setup << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)index);

    while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0)
        ;

    CHECK(hsa_memory_copy(host, c, bytes));
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < n; i++) {
        float expected = (float)i + (float)(2 * (i % 1000)) * scale;
        if (host[i] != expected && wrong++ < 5)
            fprintf(stderr, "c[%u] = %g, expected %g\n", i, host[i], expected);
    }
    printf("vector_add on %s: %u elements, %s\n", name, n, wrong ? "WRONG" : "verified");

    CHECK(hsa_signal_destroy(done));
    CHECK(hsa_queue_destroy(queue));
    CHECK(hsa_amd_memory_pool_free(kernarg));
    CHECK(hsa_amd_memory_pool_free(a));
    CHECK(hsa_amd_memory_pool_free(b));
    CHECK(hsa_amd_memory_pool_free(c));
    CHECK(hsa_amd_memory_pool_free(host));
    CHECK(hsa_executable_destroy(executable));
    CHECK(hsa_code_object_reader_destroy(reader));
    CHECK(hsa_shut_down());
    free(elf);
    return wrong ? 1 : 0;
}
