/* ISAs, wavefronts and caches of the agents. argv[1] is the wavefront size list the profile's
   GPU ISA must report ("64" for ROCr 5.2's quirk, "32,64" for the real gfx1030 sizes). */
#include <hsa/hsa.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"

typedef struct {
    uint64_t handles[8];
    int count;
} list_t;

static hsa_status_t add_isa(hsa_isa_t isa, void *data) {
    list_t *l = data;
    l->handles[l->count++] = isa.handle;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t add_wavefront(hsa_wavefront_t w, void *data) {
    list_t *l = data;
    l->handles[l->count++] = w.handle;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t add_cache(hsa_cache_t c, void *data) {
    list_t *l = data;
    l->handles[l->count++] = c.handle;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t stop_isa(hsa_isa_t isa, void *data) { (void)isa; ++*(int *)data; return HSA_STATUS_INFO_BREAK; }
static hsa_status_t stop_cache(hsa_cache_t c, void *data) { (void)c; ++*(int *)data; return HSA_STATUS_INFO_BREAK; }
static hsa_status_t fail_wavefront(hsa_wavefront_t w, void *data) {
    (void)w; ++*(int *)data; return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

static void isa_attributes(hsa_isa_t isa) {
    const char *expected = "amdgcn-amd-amdhsa--gfx1030";
    uint32_t length = 0;
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length));
    CHECK_EQ_U64(length, strlen(expected) + 1);
    char name[64];
    memset(name, 'X', sizeof name);
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name));
    CHECK(strcmp(name, expected) == 0);
    CHECK(name[length] == 'X');   /* exactly NAME_LENGTH bytes written */

    bool models[2] = {true, false};
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_MACHINE_MODELS, models));
    CHECK(!models[HSA_MACHINE_MODEL_SMALL] && models[HSA_MACHINE_MODEL_LARGE]);
    bool profiles[2] = {false, true};
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_PROFILES, profiles));
    CHECK(profiles[HSA_PROFILE_BASE] && !profiles[HSA_PROFILE_FULL]);
    bool modes[3] = {true, true, false};
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES, modes));
    CHECK(!modes[0] && !modes[1] && modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR]);
    bool base_modes[3] = {true, true, false};
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES, base_modes));
    CHECK(!base_modes[0] && !base_modes[1] && base_modes[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR]);
    bool f16 = false;
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_FAST_F16_OPERATION, &f16));
    CHECK(f16);
    uint16_t wg[3] = {0, 0, 0};
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_WORKGROUP_MAX_DIM, wg));
    CHECK(wg[0] == 1024 && wg[1] == 1024 && wg[2] == 1024);
    uint32_t wg_size = 0, fbarrier = 0;
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_WORKGROUP_MAX_SIZE, &wg_size));
    CHECK_EQ_U64(wg_size, 1024);
    hsa_dim3_t grid = {0, 0, 0};
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_GRID_MAX_DIM, &grid));
    CHECK(grid.x == UINT32_MAX && grid.y == UINT32_MAX && grid.z == UINT32_MAX);
    uint64_t grid_size = 0;
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_GRID_MAX_SIZE, &grid_size));
    CHECK_EQ_U64(grid_size, UINT64_MAX);
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_FBARRIER_MAX_SIZE, &fbarrier));
    CHECK_EQ_U64(fbarrier, 32);
    uint32_t conventions = 0;
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_CALL_CONVENTION_COUNT, &conventions));
    CHECK_EQ_U64(conventions, 1);
    CHECK_STATUS(hsa_isa_get_info_alt(isa, (hsa_isa_info_t)10, &conventions), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* The deprecated form takes a call convention index: only 0 exists. */
    CHECK_OK(hsa_isa_get_info(isa, HSA_ISA_INFO_NAME_LENGTH, 0, &length));
    CHECK_EQ_U64(length, strlen(expected) + 1);
    CHECK_STATUS(hsa_isa_get_info(isa, HSA_ISA_INFO_NAME_LENGTH, 1, &length), HSA_STATUS_ERROR_INVALID_INDEX);
    CHECK_STATUS(hsa_isa_get_info(isa, HSA_ISA_INFO_NAME_LENGTH, 0, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    uint16_t mask = 0xFFFF;
    CHECK_OK(hsa_isa_get_exception_policies(isa, HSA_PROFILE_BASE, &mask));
    CHECK_EQ_U64(mask, 0);
    CHECK_STATUS(hsa_isa_get_exception_policies(isa, (hsa_profile_t)5, &mask), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_isa_get_exception_policies(isa, HSA_PROFILE_BASE, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_round_method_t round = HSA_ROUND_METHOD_DOUBLE;
    CHECK_OK(hsa_isa_get_round_method(isa, HSA_FP_TYPE_32, HSA_FLUSH_MODE_FTZ, &round));
    CHECK_EQ_U64(round, HSA_ROUND_METHOD_SINGLE);
    CHECK_OK(hsa_isa_get_round_method(isa, HSA_FP_TYPE_64, HSA_FLUSH_MODE_NON_FTZ, &round));
    CHECK_EQ_U64(round, HSA_ROUND_METHOD_SINGLE);
    CHECK_STATUS(hsa_isa_get_round_method(isa, (hsa_fp_type_t)3, HSA_FLUSH_MODE_FTZ, &round),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_isa_get_round_method(isa, HSA_FP_TYPE_16, (hsa_flush_mode_t)0, &round),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_isa_get_round_method(isa, HSA_FP_TYPE_16, HSA_FLUSH_MODE_FTZ, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void isa_names_and_compatibility(hsa_isa_t agent_isa) {
    hsa_isa_t isa = {0}, other = {0};
    CHECK_OK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx1030", &isa));
    CHECK_EQ_U64(isa.handle, agent_isa.handle);
    /* ROCr's registry: any target it knows, with the target features that target has. */
    CHECK_OK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-", &other));
    char name[64] = {0};
    CHECK_OK(hsa_isa_get_info_alt(other, HSA_ISA_INFO_NAME, name));
    CHECK(strcmp(name, "amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-") == 0);
    bool f16 = true;
    hsa_isa_t gfx700;
    CHECK_OK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx700", &gfx700));
    CHECK_OK(hsa_isa_get_info_alt(gfx700, HSA_ISA_INFO_FAST_F16_OPERATION, &f16));
    CHECK(!f16);

    hsa_isa_t dummy = {0x1234};
    CHECK_STATUS(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx1030:xnack-", &dummy), HSA_STATUS_ERROR_INVALID_ISA_NAME);
    CHECK_STATUS(hsa_isa_from_name("gfx1030", &dummy), HSA_STATUS_ERROR_INVALID_ISA_NAME);
    CHECK_STATUS(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx9999", &dummy), HSA_STATUS_ERROR_INVALID_ISA_NAME);
    CHECK_STATUS(hsa_isa_from_name("", &dummy), HSA_STATUS_ERROR_INVALID_ISA_NAME);
    CHECK_EQ_U64(dummy.handle, 0x1234);
    CHECK_STATUS(hsa_isa_from_name(NULL, &dummy), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_isa_from_name((const char *)16, &dummy), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    CHECK_STATUS(hsa_isa_from_name(long_name, &dummy), HSA_STATUS_ERROR_INVALID_ISA_NAME);
    /* A name that ends right before an unreadable page is found; one running into it is an error. */
    char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(pages != MAP_FAILED && mprotect(pages + 4096, 4096, PROT_NONE) == 0);
    const char *gfx1030 = "amdgcn-amd-amdhsa--gfx1030";
    char *at_edge = pages + 4096 - strlen(gfx1030) - 1;
    strcpy(at_edge, gfx1030);
    hsa_isa_t edge = {0};
    CHECK_OK(hsa_isa_from_name(at_edge, &edge));
    CHECK_EQ_U64(edge.handle, agent_isa.handle);
    memcpy(pages + 4096 - strlen(gfx1030), gfx1030, strlen(gfx1030));   /* no NUL before the page ends */
    CHECK_STATUS(hsa_isa_from_name(pages + 4096 - strlen(gfx1030), &dummy), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    munmap(pages, 8192);
    CHECK_STATUS(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx1030", NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    bool ok = false;
    CHECK_OK(hsa_isa_compatible(isa, agent_isa, &ok));
    CHECK(ok);
    CHECK_OK(hsa_isa_compatible(other, agent_isa, &ok));
    CHECK(!ok);
    hsa_isa_t any, xnack_on, xnack_off;
    CHECK_OK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx90a", &any));
    CHECK_OK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx90a:xnack+", &xnack_on));
    CHECK_OK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx90a:xnack-", &xnack_off));
    CHECK_OK(hsa_isa_compatible(any, xnack_on, &ok));   /* "any" code runs everywhere */
    CHECK(ok);
    CHECK_OK(hsa_isa_compatible(xnack_off, xnack_on, &ok));
    CHECK(!ok);
    CHECK_STATUS(hsa_isa_compatible(isa, agent_isa, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void wavefronts(hsa_isa_t isa, const char *sizes) {
    list_t list = {.count = 0};
    CHECK_OK(hsa_isa_iterate_wavefronts(isa, add_wavefront, &list));
    char got[32] = "";
    for (int i = 0; i < list.count; i++) {
        hsa_wavefront_t w = {list.handles[i]};
        uint32_t size = 0;
        CHECK_OK(hsa_wavefront_get_info(w, HSA_WAVEFRONT_INFO_SIZE, &size));
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%u", i ? "," : "", size);
        CHECK_STATUS(hsa_wavefront_get_info(w, (hsa_wavefront_info_t)1, &size), HSA_STATUS_ERROR_INVALID_ARGUMENT);
        CHECK_STATUS(hsa_wavefront_get_info(w, HSA_WAVEFRONT_INFO_SIZE, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    CHECK(strcmp(got, sizes) == 0);
    if (strcmp(got, sizes) != 0) printf("  wavefront sizes %s, expected %s\n", got, sizes);

    uint32_t wave = 0;
    CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE, &wave));
    CHECK_EQ_U64(wave, 64);   /* deprecated: ROCr writes 64 whatever the wavefronts are */

    int calls = 0;
    CHECK_STATUS(hsa_isa_iterate_wavefronts(isa, fail_wavefront, &calls), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    CHECK_EQ_U64(calls, 1);
    CHECK_STATUS(hsa_isa_iterate_wavefronts(isa, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_wavefront_t forged = {list.handles[0] + 7};
    uint32_t size;
    CHECK_STATUS(hsa_wavefront_get_info(forged, HSA_WAVEFRONT_INFO_SIZE, &size), HSA_STATUS_ERROR_INVALID_WAVEFRONT);
}

/* ROCr's answers: NAME is a const char * to the runtime's own string, NAME_LENGTH counts
   no NUL, SIZE is in KiB (the agent's HSA_AGENT_INFO_CACHE_SIZE is in bytes). */
static void caches(hsa_agent_t agent, const char *agent_name, const uint32_t *kib, int count) {
    list_t list = {.count = 0};
    CHECK_OK(hsa_agent_iterate_caches(agent, add_cache, &list));
    CHECK_EQ_U64(list.count, count);
    for (int i = 0; i < list.count && i < count; i++) {
        hsa_cache_t c = {list.handles[i]};
        char expected[80];
        snprintf(expected, sizeof expected, "%s L%d", agent_name, i + 1);
        uint32_t length = 0;
        CHECK_OK(hsa_cache_get_info(c, HSA_CACHE_INFO_NAME_LENGTH, &length));
        CHECK_EQ_U64(length, strlen(expected));
        const char *name = NULL;
        CHECK_OK(hsa_cache_get_info(c, HSA_CACHE_INFO_NAME, &name));
        CHECK(name != NULL && strcmp(name, expected) == 0);
        const char *again = NULL;
        CHECK_OK(hsa_cache_get_info(c, HSA_CACHE_INFO_NAME, &again));
        CHECK(again == name);                 /* the runtime's string, valid after the call */
        uint8_t level = 0;
        CHECK_OK(hsa_cache_get_info(c, HSA_CACHE_INFO_LEVEL, &level));
        CHECK_EQ_U64(level, i + 1);
        uint32_t size = 0;
        CHECK_OK(hsa_cache_get_info(c, HSA_CACHE_INFO_SIZE, &size));
        CHECK_EQ_U64(size, kib[i]);
        CHECK_STATUS(hsa_cache_get_info(c, (hsa_cache_info_t)4, &size), HSA_STATUS_ERROR_INVALID_ARGUMENT);
        CHECK_STATUS(hsa_cache_get_info(c, HSA_CACHE_INFO_SIZE, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    int calls = 0;
    CHECK_STATUS(hsa_agent_iterate_caches(agent, stop_cache, &calls), HSA_STATUS_INFO_BREAK);
    CHECK_EQ_U64(calls, 1);
    CHECK_STATUS(hsa_agent_iterate_caches(agent, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_cache_t forged = {list.handles[0] ^ (1ull << 40)};
    uint32_t size;
    CHECK_STATUS(hsa_cache_get_info(forged, HSA_CACHE_INFO_SIZE, &size), HSA_STATUS_ERROR_INVALID_CACHE);
    hsa_cache_t zero = {0};
    CHECK_STATUS(hsa_cache_get_info(zero, HSA_CACHE_INFO_SIZE, &size), HSA_STATUS_ERROR_INVALID_CACHE);
}

int main(int argc, char **argv) {
    const char *sizes = argc > 1 ? argv[1] : "64";
    CHECK_OK(hsa_init());
    struct {
        hsa_agent_t cpu, gpu;
    } a;
    find_cpu_gpu(&a.cpu, &a.gpu);

    list_t isas = {.count = 0};
    CHECK_OK(hsa_agent_iterate_isas(a.gpu, add_isa, &isas));
    CHECK_EQ_U64(isas.count, 1);
    hsa_isa_t isa = {isas.handles[0]};
    isa_attributes(isa);
    isa_names_and_compatibility(isa);
    wavefronts(isa, sizes);

    int calls = 0;
    CHECK_STATUS(hsa_agent_iterate_isas(a.gpu, stop_isa, &calls), HSA_STATUS_INFO_BREAK);
    CHECK_EQ_U64(calls, 1);
    /* The CPU agent has no ISA: ROCr answers SUCCESS and never calls back. */
    calls = 0;
    CHECK_OK(hsa_agent_iterate_isas(a.cpu, stop_isa, &calls));
    CHECK_EQ_U64(calls, 0);
    CHECK_STATUS(hsa_agent_iterate_isas(a.gpu, NULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_isa_t forged = {isa.handle + 1000};
    uint32_t length;
    CHECK_STATUS(hsa_isa_get_info_alt(forged, HSA_ISA_INFO_NAME_LENGTH, &length), HSA_STATUS_ERROR_INVALID_ISA);
    hsa_isa_t agent_handle_as_isa = {a.gpu.handle};
    CHECK_STATUS(hsa_isa_get_info_alt(agent_handle_as_isa, HSA_ISA_INFO_NAME_LENGTH, &length),
                 HSA_STATUS_ERROR_INVALID_ISA);
    bool ok;
    CHECK_STATUS(hsa_isa_compatible(forged, isa, &ok), HSA_STATUS_ERROR_INVALID_ISA);
    CHECK_STATUS(hsa_isa_compatible(isa, forged, &ok), HSA_STATUS_ERROR_INVALID_ISA);
    CHECK_STATUS(hsa_isa_iterate_wavefronts(forged, add_wavefront, &isas), HSA_STATUS_ERROR_INVALID_ISA);

    const uint32_t gpu_caches_kib[] = {16, 4096, 131072};
    caches(a.gpu, "gfx1030", gpu_caches_kib, 3);
    uint32_t gpu_bytes[4] = {1, 1, 1, 1};
    CHECK_OK(hsa_agent_get_info(a.gpu, HSA_AGENT_INFO_CACHE_SIZE, gpu_bytes));
    CHECK(gpu_bytes[0] == 16384 && gpu_bytes[1] == 4194304 && gpu_bytes[2] == 134217728 && gpu_bytes[3] == 0);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
