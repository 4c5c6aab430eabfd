/* Every packet error reaches the queue's error callback with ROCr's status, and the
   queue stops. usage: aql_errors CODE_OBJECT CASE */
#include "check.h"
#include "aql_util.h"

static aql_env_t env;
static volatile int callbacks;
static volatile hsa_status_t reported;
static hsa_queue_t *volatile reported_queue;

static void on_error(hsa_status_t status, hsa_queue_t *queue, void *data) {
    reported = status;
    reported_queue = queue;
    callbacks += data == (void *)&env;
}

static void expect_error(hsa_queue_t *queue, hsa_status_t expected) {
    for (int i = 0; i < 60000 && !callbacks; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    CHECK_EQ_U64(callbacks, 1);
    CHECK_STATUS(reported, expected);
    CHECK(reported_queue == queue);
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    aql_setup(&env, argv[1]);
    const char *what = argv[2];
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, on_error, &env, UINT32_MAX, UINT32_MAX, &queue));
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    uint32_t *buffer = aql_alloc(&env, 4096);
    void **args = aql_alloc(&env, 64);
    args[0] = buffer;
    hsa_kernel_dispatch_packet_t p;
    memset(&p, 0, sizeof p);
    p.header = aql_header(HSA_PACKET_TYPE_KERNEL_DISPATCH);
    p.setup = 1;
    p.workgroup_size_x = p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = p.grid_size_y = p.grid_size_z = 1;
    p.kernel_object = aql_kernel(&env, "store_through");
    p.kernarg_address = args;
    p.completion_signal = done;
    hsa_status_t expected;

    if (!strcmp(what, "packet_type")) {
        p.header = aql_header((hsa_packet_type_t)7);
        expected = HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    } else if (!strcmp(what, "agent_dispatch")) {
        p.header = aql_header(HSA_PACKET_TYPE_AGENT_DISPATCH);
        expected = HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    } else if (!strcmp(what, "fence_scope")) {
        p.header |= 3 << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE;
        expected = HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    } else if (!strcmp(what, "zero_grid")) {
        p.grid_size_x = 0;
        expected = HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
    } else if (!strcmp(what, "zero_dimensions")) {
        p.setup = 0;
        expected = HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
    } else if (!strcmp(what, "oversized_workgroup")) {
        p.workgroup_size_x = 2048;
        p.grid_size_x = 2048;
        expected = HSA_STATUS_ERROR_INVALID_ARGUMENT;
    } else if (!strcmp(what, "grid_max")) {
        /* 2^32 - 1 work-items in 64-item workgroups: runs (its first wave traps), never an
           empty "success" of a workgroup count wrapped to 0. */
        p.kernel_object = aql_kernel(&env, "trap_now");
        p.grid_size_x = UINT32_MAX;
        p.workgroup_size_x = 64;
        expected = HSA_STATUS_ERROR_EXCEPTION;
    } else if (!strcmp(what, "grid_max_3d")) {
        /* 65535 x 65537 = 2^32 - 1 work-items: exactly the agent's GRID_MAX_SIZE, so it runs. */
        p.kernel_object = aql_kernel(&env, "trap_now");
        p.setup = 2;
        p.grid_size_x = 65535;
        p.grid_size_y = 65537;
        p.workgroup_size_x = 64;
        expected = HSA_STATUS_ERROR_EXCEPTION;
    } else if (!strcmp(what, "grid_past_max_3d")) {
        /* 65536 x 65536 = 2^32 work-items: one past GRID_MAX_SIZE. */
        p.setup = 2;
        p.grid_size_x = p.grid_size_y = 65536;
        p.workgroup_size_x = 64;
        expected = HSA_STATUS_ERROR_INVALID_ARGUMENT;
    } else if (!strcmp(what, "grid_wraps_64_bits")) {
        /* (2^32 - 1)^3 work-items: a product past 2^64 must not wrap into range. */
        p.setup = 3;
        p.grid_size_x = p.grid_size_y = p.grid_size_z = UINT32_MAX;
        expected = HSA_STATUS_ERROR_INVALID_ARGUMENT;
    } else if (!strcmp(what, "group_segment")) {
        p.group_segment_size = 1 << 20;
        expected = HSA_STATUS_ERROR_INVALID_ALLOCATION;
    } else if (!strcmp(what, "unknown_kernel")) {
        p.kernel_object = 0x123456789abcull;
        expected = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    } else if (!strcmp(what, "memory_fault")) {
        args[0] = (void *)0x1000;
        expected = HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION;
    } else if (!strcmp(what, "trap")) {
        p.kernel_object = aql_kernel(&env, "trap_now");
        expected = HSA_STATUS_ERROR_EXCEPTION;  /* ROCr's status for a trapping wave */
    } else if (!strcmp(what, "dependency_destroyed")) {
        /* A barrier waits on a signal the client then destroys: an error, not a spin. */
        hsa_signal_t dep;
        MUST(hsa_signal_create(1, 0, NULL, &dep));
        aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, (hsa_signal_t[5]){{0}, {0}, dep}, done);
        CHECK(!aql_wait_zero(done, 0.1));
        MUST(hsa_signal_destroy(dep));
        expected = HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    } else {
        printf("FAIL unknown case %s\n", what);
        return 2;
    }
    if (strcmp(what, "dependency_destroyed")) aql_publish(queue, &p);
    expect_error(queue, expected);
    /* The failed packet never completes, and the queue takes no further packets. */
    CHECK_EQ_U64(hsa_signal_load_scacquire(done), 1);
    hsa_signal_t later;
    MUST(hsa_signal_create(1, 0, NULL, &later));
    aql_barrier(queue, HSA_PACKET_TYPE_BARRIER_AND, NULL, later);
    CHECK(!aql_wait_zero(later, 0.2));
    CHECK_EQ_U64(callbacks, 1);
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_signal_destroy(later));
    MUST(hsa_shut_down());
    return check_report();
}
