/* A faulting kernel on a queue with no error callback.
   usage: aql_unhandled CODE_OBJECT [handler]
   With "handler", a system event handler takes the memory fault (as ROCr lets it). */
#include "check.h"
#include "aql_util.h"

static aql_env_t env;
static volatile int events;
static volatile uint64_t fault_address, fault_agent;
static volatile uint32_t fault_reasons;

static hsa_status_t on_event(const hsa_amd_event_t *event, void *data) {
    if (event->event_type == HSA_AMD_GPU_MEMORY_FAULT_EVENT && data == &env) {
        fault_address = event->memory_fault.virtual_address;
        fault_agent = event->memory_fault.agent.handle;
        fault_reasons = event->memory_fault.fault_reason_mask;
        events++;
    }
    return HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    int with_handler = argc > 2 && !strcmp(argv[2], "handler");
    aql_setup(&env, argv[1]);
    if (with_handler) {
        CHECK_STATUS(hsa_amd_register_system_event_handler(NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
        MUST(hsa_amd_register_system_event_handler(on_event, &env));
    }
    hsa_queue_t *queue = aql_queue(&env);
    void **args = aql_alloc(&env, 64);
    args[0] = (void *)0x1000;
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(&env, "store_through"), args, 1, 1, done);
    /* The faulting packet never completes: wait a bounded time. */
    CHECK(!aql_wait_zero(done, 5));
    if (with_handler) {
        CHECK_EQ_U64(events, 1);
        CHECK_EQ_U64(fault_address, 0x1000);
        CHECK_EQ_U64(fault_agent, env.gpu.handle);
        CHECK(fault_reasons & HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT);
    }
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_shut_down());
    return check_report();
}
