/* Variables the application defines are what the kernel reads and writes: a code object
   with undefined app_value/app_table (argv[1]) is loaded after
   hsa_executable_agent_global_variable_define / hsa_executable_readonly_variable_define
   point them at the application's memory, then dispatched through an AQL queue. */
#include "aql_util.h"
#include "check.h"

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    aql_env_t env;
    memset(&env, 0, sizeof env);
    CHECK_OK(hsa_init());
    find_cpu_gpu(&env.cpu, &env.gpu);
    CHECK_OK(hsa_amd_agent_iterate_memory_pools(env.cpu, aql_pick_pool, &env));
    CHECK_OK(hsa_amd_agent_iterate_memory_pools(env.gpu, aql_pick_pool, &env));

    int *app_value = aql_alloc(&env, sizeof(int));
    int *app_table = aql_alloc(&env, 4 * sizeof(int));
    int *out = aql_alloc(&env, 8 * sizeof(int));
    *app_value = 41;
    for (int i = 0; i < 4; i++) app_table[i] = 100 * (i + 1);

    CHECK_OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL,
                                       &env.executable));
    CHECK_OK(hsa_executable_agent_global_variable_define(env.executable, env.gpu, "app_value", app_value));
    CHECK_OK(hsa_executable_readonly_variable_define(env.executable, env.gpu, "app_table", app_table));
    CHECK_OK(hsa_code_object_reader_create_from_file(fileno(fopen(argv[1], "rb")), &env.reader));
    CHECK_OK(hsa_executable_load_agent_code_object(env.executable, env.gpu, env.reader, NULL, NULL));
    CHECK_OK(hsa_executable_freeze(env.executable, NULL));

    hsa_executable_symbol_t symbol;
    uint32_t kernarg_size;
    CHECK_OK(hsa_executable_get_symbol_by_name(env.executable, "read_app_variables.kd", &env.gpu, &symbol));
    CHECK_OK(hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                            &kernarg_size));
    void **kernarg = aql_alloc(&env, kernarg_size);
    kernarg[0] = out;

    hsa_queue_t *queue;
    hsa_signal_t done;
    CHECK_OK(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &queue));
    CHECK_OK(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(&env, "read_app_variables"), kernarg, 8, 8, done);
    CHECK(aql_wait_zero(done, 60.0));

    for (int i = 0; i < 8; i++) CHECK_EQ_U64(out[i], 41 + app_table[i & 3]);
    CHECK_EQ_U64(*app_value, 3);

    CHECK_OK(hsa_signal_destroy(done));
    CHECK_OK(hsa_queue_destroy(queue));
    CHECK_OK(hsa_executable_destroy(env.executable));
    CHECK_OK(hsa_code_object_reader_destroy(env.reader));
    CHECK_OK(hsa_shut_down());
    return check_report();
}
