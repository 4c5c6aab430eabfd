/* Each kind of kernel fault, with or without a queue error callback, for the fault report.
   Usage: fault_reports CODE_OBJECT memory|trap|illegal callback|none
     memory: load_through reads an address nothing is mapped at; trap: trap_now;
     illegal: call_through calls into a data buffer.
   With a callback the program prints "callback status=0x..." and exits 0; without one
   the process aborts as under ROCr. */
#include "aql_util.h"

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
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, !strcmp(argv[3], "callback") ? aql_record_error : NULL,
                          NULL, UINT32_MAX, UINT32_MAX, &queue));
    uint32_t *data = aql_alloc(&env, 4096);          /* "code" of zeros for call_through */
    uint32_t *out = aql_alloc(&env, 4096);
    uint64_t *args = aql_alloc(&env, 256);           /* two pointers, then HIP's hidden arguments */
    args[0] = !strcmp(kind, "memory") ? 0x10 : (uint64_t)(uintptr_t)data;
    args[1] = (uint64_t)(uintptr_t)out;
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(&env, kernel), args, 64, 64, done);
    if (aql_wait_done_or_error(done))
        printf("callback status=0x%x\n", (unsigned)aql_error_status);
    else
        printf("completed\n");
    return 0;
}
