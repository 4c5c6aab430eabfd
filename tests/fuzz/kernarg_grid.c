/* Kernarg/grid fuzzer: real kernels dispatched with hostile kernel arguments and grids.
   Invariants: every dispatch completes or reports a fault through the error callback
   within a bounded time; host memory the kernels were never given access to is never
   written; nothing crashes. SOFTGPU_FUZZ_CODE_OBJECT names tests/kernels/aql_kernels.cl
   compiled for gfx1030. */
#include "fuzz_dispatch.h"

static uint64_t kernels[3];
static uint8_t *buffer, *kernarg;
static uint8_t canary[8192];

static const char *KERNELS[3] = {"scale_add.kd", "store_through.kd", "count_items.kd"};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    start_dispatching();
    buffer = gpu_visible(1 << 16);
    kernarg = gpu_visible(4096);
    for (int k = 0; k < 3; k++) kernels[k] = fuzz_kernel(KERNELS[k]);
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
