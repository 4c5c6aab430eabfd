/* Group segment sizes through a real AQL queue: the packet's group_segment_size is the
   workgroup's whole LDS (static plus dynamic, HSA's rule, as ROCr's and HIP's own packets
   carry it). usage: aql_lds CODE_OBJECT CASE
     static_dynamic  static size (from the symbol) + dynamic bytes: the kernel gets exactly that
     too_small       0 for a kernel with 24 KiB of static LDS: as on a GPU, its LDS reads give 0
     too_large       more than the agent's 64 KiB: INVALID_ALLOCATION, the queue stops
     at_limit        exactly the agent's LDS size (HSA_AGENT_INFO/pool size): runs as static_dynamic
     one_past        the agent's LDS size + 1 byte: INVALID_ALLOCATION, nothing runs */
#include "check.h"
#include "aql_util.h"

enum { GROUPS = 3, ITEMS = 128, STATIC_WORDS = 6144 };

static aql_env_t env;

static hsa_status_t group_pool_size(hsa_amd_memory_pool_t pool, void *data) {
    hsa_amd_segment_t segment;
    MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
    if (segment == HSA_AMD_SEGMENT_GROUP) MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, data));
    return HSA_STATUS_SUCCESS;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    aql_setup(&env, argv[1]);
    const char *what = argv[2];

    hsa_executable_symbol_t symbol;
    uint32_t static_bytes = 0;
    MUST(hsa_executable_get_symbol_by_name(env.executable, "lds_static_dynamic.kd", &env.gpu, &symbol));
    MUST(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                        &static_bytes));
    CHECK(static_bytes >= STATIC_WORDS * 4);

    int *out = aql_alloc(&env, GROUPS * ITEMS * sizeof(int));
    /* The __local pointer argument is the LDS offset of the dynamic part: right after the
       static part, as an OpenCL runtime places it. */
    struct { int *out; uint32_t dynamic_offset; } *args = aql_alloc(&env, 64);
    args->out = out;
    args->dynamic_offset = static_bytes;
    uint32_t dynamic_bytes = ITEMS * sizeof(int);

    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, aql_record_error, NULL, UINT32_MAX, UINT32_MAX, &queue));
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    hsa_kernel_dispatch_packet_t p =
        aql_dispatch_packet(aql_kernel(&env, "lds_static_dynamic"), args, GROUPS * ITEMS, ITEMS, done);

    /* The most a workgroup may ask: the agent's group segment pool size (64 KiB, or the
       size argv[3] names: 160 KiB on an MI355X). */
    size_t agent_lds = 0;
    MUST(hsa_amd_agent_iterate_memory_pools(env.gpu, group_pool_size, &agent_lds));
    CHECK_EQ_U64(agent_lds, argc > 3 ? strtoull(argv[3], NULL, 0) : 64 * 1024);

    if (!strcmp(what, "static_dynamic") || !strcmp(what, "too_small") || !strcmp(what, "at_limit")) {
        int whole = strcmp(what, "too_small") != 0;
        p.group_segment_size = !strcmp(what, "at_limit") ? (uint32_t)agent_lds : whole ? static_bytes + dynamic_bytes : 0;
        aql_publish(queue, &p);
        CHECK(aql_wait_zero(done, 120));
        for (int g = 0; g < GROUPS; g++)
            for (int l = 0; l < ITEMS; l++) {
                int want = whole ? (STATIC_WORDS - 1 - l) * 3 + (ITEMS - 1 - l) + 1000 * g : 0;
                if (out[g * ITEMS + l] != want) {
                    printf("FAIL out[%d] = %d, expected %d\n", g * ITEMS + l, out[g * ITEMS + l], want);
                    check_failures++;
                    g = GROUPS;
                    break;
                }
            }
        CHECK_EQ_U64(aql_errors_seen, 0);
    } else if (!strcmp(what, "too_large") || !strcmp(what, "one_past")) {
        p.group_segment_size = !strcmp(what, "one_past") ? (uint32_t)agent_lds + 1 : 64 * 1024 + 4;
        aql_publish(queue, &p);
        aql_expect_one_error(HSA_STATUS_ERROR_INVALID_ALLOCATION);
        CHECK_EQ_U64(hsa_signal_load_scacquire(done), 1);
    } else {
        printf("FAIL unknown case %s\n", what);
        return 2;
    }
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_shut_down());
    return check_report();
}
