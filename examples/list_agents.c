/* list_agents: the system, its agents, their ISAs and caches, as rocminfo prints them.

   Build and run against SoftGPU (or ROCr: it uses only the public API):
     gcc -o list_agents examples/list_agents.c -Lbuild/lib -lhsa-runtime64
     LD_LIBRARY_PATH=build/lib ./list_agents
   SOFTGPU_PROFILE=generic (or a path to a profile .json) picks another device. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void die_on_error(hsa_status_t status, const char *what) {
    if (status != HSA_STATUS_SUCCESS && status != HSA_STATUS_INFO_BREAK) {
        const char *text = "unknown status";
        hsa_status_string(status, &text);
        fprintf(stderr, "%s failed: %s (0x%x)\n", what, text, (unsigned)status);
        exit(1);
    }
}

static void field(int indent, const char *label, const char *format, ...) __attribute__((format(printf, 3, 4)));

static void field(int indent, const char *label, const char *format, ...) {
    va_list args;
    printf("%*s%-25s", indent, "", label);
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf("\n");
}

static uint32_t info_u32(hsa_agent_t agent, int attribute) {
    uint32_t value = 0;
    die_on_error(hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, &value), "hsa_agent_get_info");
    return value;
}

static hsa_status_t print_cache(hsa_cache_t cache, void *data) {
    (void)data;
    uint8_t level = 0;
    uint32_t size = 0;
    die_on_error(hsa_cache_get_info(cache, HSA_CACHE_INFO_LEVEL, &level), "hsa_cache_get_info");
    die_on_error(hsa_cache_get_info(cache, HSA_CACHE_INFO_SIZE, &size), "hsa_cache_get_info");
    char label[8];
    snprintf(label, sizeof label, "L%u:", level);
    field(4, label, "%u KB", size);     /* ROCr answers cache sizes in KiB */
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t print_wavefront(hsa_wavefront_t wavefront, void *data) {
    (void)data;
    uint32_t size = 0;
    die_on_error(hsa_wavefront_get_info(wavefront, HSA_WAVEFRONT_INFO_SIZE, &size), "hsa_wavefront_get_info");
    field(6, "Wavefront Size:", "%u", size);
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t print_isa(hsa_isa_t isa, void *data) {
    int *index = data;
    char name[64] = "";
    uint32_t workgroup = 0;
    uint16_t dims[3] = {0, 0, 0};
    hsa_dim3_t grid = {0, 0, 0};
    die_on_error(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name), "hsa_isa_get_info_alt");
    die_on_error(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_WORKGROUP_MAX_SIZE, &workgroup), "hsa_isa_get_info_alt");
    die_on_error(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_WORKGROUP_MAX_DIM, dims), "hsa_isa_get_info_alt");
    die_on_error(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_GRID_MAX_DIM, &grid), "hsa_isa_get_info_alt");
    printf("    ISA %d\n", ++*index);
    field(6, "Name:", "%s", name);
    field(6, "Workgroup Max Size:", "%u", workgroup);
    field(6, "Workgroup Max Dims:", "%u x %u x %u", dims[0], dims[1], dims[2]);
    field(6, "Grid Max Dims:", "%u x %u x %u", grid.x, grid.y, grid.z);
    die_on_error(hsa_isa_iterate_wavefronts(isa, print_wavefront, NULL), "hsa_isa_iterate_wavefronts");
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t print_agent(hsa_agent_t agent, void *data) {
    int *index = data;
    char name[64] = "", vendor[64] = "", product[64] = "", uuid[32] = "";
    hsa_device_type_t device;
    hsa_profile_t profile;
    uint32_t caches[4];
    die_on_error(hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name), "hsa_agent_get_info");
    die_on_error(hsa_agent_get_info(agent, HSA_AGENT_INFO_VENDOR_NAME, vendor), "hsa_agent_get_info");
    die_on_error(hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME, product),
                 "hsa_agent_get_info");
    die_on_error(hsa_agent_get_info(agent, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_UUID, uuid), "hsa_agent_get_info");
    die_on_error(hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &device), "hsa_agent_get_info");
    die_on_error(hsa_agent_get_info(agent, HSA_AGENT_INFO_PROFILE, &profile), "hsa_agent_get_info");
    die_on_error(hsa_agent_get_info(agent, HSA_AGENT_INFO_CACHE_SIZE, caches), "hsa_agent_get_info");

    printf("*******\nAgent %d\n*******\n", ++*index);
    field(2, "Name:", "%s", name);
    field(2, "Uuid:", "%s", uuid);
    field(2, "Marketing Name:", "%s", product);
    field(2, "Vendor Name:", "%s", vendor);
    field(2, "Device Type:", "%s", device == HSA_DEVICE_TYPE_GPU ? "GPU" : device == HSA_DEVICE_TYPE_CPU ? "CPU" : "DSP");
    field(2, "Profile:", "%s", profile == HSA_PROFILE_FULL ? "FULL_PROFILE" : "BASE_PROFILE");
    field(2, "Node:", "%u", info_u32(agent, HSA_AGENT_INFO_NODE));
    field(2, "Chip ID:", "%u(0x%x)", info_u32(agent, HSA_AMD_AGENT_INFO_CHIP_ID),
          info_u32(agent, HSA_AMD_AGENT_INFO_CHIP_ID));
    field(2, "Compute Unit:", "%u", info_u32(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT));
    field(2, "Max Clock Freq. (MHz):", "%u", info_u32(agent, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY));
    field(2, "Cacheline Size:", "%u", info_u32(agent, HSA_AMD_AGENT_INFO_CACHELINE_SIZE));
    if (device == HSA_DEVICE_TYPE_GPU) {
        field(2, "BDFID:", "%u", info_u32(agent, HSA_AMD_AGENT_INFO_BDFID));
        field(2, "SIMDs per CU:", "%u", info_u32(agent, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU));
        field(2, "Shader Engines:", "%u", info_u32(agent, HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES));
        field(2, "Shader Arrs. per Eng.:", "%u", info_u32(agent, HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE));
        field(2, "Wavefront Size:", "%u", info_u32(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE));
        field(2, "Max Waves Per CU:", "%u", info_u32(agent, HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU));
        field(2, "Workgroup Max Size:", "%u", info_u32(agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE));
        field(2, "Max Queue Number:", "%u", info_u32(agent, HSA_AGENT_INFO_QUEUES_MAX));
        field(2, "Queue Min Size:", "%u", info_u32(agent, HSA_AGENT_INFO_QUEUE_MIN_SIZE));
        field(2, "Queue Max Size:", "%u", info_u32(agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE));
    }
    printf("  Cache Info:\n");
    die_on_error(hsa_agent_iterate_caches(agent, print_cache, NULL), "hsa_agent_iterate_caches");
    printf("  ISA Info:\n");
    int isas = 0;
    hsa_status_t status = hsa_agent_iterate_isas(agent, print_isa, &isas);
    if (status == HSA_STATUS_ERROR_INVALID_AGENT)   /* a CPU agent has no ISA */
        printf("    N/A\n");
    else
        die_on_error(status, "hsa_agent_iterate_isas");
    return HSA_STATUS_SUCCESS;
}

