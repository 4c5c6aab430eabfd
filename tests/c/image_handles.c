/* Samplers, hsa_amd_image_create with foreign metadata, and handles that must not
 * resolve: forged, destroyed, of the other kind, or from before hsa_shut_down. */
#include "image_util.h"

static void samplers(img_env_t *env) {
    hsa_ext_sampler_descriptor_t desc = {HSA_EXT_SAMPLER_COORDINATE_MODE_UNNORMALIZED,
                                         HSA_EXT_SAMPLER_FILTER_MODE_LINEAR,
                                         HSA_EXT_SAMPLER_ADDRESSING_MODE_CLAMP_TO_BORDER};
    hsa_ext_sampler_t sampler;
    CHECK_OK(hsa_ext_sampler_create(env->gpu, &desc, &sampler));
    CHECK(sampler.handle != 0 && sampler.handle % 16 == 0);
    const uint32_t *s = (const uint32_t *)(uintptr_t)sampler.handle;
    CHECK_EQ_U64(s[0], 6 | 6 << 3 | 6 << 6 | 1 << 15);          /* CLAMP_BORDER x3, unnormalized */
    CHECK_EQ_U64((s[1] >> 12) & 0xfff, 4095);                    /* MAX_LOD */
    CHECK_EQ_U64((s[2] >> 20) & 0xf, 1 | 1 << 2);                /* bilinear mag and min */
    CHECK_EQ_U64(s[3] >> 30, 0);                                 /* transparent black border */
    hsa_ext_sampler_t other;
    desc.address_mode = HSA_EXT_SAMPLER_ADDRESSING_MODE_UNDEFINED;
    desc.coordinate_mode = HSA_EXT_SAMPLER_COORDINATE_MODE_NORMALIZED;
    CHECK_OK(hsa_ext_sampler_create(env->gpu, &desc, &other));
    CHECK(other.handle != sampler.handle);
    CHECK_EQ_U64(((const uint32_t *)(uintptr_t)other.handle)[0], 0);   /* wrap, normalized */

    /* Failed creations clear the handle first, as ROCr does. */
    hsa_ext_sampler_t scratch = {1};
    hsa_ext_sampler_descriptor_t bad = desc;
    bad.address_mode = 5;
    CHECK_STATUS(hsa_ext_sampler_create(env->gpu, &bad, &scratch), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    bad = desc;
    bad.filter_mode = 2;
    CHECK_STATUS(hsa_ext_sampler_create(env->gpu, &bad, &scratch), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    bad = desc;
    bad.coordinate_mode = 2;
    CHECK_STATUS(hsa_ext_sampler_create(env->gpu, &bad, &scratch), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_create(env->gpu, NULL, &scratch), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_create(env->gpu, &desc, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_create(env->gpu, (const hsa_ext_sampler_descriptor_t *)8, &scratch),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_create(env->cpu, &desc, &scratch), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_sampler_create((hsa_agent_t){0}, &desc, &scratch), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_sampler_create((hsa_agent_t){42}, &desc, &scratch), HSA_STATUS_ERROR_INVALID_AGENT);

    CHECK_EQ_U64(scratch.handle, 0);
    CHECK_OK(hsa_ext_sampler_destroy(env->gpu, sampler));
    CHECK_STATUS(hsa_ext_sampler_destroy(env->gpu, sampler), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_destroy(env->gpu, (hsa_ext_sampler_t){0}), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_destroy((hsa_agent_t){0}, other), HSA_STATUS_ERROR_INVALID_AGENT);
    /* A sampler is no image, and an image no sampler. */
    CHECK_STATUS(hsa_ext_image_destroy(env->gpu, (hsa_ext_image_t){other.handle}),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_ext_image_descriptor_t idesc = img_desc(HSA_EXT_IMAGE_GEOMETRY_1D, 64, 0, 0, 0,
                                                HSA_EXT_IMAGE_CHANNEL_ORDER_R, HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8);
    hsa_ext_image_t image;
    void *data = img_create(env, &idesc, &image);
    CHECK_STATUS(hsa_ext_sampler_destroy(env->gpu, (hsa_ext_sampler_t){image.handle}),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_ext_image_destroy(env->gpu, image));
    CHECK_OK(hsa_ext_sampler_destroy(env->gpu, other));
    CHECK_OK(hsa_amd_memory_pool_free(data));
}

/* hsa_amd_image_descriptor_t with the 8 dwords of a gfx10 T# after version and device. */
typedef struct {
    uint32_t version, device_id, words[8];
} amd_layout_t;

static void amd_create(img_env_t *env) {
    uint32_t chip = 0;
    MUST(hsa_agent_get_info(env->gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CHIP_ID, &chip));
    amd_layout_t layout = {1, 0x1002u << 16 | chip, {0}};
    layout.words[4] = 127;                      /* pitch - 1: rows of 128 elements */
    layout.words[6] = 0x01u << 24;              /* metadata 256 bytes past the data */
    hsa_ext_image_descriptor_t desc = img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 100, 16, 0, 0,
                                               HSA_EXT_IMAGE_CHANNEL_ORDER_R, HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT16);
    void *data;
    MUST(hsa_amd_memory_pool_allocate(env->device, 1 << 16, 0, &data));
    hsa_amd_image_descriptor_t *amd = (hsa_amd_image_descriptor_t *)&layout;
    hsa_ext_image_t image;
    CHECK_OK(hsa_amd_image_create(env->gpu, &desc, amd, data, HSA_ACCESS_PERMISSION_RW, &image));
    const uint32_t *srd = (const uint32_t *)(uintptr_t)image.handle;
    uint64_t base = (uint64_t)(uintptr_t)data, meta = base + 256;
    CHECK_EQ_U64(srd[0], (uint32_t)(base >> 8));
    CHECK_EQ_U64((srd[1] >> 20) & 0x1ff, 11);                    /* 16 UINT */
    CHECK_EQ_U64(srd[3] & 0xfff, 4 | 0 << 3 | 0 << 6 | 1 << 9);  /* X, 0, 0, 1 */
    CHECK_EQ_U64(srd[4], 127);
    CHECK_EQ_U64(srd[6] >> 24, (meta >> 8) & 0xff);
    CHECK_EQ_U64(srd[7], (uint32_t)(meta >> 16));
    /* Host copies follow the descriptor's pitch: row 1 starts 256 bytes in. */
    uint16_t row[100];
    for (int i = 0; i < 100; i++) row[i] = (uint16_t)(i + 1);
    hsa_ext_image_region_t second = {{0, 1, 0}, {100, 1, 1}};
    CHECK_OK(hsa_ext_image_import(env->gpu, row, 0, 0, image, &second));
    CHECK_EQ_U64(((uint16_t *)data)[128], 1);
    CHECK_EQ_U64(((uint16_t *)data)[128 + 99], 100);
    CHECK_OK(hsa_ext_image_destroy(env->gpu, image));

    CHECK_STATUS(hsa_amd_image_create(env->gpu, &desc, amd, (char *)data + 128, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ALLOCATION);
    layout.version = 2;
    CHECK_STATUS(hsa_amd_image_create(env->gpu, &desc, amd, data, HSA_ACCESS_PERMISSION_RW, &image),
                 IMG_FORMAT_UNSUPPORTED);
    layout.version = 1;
    layout.device_id = 0x10de0000;
    CHECK_STATUS(hsa_amd_image_create(env->gpu, &desc, amd, data, HSA_ACCESS_PERMISSION_RW, &image),
                 IMG_FORMAT_UNSUPPORTED);
    CHECK_STATUS(hsa_amd_image_create(env->cpu, &desc, amd, data, HSA_ACCESS_PERMISSION_RW, &image),
                 IMG_FORMAT_UNSUPPORTED);
    layout.device_id = 0x1002u << 16 | chip;
    hsa_ext_image_descriptor_t abgr = desc;
    abgr.format.channel_order = HSA_EXT_IMAGE_CHANNEL_ORDER_ABGR;
    CHECK_STATUS(hsa_amd_image_create(env->gpu, &abgr, amd, data, HSA_ACCESS_PERMISSION_RW, &image),
                 IMG_FORMAT_UNSUPPORTED);
    CHECK_STATUS(hsa_amd_image_create(env->gpu, &desc, NULL, data, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_image_create(env->gpu, NULL, amd, data, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_image_create(env->gpu, &desc, amd, NULL, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_image_create(env->gpu, &desc, amd, data, HSA_ACCESS_PERMISSION_RW, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_image_create(env->gpu, &desc, amd, data, HSA_ACCESS_PERMISSION_RW, (hsa_ext_image_t *)8),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_image_create((hsa_agent_t){0}, &desc, amd, data, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_OK(hsa_amd_memory_pool_free(data));
}

int main(void) {
    img_env_t env = img_setup();
    samplers(&env);
    amd_create(&env);

    /* Handles die with the session. */
    hsa_ext_image_descriptor_t desc = img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 8, 8, 0, 0,
                                               HSA_EXT_IMAGE_CHANNEL_ORDER_R, HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT);
    hsa_ext_image_t image;
    img_create(&env, &desc, &image);
    hsa_ext_sampler_descriptor_t sdesc = {0, 0, 0};
    hsa_ext_sampler_t sampler;
    CHECK_OK(hsa_ext_sampler_create(env.gpu, &sdesc, &sampler));
    CHECK_OK(hsa_shut_down());
    CHECK_STATUS(hsa_ext_image_destroy(env.gpu, image), HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_STATUS(hsa_ext_sampler_create(env.gpu, &sdesc, &sampler), HSA_STATUS_ERROR_NOT_INITIALIZED);
    img_env_t again = img_setup();
    CHECK_STATUS(hsa_ext_image_destroy(again.gpu, image), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_sampler_destroy(again.gpu, sampler), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
