/* A faulting kernel on a queue with no error callback. usage: aql_unhandled CODE_OBJECT */
#include "check.h"
#include "aql_util.h"

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    aql_env_t env;
    aql_setup(&env, argv[1]);
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue));
    void **args = aql_alloc(&env, 64);
    args[0] = (void *)0x1000;
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(&env, "store_through"), args, 1, 1, done);
    /* Under SOFTGPU_QUEUE_ERRORS=continue the packet never completes: wait a bounded time. */
    CHECK(!aql_wait_zero(done, 5));
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_shut_down());
    return check_report();
}
