/* One kernel dispatched again and again, as libraries do: every result must be right
   whatever changes between packets (grid sizes, workgroup sizes, buffers allocated and freed
   in between), and a fault in a later dispatch is reported as in the first.
   usage: aql_repeat CODE_OBJECT (results | fault) */
#include "check.h"
#include "aql_util.h"

static aql_env_t env;

typedef struct {
    const float *a;
    float *out;
    float scale;
    uint32_t n;
} scale_add_args;

/* scale_add over n items in workgroups of `group`, on fresh or reused buffers. */
static void results(hsa_queue_t *queue, hsa_signal_t done) {
    uint64_t kernel = aql_kernel(&env, "scale_add");
    scale_add_args *args = aql_alloc(&env, sizeof *args);
    float *a = aql_alloc(&env, 1024 * sizeof(float));
    float *out = aql_alloc(&env, 1024 * sizeof(float));
    static const uint16_t groups[] = {64, 64, 32, 64, 256, 1};
    for (int round = 0; round < 60; round++) {
        if (round % 7 == 3) {           /* new buffers: the old ones become invalid memory */
            float *fresh_a = aql_alloc(&env, 1024 * sizeof(float));
            float *fresh_out = aql_alloc(&env, 1024 * sizeof(float));
            MUST(hsa_amd_memory_pool_free(a));
            MUST(hsa_amd_memory_pool_free(out));
            a = fresh_a;
            out = fresh_out;
        }
        uint32_t n = 1 + (uint32_t)(round * 37) % 1000;
        for (uint32_t i = 0; i < 1024; i++) {
            a[i] = (float)(i % 97) + (float)round;
            out[i] = -1.0f;
        }
        *args = (scale_add_args){a, out, 0.5f * (float)(round % 5), n};
        hsa_signal_store_relaxed(done, 1);
        aql_dispatch(queue, kernel, args, n, groups[round % 6], done);
        CHECK(aql_wait_zero(done, 60));
        for (uint32_t i = 0; i < 1024; i++) {
            float want = i < n ? a[i] * args->scale + (float)i : -1.0f;
            if (out[i] != want) {
                printf("FAIL round %d (n=%u, workgroup %u): out[%u] = %g, expected %g\n", round, n,
                       groups[round % 6], i, out[i], want);
                exit(1);
            }
        }
    }
}

/* store_through three times into a live buffer, then through an address nothing maps. */
static void fault(hsa_queue_t *queue, hsa_signal_t done) {
    uint64_t kernel = aql_kernel(&env, "store_through");
    uint32_t *buffer = aql_alloc(&env, 4096);
    uint32_t **args = aql_alloc(&env, 64);
    for (int round = 0; round < 3; round++) {
        args[0] = buffer + round;
        hsa_signal_store_relaxed(done, 1);
        aql_dispatch(queue, kernel, args, 1, 1, done);
        CHECK(aql_wait_zero(done, 60));
        CHECK(buffer[round] != 0);
    }
    args[0] = (uint32_t *)0x1000;
    hsa_signal_store_relaxed(done, 1);
    aql_dispatch(queue, kernel, args, 1, 1, done);
    aql_expect_one_error((hsa_status_t)HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION);
    CHECK_EQ_U64(hsa_signal_load_scacquire(done), 1);        /* the faulting packet never completes */
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    aql_setup(&env, argv[1]);
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, aql_record_error, NULL, UINT32_MAX, UINT32_MAX, &queue));
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    if (!strcmp(argv[2], "results")) {
        results(queue, done);
    } else if (!strcmp(argv[2], "fault")) {
        fault(queue, done);
    } else {
        printf("FAIL unknown case %s\n", argv[2]);
        return 2;
    }
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_shut_down());
    return check_report();
}
