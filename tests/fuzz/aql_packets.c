/* AQL fuzzer: random and mutated packets written into a real queue, doorbell rung.
   Each input is a series of 64-byte packets: a template (kernel dispatch of a real
   kernel, barrier-AND/OR, AMD barrier-value) left whole, XORed with input bytes, or
   with a few bytes set at chosen offsets.
   Invariants: an unmutated packet on a healthy queue completes within a bounded time;
   a mutated one completes, reports through the error callback or stays pending
   (it may wait on a signal nobody sets); a queue in any of those states can always be
   destroyed; nothing crashes.
   SOFTGPU_FUZZ_CODE_OBJECT names a code object with a kernel `empty`. */
#include <time.h>

#include "fuzz_dispatch.h"

static uint64_t empty_kernel;
static void *kernarg;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    start_dispatching();
    kernarg = gpu_visible(4096);
    empty_kernel = fuzz_kernel("empty.kd");
    return 0;
}

static void template_packet(uint8_t kind, uint8_t *packet, hsa_signal_t completion, hsa_signal_t dep) {
    uint16_t fences = (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    memset(packet, 0, 64);
    switch (kind % 4) {
    case 0: {
        hsa_kernel_dispatch_packet_t *p = (void *)packet;
        p->header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) | fences;
        p->setup = 1;
        p->workgroup_size_x = p->workgroup_size_y = p->workgroup_size_z = 1;
        p->grid_size_x = p->grid_size_y = p->grid_size_z = 1;
        p->kernel_object = empty_kernel;
        p->kernarg_address = kernarg;
        p->completion_signal = completion;
        break;
    }
    case 1:
    case 2: {
        hsa_barrier_and_packet_t *p = (void *)packet;
        p->header = ((kind % 4 == 1 ? HSA_PACKET_TYPE_BARRIER_AND : HSA_PACKET_TYPE_BARRIER_OR)
                     << HSA_PACKET_HEADER_TYPE) | fences;
        p->dep_signal[0] = dep;
        p->completion_signal = completion;
        break;
    }
    default: {
        hsa_amd_barrier_value_packet_t *p = (void *)packet;
        p->header.header = (HSA_PACKET_TYPE_VENDOR_SPECIFIC << HSA_PACKET_HEADER_TYPE) | fences;
        p->header.AmdFormat = HSA_AMD_PACKET_TYPE_BARRIER_VALUE;
        p->signal = dep;
        p->value = 0;
        p->mask = -1;
        p->cond = HSA_SIGNAL_CONDITION_EQ;
        p->completion_signal = completion;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input_t in = {data, size, 0};
    hsa_queue_t *queue;
    errors = 0;
    if (hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, NULL, UINT32_MAX, UINT32_MAX, &queue)) abort();
    hsa_signal_t completion, dep;
    hsa_signal_create(1, 0, NULL, &completion);
    hsa_signal_create(0, 0, NULL, &dep); /* satisfied dependency unless the input changes it */
    for (int n = 0; more(&in) && n < 8 && !errors; n++) {
        uint8_t packet[64];
        template_packet(take_u8(&in), packet, completion, dep);
        uint8_t mutate = take_u8(&in);
        for (int i = 0; i < 64 && (mutate & 1); i++) packet[i] ^= take_u8(&in);
        for (int i = 0; i < (mutate >> 1) % 4; i++) packet[take_u8(&in) % 64] = take_u8(&in);
        int whole = (mutate & 7) == 0; /* neither XORed nor patched */
        /* A mutated packet before may have changed the dependency through a forged handle. */
        if (whole) hsa_signal_store_relaxed(dep, 0);
        hsa_signal_store_relaxed(completion, 1);
        uint64_t index = hsa_queue_add_write_index_screlease(queue, 1);
        uint8_t *slot = (uint8_t *)queue->base_address + (index % queue->size) * 64;
        memcpy(slot + 4, packet + 4, 60);
        __atomic_store_n((uint32_t *)slot, *(uint32_t *)packet, __ATOMIC_RELEASE);
        hsa_signal_store_screlease(queue->doorbell_signal, (hsa_signal_value_t)index);
        /* Mutated packets may wait on signals nobody sets: bounded, then move on. */
        hsa_signal_value_t left = hsa_signal_wait_scacquire(completion, HSA_SIGNAL_CONDITION_LT, 1,
                                                            whole ? 5000000000ull : 100000000ull,
                                                            HSA_WAIT_STATE_BLOCKED);
        if (whole && !errors)
            FUZZ_ASSERT(left < 1, "an unmutated packet of kind %d never completed on a healthy queue", packet[0]);
        if (hsa_queue_load_read_index_scacquire(queue) <= index) break;
    }
    FUZZ_ASSERT(CHECKED(hsa_queue_destroy(queue)) == HSA_STATUS_SUCCESS, "queue destroy");
    hsa_signal_destroy(completion);
    hsa_signal_destroy(dep);
    return 0;
}
