/* Agent, ISA and cache handles across the runtime's life: calls before hsa_init, reference
   counted init/shutdown, forged handles, handles kept across shutdown+init, and
   hsa_iterate_agents' callback results. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <string.h>

#include "check.h"

static hsa_status_t stop_at_first(hsa_agent_t agent, void *data) {
    (void)agent;
    ++*(int *)data;
    return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t fail_at_second(hsa_agent_t agent, void *data) {
    (void)agent;
    return ++*(int *)data == 2 ? HSA_STATUS_ERROR_INVALID_SIGNAL : HSA_STATUS_SUCCESS;
}

/* A callback may call back into the runtime. */
static hsa_status_t nested(hsa_agent_t agent, void *data) {
    char name[64];
    hsa_status_t s = hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name);
    if (s == HSA_STATUS_SUCCESS) ++*(int *)data;
    return s;
}

static hsa_status_t first_cache(hsa_cache_t cache, void *data) {
    *(hsa_cache_t *)data = cache;
    return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t first_isa(hsa_isa_t isa, void *data) {
    *(hsa_isa_t *)data = isa;
    return HSA_STATUS_INFO_BREAK;
}

static void before_init(void) {
    agents_t a = {.count = 0};
    char name[64];
    hsa_agent_t agent = {0x1100000100000001ull};
    hsa_isa_t isa;
    CHECK_STATUS(hsa_iterate_agents(collect_agent, &a), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx1030", &isa), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_agent_iterate_caches(agent, first_cache, NULL), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_EQ_U64(a.count, 0);
}

int main(void) {
    before_init();

    CHECK_OK(hsa_init());
    CHECK_OK(hsa_init());   /* reference counted: two inits need two shutdowns */
    agents_t first = {.count = 0};
    CHECK_OK(hsa_iterate_agents(collect_agent, &first));
    CHECK_EQ_U64(first.count, 2);
    hsa_agent_t gpu = first.list[1];
    hsa_cache_t cache = {0};
    hsa_isa_t isa = {0};
    CHECK_STATUS(hsa_agent_iterate_caches(gpu, first_cache, &cache), HSA_STATUS_INFO_BREAK);
    CHECK_STATUS(hsa_agent_iterate_isas(gpu, first_isa, &isa), HSA_STATUS_INFO_BREAK);

    /* Iteration: the first status other than SUCCESS stops it and is returned. */
    int calls = 0;
    CHECK_STATUS(hsa_iterate_agents(stop_at_first, &calls), HSA_STATUS_INFO_BREAK);
    CHECK_EQ_U64(calls, 1);
    calls = 0;
    CHECK_STATUS(hsa_iterate_agents(fail_at_second, &calls), HSA_STATUS_ERROR_INVALID_SIGNAL);
    CHECK_EQ_U64(calls, 2);
    calls = 0;
    CHECK_OK(hsa_iterate_agents(nested, &calls));
    CHECK_EQ_U64(calls, 2);
    CHECK_STATUS(hsa_iterate_agents(NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Forged handles: zero, wrong kind, wrong generation, out-of-range index. */
    char name[64];
    hsa_agent_t forged[] = {{0}, {isa.handle}, {gpu.handle + (1ull << 32)}, {gpu.handle + 100}, {~0ull}};
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++)
        CHECK_STATUS(hsa_agent_get_info(forged[i], HSA_AGENT_INFO_NAME, name), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_agent_iterate_caches(forged[0], first_cache, &cache), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_agent_iterate_isas(forged[2], first_isa, &isa), HSA_STATUS_ERROR_INVALID_AGENT);
    /* A NULL value is checked before the agent, as ROCr does. */
    CHECK_STATUS(hsa_agent_get_info(forged[0], HSA_AGENT_INFO_NAME, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* An unwritable value pointer is an error status, not a crash. */
    CHECK_STATUS(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, (void *)16), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, (void *)"read-only"), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    CHECK_OK(hsa_shut_down());
    /* Still initialized once: handles stay valid. */
    CHECK_OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));
    CHECK(strcmp(name, "gfx1030") == 0);
    CHECK_OK(hsa_shut_down());
    CHECK_STATUS(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_shut_down(), HSA_STATUS_ERROR_NOT_INITIALIZED);

    /* A new session: the old session's handles are stale, the new ones work. */
    CHECK_OK(hsa_init());
    CHECK_STATUS(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name), HSA_STATUS_ERROR_INVALID_AGENT);
    uint32_t size;
    CHECK_STATUS(hsa_cache_get_info(cache, HSA_CACHE_INFO_SIZE, &size), HSA_STATUS_ERROR_INVALID_CACHE);
    uint32_t length;
    CHECK_STATUS(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length), HSA_STATUS_ERROR_INVALID_ISA);
    agents_t second = {.count = 0};
    CHECK_OK(hsa_iterate_agents(collect_agent, &second));
    CHECK_EQ_U64(second.count, 2);
    CHECK(second.list[1].handle != gpu.handle);
    CHECK_OK(hsa_agent_get_info(second.list[1], HSA_AGENT_INFO_NAME, name));
    CHECK(strcmp(name, "gfx1030") == 0);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
