/* Each kind of kernel fault, with or without a queue error callback, for the fault report.
   Usage: fault_reports CODE_OBJECT memory|trap|illegal callback|none
     memory: load_through reads an address nothing is mapped at; trap: trap_now;
     illegal: call_through calls into a data buffer.
   With a callback the program prints "callback status=0x..." and exits 0; without one
   the process aborts as under ROCr. */
#include "aql_util.h"

static volatile int g_called;
static volatile hsa_status_t g_status;

static void on_error(hsa_status_t status, hsa_queue_t *queue, void *data) {
    (void)queue;
    (void)data;
    g_status = status;
    __atomic_store_n(&g_called, 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        printf("usage: %s CODE_OBJECT memory|trap|illegal callback|none\n", argv[0]);
        return 2;
    }
    const char *kind = argv[2];
    const char *kernel = !strcmp(kind, "memory") ? "load_through"
                         : !strcmp(kind, "trap") ? "trap_now" : "call_through";
    aql_env_t env;
    aql_setup(&env, argv[1]);
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, !strcmp(argv[3], "callback") ? on_error : NULL,
                          NULL, UINT32_MAX, UINT32_MAX, &queue));
    uint32_t *data = aql_alloc(&env, 4096);          /* "code" of zeros for call_through */
    uint32_t *out = aql_alloc(&env, 4096);
    uint64_t *args = aql_alloc(&env, 256);           /* two pointers, then HIP's hidden arguments */
    args[0] = !strcmp(kind, "memory") ? 0x10 : (uint64_t)(uintptr_t)data;
    args[1] = (uint64_t)(uintptr_t)out;
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    hsa_kernel_dispatch_packet_t p;
    memset(&p, 0, sizeof p);
    p.header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
               (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
               (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    p.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    p.workgroup_size_x = p.grid_size_x = 64;
    p.workgroup_size_y = p.workgroup_size_z = p.grid_size_y = p.grid_size_z = 1;
    p.kernel_object = aql_kernel(&env, kernel);
    p.kernarg_address = args;
    p.completion_signal = done;
    aql_publish(queue, &p);
    /* A 10 ms timeout only paces the polling of the callback flag. */
    while (!__atomic_load_n(&g_called, __ATOMIC_ACQUIRE) &&
           hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, 10 * 1000 * 1000,
                                     HSA_WAIT_STATE_BLOCKED) != 0)
        ;
    printf(g_called ? "callback status=0x%x\n" : "completed\n", (unsigned)g_status);
    return 0;
}
