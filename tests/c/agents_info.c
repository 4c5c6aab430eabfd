/* Every hsa_agent_info_t, HSA_AMD_AGENT_INFO_* and image attribute of both agents of the
   gfx1030 profile (an RX 6800 XT beside the host's CPU), with ROCr 5.2's values and statuses.
   What describes the host (name, CPUs, clock, caches) is checked by agents_host_cpu.c. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_image.h>
#include <string.h>

#include "check.h"

/* HSA_AMD_AGENT_INFO_* of ROCm releases after the 5.2.3 headers. */
enum {
    AMD_AGENT_INFO_MEMORY_AVAIL = 0xA015,
    AMD_AGENT_INFO_TIMESTAMP_FREQUENCY = 0xA016,
    AMD_AGENT_INFO_ASIC_FAMILY_ID = 0xA107,
    AMD_AGENT_INFO_UCODE_VERSION = 0xA108,
    AMD_AGENT_INFO_SDMA_UCODE_VERSION = 0xA109,
    AMD_AGENT_INFO_NUM_SDMA_ENG = 0xA10A,
    AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG = 0xA10B,
    AMD_AGENT_INFO_IOMMU_SUPPORT = 0xA110,
    AMD_AGENT_INFO_NUM_XCC = 0xA111,
    AMD_AGENT_INFO_DRIVER_UID = 0xA112,
    AMD_AGENT_INFO_NEAREST_CPU = 0xA113,
    AMD_AGENT_INFO_MEMORY_PROPERTIES = 0xA114,
    AMD_AGENT_INFO_AQL_EXTENSIONS = 0xA115,
};

/* The uint8_t[8] bit masks of MEMORY_PROPERTIES and AQL_EXTENSIONS: all clear (no APU,
   no AQL extension), every byte written. */
static void check_empty_mask(hsa_agent_t agent, int attribute) {
    uint8_t mask[9];
    memset(mask, 0xEE, sizeof mask);
    CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, mask));
    for (int i = 0; i < 8; i++) CHECK_EQ_U64(mask[i], 0);
    CHECK_EQ_U64(mask[8], 0xEE);
}

static hsa_status_t first_pool(hsa_amd_memory_pool_t pool, void *data) {
    *(hsa_amd_memory_pool_t *)data = pool;
    return HSA_STATUS_INFO_BREAK;
}

static uint64_t u32(hsa_agent_t agent, int attribute) {
    uint32_t v = 0xDEADBEEF;
    CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, &v));
    return v;
}

static uint64_t u16(hsa_agent_t agent, int attribute) {
    uint16_t v = 0xBEEF;
    CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, &v));
    return v;
}

static uint64_t u64(hsa_agent_t agent, int attribute) {
    uint64_t v = 0xDEADBEEFDEADBEEFull;
    CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, &v));
    return v;
}

static int flag(hsa_agent_t agent, int attribute) {
    bool v = false;
    memset(&v, 0x7F, sizeof v);
    CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, &v));
    return v == true ? 1 : v == false ? 0 : -1;
}

static void check_text(hsa_agent_t agent, int attribute, size_t size, const char *expected) {
    char text[80];
    memset(text, 'X', sizeof text);
    CHECK_OK(hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, text));
    CHECK(strcmp(text, expected) == 0);
    for (size_t i = strlen(expected); i < size; i++) CHECK(text[i] == 0);   /* NUL padded */
    CHECK(text[size] == 'X');                                               /* and no further */
    CHECK(text[size] == 'X');                                               /* and no further */
    if (strcmp(text, expected) != 0) printf("  attribute %#x: got '%s'\n", attribute, text);
}