int main(void) {
    die_on_error(hsa_init(), "hsa_init");
    uint16_t major = 0, minor = 0;
    uint64_t frequency = 0, max_wait = 0;
    hsa_machine_model_t model;
    die_on_error(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major), "hsa_system_get_info");
    die_on_error(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor), "hsa_system_get_info");
    die_on_error(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency), "hsa_system_get_info");
    die_on_error(hsa_system_get_info(HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT, &max_wait), "hsa_system_get_info");
    die_on_error(hsa_system_get_info(HSA_SYSTEM_INFO_MACHINE_MODEL, &model), "hsa_system_get_info");

    printf("=====================\nHSA System Attributes\n=====================\n");
    field(0, "Runtime Version:", "%u.%u", major, minor);
    field(0, "System Timestamp Freq.:", "%fMHz", frequency / 1e6);
    field(0, "Sig. Max Wait Duration:", "%" PRIu64 " (0x%" PRIx64 ") (timestamp count)", max_wait, max_wait);
    field(0, "Machine Model:", "%s", model == HSA_MACHINE_MODEL_LARGE ? "LARGE" : "SMALL");
    printf("\n==========\nHSA Agents\n==========\n");
    int agents = 0;
    die_on_error(hsa_iterate_agents(print_agent, &agents), "hsa_iterate_agents");
    printf("*** Done ***\n");
    die_on_error(hsa_shut_down(), "hsa_shut_down");
    return 0;
}