static void check_gpu(hsa_agent_t gpu, hsa_agent_t cpu) {
    check_text(gpu, HSA_AGENT_INFO_NAME, 63, "gfx1030");         /* ROCr's GPU clears 63 bytes */
    check_text(gpu, HSA_AGENT_INFO_VENDOR_NAME, 63, "AMD");
    check_text(gpu, HSA_AMD_AGENT_INFO_PRODUCT_NAME, 64, "AMD Radeon RX 6800 XT");
    check_text(gpu, HSA_AMD_AGENT_INFO_UUID, 21, "GPU-5f3c9a1e0d2b4c67");
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_FEATURE), HSA_AGENT_FEATURE_KERNEL_DISPATCH);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_MACHINE_MODEL), HSA_MACHINE_MODEL_LARGE);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_PROFILE), HSA_PROFILE_BASE);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE), HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES),
                 HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
    CHECK_EQ_U64(flag(gpu, HSA_AGENT_INFO_FAST_F16_OPERATION), 1);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE), 32);

    uint16_t wg_dim[4] = {0, 0, 0, 0xBEEF};
    CHECK_OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, wg_dim));
    CHECK(wg_dim[0] == 1024 && wg_dim[1] == 1024 && wg_dim[2] == 1024 && wg_dim[3] == 0xBEEF);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE), 1024);
    hsa_dim3_t grid = {0, 0, 0};
    CHECK_OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_GRID_MAX_DIM, &grid));
    CHECK(grid.x == UINT32_MAX && grid.y == UINT32_MAX && grid.z == UINT32_MAX);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_GRID_MAX_SIZE), UINT32_MAX);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_FBARRIER_MAX_SIZE), 32);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_QUEUES_MAX), 128);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE), 64);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE), 131072);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_QUEUE_TYPE), HSA_QUEUE_TYPE_MULTI);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_NODE), 1);
    CHECK_EQ_U64(u32(gpu, HSA_AGENT_INFO_DEVICE), HSA_DEVICE_TYPE_GPU);

    uint32_t caches[4] = {1, 1, 1, 1};
    CHECK_OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_CACHE_SIZE, caches));
    CHECK_EQ_U64(caches[0], 16384);
    CHECK_EQ_U64(caches[1], 4194304);
    CHECK_EQ_U64(caches[2], 134217728);
    CHECK_EQ_U64(caches[3], 0);

    hsa_isa_t isa = {0};
    CHECK_OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_ISA, &isa));
    hsa_isa_t by_name = {0};
    CHECK_OK(hsa_isa_from_name("amdgcn-amd-amdhsa--gfx1030", &by_name));
    CHECK(isa.handle != 0 && isa.handle == by_name.handle);

    uint8_t ext[129];
    memset(ext, 0xEE, sizeof ext);
    CHECK_OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_EXTENSIONS, ext));
    CHECK(ext[0] == (1 << HSA_EXTENSION_IMAGES));
    CHECK(ext[HSA_EXTENSION_AMD_PROFILER / 8] == 1 << (HSA_EXTENSION_AMD_PROFILER % 8));
    CHECK(ext[128] == 0xEE);
    CHECK_EQ_U64(u16(gpu, HSA_AGENT_INFO_VERSION_MAJOR), 1);
    CHECK_EQ_U64(u16(gpu, HSA_AGENT_INFO_VERSION_MINOR), 1);

    /* Image limits: ROCr writes them as uint32_t (one per dimension), as the handle counts,
       although hsa_ext_image.h says size_t; HIP reads them so. */
    uint32_t dims[4] = {0, 0, 0, 0xEEEEEEEE};
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS, dims));
    CHECK_EQ_U64(dims[0], 16384);
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_1DB_MAX_ELEMENTS, dims));
    CHECK_EQ_U64(dims[0], 4294967295u);
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_2D_MAX_ELEMENTS, dims));
    CHECK(dims[0] == 16384 && dims[1] == 16384);
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_3D_MAX_ELEMENTS, dims));
    CHECK(dims[0] == 16384 && dims[1] == 16384 && dims[2] == 8192);
    CHECK(dims[3] == 0xEEEEEEEE);  /* three 32-bit values, nothing beyond */
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_ARRAY_MAX_LAYERS, dims));
    CHECK_EQ_U64(dims[0], 8192);
    CHECK_EQ_U64(u32(gpu, HSA_EXT_AGENT_INFO_MAX_IMAGE_RD_HANDLES), 128);
    CHECK_EQ_U64(u32(gpu, HSA_EXT_AGENT_INFO_MAX_IMAGE_RORW_HANDLES), 64);
    /* ROCr 5.2.3 falls through from this attribute into CHIP_ID (a missing break). */
    CHECK_EQ_U64(u32(gpu, HSA_EXT_AGENT_INFO_MAX_SAMPLER_HANDLERS), 0x73BF);
    uint64_t pitch = 0;     /* in hsa_ext_image.h, answered by no agent of ROCr 5.2.3 */
    CHECK_STATUS(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_LINEAR_ROW_PITCH_ALIGNMENT, &pitch),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_CHIP_ID), 0x73BF);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_CACHELINE_SIZE), 64);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), 72);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY), 2575);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_DRIVER_NODE_ID), 1);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS), 4);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_BDFID), 768);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_MEMORY_WIDTH), 256);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY), 1000);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU), 32);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU), 2);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES), 4);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE), 2);
    hsa_amd_hdp_flush_t hdp = {NULL, NULL};
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_HDP_FLUSH, &hdp));
    CHECK(hdp.HDP_MEM_FLUSH_CNTL != NULL && hdp.HDP_REG_FLUSH_CNTL != NULL);
    if (hdp.HDP_MEM_FLUSH_CNTL && hdp.HDP_REG_FLUSH_CNTL) {   /* clients write 1 to flush */
        *hdp.HDP_MEM_FLUSH_CNTL = 1;
        *hdp.HDP_REG_FLUSH_CNTL = 1;
    }
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_DOMAIN), 0);
    CHECK_EQ_U64(flag(gpu, HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES), 0);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_ASIC_REVISION), 1);
    CHECK_EQ_U64(flag(gpu, HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS), 0);
    CHECK_EQ_U64(u32(gpu, HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT), 72);

    /* Free device memory: all of it, then less what an allocation from the GPU's pool took. */
    CHECK_EQ_U64(u64(gpu, AMD_AGENT_INFO_MEMORY_AVAIL), 17163091968ull);
    hsa_amd_memory_pool_t pool = {0};
    CHECK_STATUS(hsa_amd_agent_iterate_memory_pools(gpu, first_pool, &pool), HSA_STATUS_INFO_BREAK);
    void *block = NULL;
    CHECK_OK(hsa_amd_memory_pool_allocate(pool, 1 << 20, 0, &block));
    CHECK_EQ_U64(u64(gpu, AMD_AGENT_INFO_MEMORY_AVAIL), 17163091968ull - (1 << 20));
    CHECK_OK(hsa_amd_memory_pool_free(block));
    CHECK_EQ_U64(u64(gpu, AMD_AGENT_INFO_MEMORY_AVAIL), 17163091968ull);
    /* The GPU's: its reference clock, what s_memrealtime counts (the CPU's: the system's). */
    CHECK_EQ_U64(u64(gpu, AMD_AGENT_INFO_TIMESTAMP_FREQUENCY), 100000000u);
    CHECK_EQ_U64(u32(gpu, AMD_AGENT_INFO_ASIC_FAMILY_ID), 143);
    CHECK_EQ_U64(u32(gpu, AMD_AGENT_INFO_UCODE_VERSION), 118);
    CHECK_EQ_U64(u32(gpu, AMD_AGENT_INFO_SDMA_UCODE_VERSION), 83);
    CHECK_EQ_U64(u32(gpu, AMD_AGENT_INFO_NUM_SDMA_ENG), 2);
    CHECK_EQ_U64(u32(gpu, AMD_AGENT_INFO_NUM_SDMA_XGMI_ENG), 0);
    CHECK_EQ_U64(u32(gpu, AMD_AGENT_INFO_IOMMU_SUPPORT), 0);
    CHECK_EQ_U64(u32(gpu, AMD_AGENT_INFO_NUM_XCC), 1);
    CHECK_EQ_U64(u32(gpu, AMD_AGENT_INFO_DRIVER_UID), 1);
    hsa_agent_t nearest = {0};
    CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)AMD_AGENT_INFO_NEAREST_CPU, &nearest));
    CHECK_EQ_U64(nearest.handle, cpu.handle);
    check_empty_mask(gpu, AMD_AGENT_INFO_MEMORY_PROPERTIES);
    check_empty_mask(gpu, AMD_AGENT_INFO_AQL_EXTENSIONS);

    uint32_t v;
    CHECK_STATUS(hsa_agent_get_info(gpu, (hsa_agent_info_t)25, &v), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_info(gpu, (hsa_agent_info_t)0xA0FF, &v), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void check_cpu(hsa_agent_t cpu) {
    check_text(cpu, HSA_AGENT_INFO_VENDOR_NAME, 64, "CPU");
    check_text(cpu, HSA_AMD_AGENT_INFO_UUID, 7, "CPU-XX");
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_FEATURE), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_MACHINE_MODEL), HSA_MACHINE_MODEL_LARGE);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_PROFILE), HSA_PROFILE_FULL);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE), HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES),
                 HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR);
    CHECK_EQ_U64(flag(cpu, HSA_AGENT_INFO_FAST_F16_OPERATION), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_WAVEFRONT_SIZE), 0);
    uint16_t wg_dim[3] = {9, 9, 9};
    CHECK_OK(hsa_agent_get_info(cpu, HSA_AGENT_INFO_WORKGROUP_MAX_DIM, wg_dim));
    CHECK(wg_dim[0] == 0 && wg_dim[1] == 0 && wg_dim[2] == 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE), 0);
    hsa_dim3_t grid = {9, 9, 9};
    CHECK_OK(hsa_agent_get_info(cpu, HSA_AGENT_INFO_GRID_MAX_DIM, &grid));
    CHECK(grid.x == 0 && grid.y == 0 && grid.z == 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_GRID_MAX_SIZE), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_FBARRIER_MAX_SIZE), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_QUEUES_MAX), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_QUEUE_MIN_SIZE), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_QUEUE_TYPE), HSA_QUEUE_TYPE_MULTI);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_NODE), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AGENT_INFO_DEVICE), HSA_DEVICE_TYPE_CPU);
    hsa_isa_t isa = {77};
    CHECK_OK(hsa_agent_get_info(cpu, HSA_AGENT_INFO_ISA, &isa));
    CHECK_EQ_U64(isa.handle, 0);
    uint8_t ext[128];
    memset(ext, 0xEE, sizeof ext);
    CHECK_OK(hsa_agent_get_info(cpu, HSA_AGENT_INFO_EXTENSIONS, ext));
    int set = 0;
    for (int i = 0; i < 128; i++) set |= ext[i];
    CHECK_EQ_U64(set, 0);
    CHECK_EQ_U64(u16(cpu, HSA_AGENT_INFO_VERSION_MAJOR), 1);
    CHECK_EQ_U64(u16(cpu, HSA_AGENT_INFO_VERSION_MINOR), 1);

    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_CHIP_ID), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_CACHELINE_SIZE), 64);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_DRIVER_NODE_ID), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS), 1);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_BDFID), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE), 0);
    hsa_amd_hdp_flush_t hdp = {(uint32_t *)1, (uint32_t *)1};
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_HDP_FLUSH, &hdp));
    CHECK(hdp.HDP_MEM_FLUSH_CNTL == NULL && hdp.HDP_REG_FLUSH_CNTL == NULL);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_DOMAIN), 0);
    CHECK_EQ_U64(u32(cpu, HSA_AMD_AGENT_INFO_ASIC_REVISION), 0);
    /* ROCr 5.2.3's CPU agent refused this; the newest answers true (rocminfo 7 stops at a
       refusal), as for a GPU that reaches host memory directly. */
    bool svm = false;
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS, &svm));
    CHECK(svm);
    CHECK_EQ_U64(u64(cpu, AMD_AGENT_INFO_TIMESTAMP_FREQUENCY), 1000000000u);
    CHECK_EQ_U64(u32(cpu, AMD_AGENT_INFO_ASIC_FAMILY_ID), 0);
    CHECK_EQ_U64(u32(cpu, AMD_AGENT_INFO_NUM_SDMA_ENG), 0);
    hsa_agent_t nearest = {77};
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)AMD_AGENT_INFO_NEAREST_CPU, &nearest));
    CHECK_EQ_U64(nearest.handle, 0);
    check_empty_mask(cpu, AMD_AGENT_INFO_MEMORY_PROPERTIES);
    check_empty_mask(cpu, AMD_AGENT_INFO_AQL_EXTENSIONS);

    uint32_t dims[3] = {9, 9, 9};
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_3D_MAX_ELEMENTS, dims));
    CHECK(dims[0] == 0 && dims[1] == 0 && dims[2] == 0);
    CHECK_EQ_U64(u32(cpu, HSA_EXT_AGENT_INFO_MAX_IMAGE_RD_HANDLES), 0);

    /* ROCr's CPU agent does not answer these. */
    uint64_t v;
    CHECK_STATUS(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_MEMORY_WIDTH, &v),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY, &v),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES, &v),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT, &v),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_info(cpu, (hsa_agent_info_t)AMD_AGENT_INFO_MEMORY_AVAIL, &v),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void check_extensions(hsa_agent_t cpu, hsa_agent_t gpu) {
    bool yes = false;
    uint16_t minor = 7;
    CHECK_OK(hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, gpu, 1, 0, &yes));
    CHECK(yes);
    CHECK_OK(hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, gpu, 1, 1, &yes));
    CHECK(!yes);
    CHECK_OK(hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, cpu, 1, 0, &yes));
    CHECK(!yes);
    CHECK_STATUS(hsa_agent_extension_supported(9, gpu, 1, 0, &yes), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, gpu, 1, 0, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_agent_t forged = {gpu.handle ^ 0x100000000ull};
    yes = true;
    CHECK_STATUS(hsa_agent_extension_supported(HSA_EXTENSION_IMAGES, forged, 1, 0, &yes),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK(!yes);   /* ROCr clears the result before it checks the agent */

    CHECK_OK(hsa_agent_major_extension_supported(HSA_EXTENSION_AMD_LOADER, gpu, 1, &minor, &yes));
    CHECK(yes);
    CHECK_EQ_U64(minor, 0);
    CHECK_OK(hsa_agent_major_extension_supported(HSA_EXTENSION_AMD_LOADER, gpu, 2, &minor, &yes));
    CHECK(!yes);
    CHECK_OK(hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, cpu, 1, &minor, &yes));
    CHECK(!yes);
    CHECK_STATUS(hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, gpu, 1, NULL, &yes),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_major_extension_supported(HSA_EXTENSION_IMAGES, forged, 1, &minor, &yes),
                 HSA_STATUS_ERROR_INVALID_AGENT);

    uint16_t mask = 0xFFFF;
    CHECK_OK(hsa_agent_get_exception_policies(gpu, HSA_PROFILE_BASE, &mask));
    CHECK_EQ_U64(mask, 0);
    CHECK_STATUS(hsa_agent_get_exception_policies(gpu, (hsa_profile_t)2, &mask), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_exception_policies(gpu, HSA_PROFILE_FULL, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_agent_get_exception_policies(forged, HSA_PROFILE_FULL, &mask), HSA_STATUS_ERROR_INVALID_AGENT);
}

int main(void) {
    CHECK_OK(hsa_init());
    agents_t agents = {.count = 0};
    CHECK_OK(hsa_iterate_agents(collect_agent, &agents));
    CHECK_EQ_U64(agents.count, 2);
    if (agents.count == 2) {
        CHECK_EQ_U64(u32(agents.list[0], HSA_AGENT_INFO_DEVICE), HSA_DEVICE_TYPE_CPU);   /* CPU first */
        check_cpu(agents.list[0]);
        check_gpu(agents.list[1], agents.list[0]);
        check_extensions(agents.list[0], agents.list[1]);
    }
    CHECK_OK(hsa_shut_down());
    return check_report();
}
