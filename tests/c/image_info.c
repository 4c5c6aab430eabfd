/* Image capabilities, data sizes and limits as ROCr answers them for gfx1030, with every
 * error of the query functions. */
#include "image_util.h"

#define RW_CAPS (HSA_EXT_IMAGE_CAPABILITY_READ_ONLY | HSA_EXT_IMAGE_CAPABILITY_WRITE_ONLY | \
                 HSA_EXT_IMAGE_CAPABILITY_READ_WRITE)

static uint32_t capability(hsa_agent_t agent, hsa_ext_image_geometry_t geometry,
                           hsa_ext_image_channel_order_t order, hsa_ext_image_channel_type_t type) {
    hsa_ext_image_format_t format = {type, order};
    uint32_t mask = 0xdead;
    CHECK_OK(hsa_ext_image_get_capability(agent, geometry, &format, &mask));
    return mask;
}

static void capabilities(img_env_t *env) {
    hsa_agent_t gpu = env->gpu;
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), RW_CAPS);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_3D, HSA_EXT_IMAGE_CHANNEL_ORDER_R,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), RW_CAPS);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, HSA_EXT_IMAGE_CHANNEL_ORDER_SRGBA,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), HSA_EXT_IMAGE_CAPABILITY_READ_ONLY);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2DDEPTH, HSA_EXT_IMAGE_CHANNEL_ORDER_DEPTH,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT),
                 HSA_EXT_IMAGE_CAPABILITY_READ_ONLY | HSA_EXT_IMAGE_CAPABILITY_WRITE_ONLY);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, HSA_EXT_IMAGE_CHANNEL_ORDER_RGB,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_565), RW_CAPS);
    /* Not in ROCr's table, or not on that geometry. */
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, HSA_EXT_IMAGE_CHANNEL_ORDER_ABGR,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), 0);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, HSA_EXT_IMAGE_CHANNEL_ORDER_BGRA,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), 0);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2DDEPTH, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), 0);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_1DB, HSA_EXT_IMAGE_CHANNEL_ORDER_SRGBA,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), 0);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_1DB, HSA_EXT_IMAGE_CHANNEL_ORDER_RGB,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_565), 0);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_1DB, HSA_EXT_IMAGE_CHANNEL_ORDER_RGB,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_SHORT_101010), RW_CAPS);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, HSA_EXT_IMAGE_CHANNEL_ORDER_DEPTH,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT24), 0);
    CHECK_EQ_U64(capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, (hsa_ext_image_channel_order_t)77,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), 0);
    /* Images are a GPU feature: the CPU agent supports no format. */
    CHECK_EQ_U64(capability(env->cpu, HSA_EXT_IMAGE_GEOMETRY_2D, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA,
                            HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), 0);

    hsa_ext_image_format_t format = {HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA};
    uint32_t mask = 0;
    CHECK_OK(hsa_ext_image_get_capability_with_layout(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, &format,
                                                      HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, &mask));
    CHECK_EQ_U64(mask, RW_CAPS);
    /* ROCr takes only the linear layout in the *_with_layout calls. */
    CHECK_STATUS(hsa_ext_image_get_capability_with_layout(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, &format,
                                                          HSA_EXT_IMAGE_DATA_LAYOUT_OPAQUE, &mask),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_get_capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, NULL, &mask),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_get_capability(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, &format, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_get_capability(gpu, (hsa_ext_image_geometry_t)8, &format, &mask),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_get_capability_with_layout(gpu, HSA_EXT_IMAGE_GEOMETRY_2D, NULL,
                                                          HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, &mask),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_agent_t none = {0}, forged = {0x1234567};
    CHECK_STATUS(hsa_ext_image_get_capability(none, HSA_EXT_IMAGE_GEOMETRY_2D, &format, &mask),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_image_get_capability(forged, HSA_EXT_IMAGE_GEOMETRY_2D, &format, &mask),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_image_get_capability(forged, HSA_EXT_IMAGE_GEOMETRY_2D, NULL, &mask),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_get_capability((hsa_agent_t){(uint64_t)-1}, HSA_EXT_IMAGE_GEOMETRY_2D,
                                              (const hsa_ext_image_format_t *)8, &mask),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static hsa_status_t info(hsa_agent_t agent, hsa_ext_image_descriptor_t desc, hsa_ext_image_data_info_t *out) {
    return hsa_ext_image_data_get_info(agent, &desc, HSA_ACCESS_PERMISSION_RW, out);
}

static hsa_status_t linear(hsa_agent_t agent, hsa_ext_image_descriptor_t desc, size_t row, size_t slice,
                           hsa_ext_image_data_info_t *out) {
    return hsa_ext_image_data_get_info_with_layout(agent, &desc, HSA_ACCESS_PERMISSION_RO,
                                                   HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, row, slice, out);
}

static void sizes(img_env_t *env) {
    hsa_agent_t gpu = env->gpu;
    hsa_ext_image_data_info_t out;
    /* Rows pad to 256 bytes (64 RGBA8 elements), the base aligns to 256. */
    CHECK_OK(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 100, 50, 0, 0, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA,
                                HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), &out));
    CHECK_EQ_U64(out.size, 128 * 4 * 50);
    CHECK_EQ_U64(out.alignment, 256);
    CHECK_OK(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_3D, 10, 10, 4, 0, HSA_EXT_IMAGE_CHANNEL_ORDER_R,
                                HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT8), &out));
    CHECK_EQ_U64(out.size, 256 * 10 * 4);
    CHECK_OK(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_1DA, 10, 0, 0, 5, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA,
                                HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), &out));
    CHECK_EQ_U64(out.size, 256 * 5);
    CHECK_OK(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_1DB, 1000, 0, 0, 0, HSA_EXT_IMAGE_CHANNEL_ORDER_RG,
                                HSA_EXT_IMAGE_CHANNEL_TYPE_HALF_FLOAT), &out));
    CHECK_EQ_U64(out.size, 1024 * 4);
    CHECK_OK(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_2DADEPTH, 64, 64, 0, 3, HSA_EXT_IMAGE_CHANNEL_ORDER_DEPTH,
                                HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT16), &out));
    CHECK_EQ_U64(out.size, 128 * 2 * 64 * 3);

    /* Linear layout: a pitch of 0 means width * element size, which the address library
     * must accept (a multiple of 256 bytes) or ROCr fails with its generic error. */
    hsa_ext_image_descriptor_t wide = img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 128, 8, 0, 0,
                                               HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA, HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8);
    hsa_ext_image_descriptor_t odd = img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 100, 8, 0, 0,
                                              HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA, HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8);
    CHECK_OK(linear(gpu, wide, 0, 0, &out));
    CHECK_EQ_U64(out.size, 512 * 8);
    CHECK_STATUS(linear(gpu, odd, 0, 0, &out), HSA_STATUS_ERROR);
    CHECK_OK(linear(gpu, odd, 1024, 0, &out));
    CHECK_EQ_U64(out.size, 1024 * 8);
    CHECK_STATUS(linear(gpu, odd, 800, 0, &out), HSA_STATUS_ERROR);          /* 200 elements: not 64-aligned */
    CHECK_STATUS(linear(gpu, odd, 256, 0, &out), HSA_STATUS_ERROR);          /* narrower than the image */
    CHECK_STATUS(linear(gpu, odd, 1026, 0, &out), IMG_PITCH_UNSUPPORTED);    /* not whole elements */
    CHECK_OK(linear(gpu, odd, 1024, 1024 * 8, &out));
    CHECK_STATUS(linear(gpu, odd, 1024, 4096, &out), IMG_PITCH_UNSUPPORTED);
    hsa_ext_image_descriptor_t array = img_desc(HSA_EXT_IMAGE_GEOMETRY_2DA, 64, 4, 0, 3,
                                                HSA_EXT_IMAGE_CHANNEL_ORDER_R, HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT);
    CHECK_OK(linear(gpu, array, 0, 0, &out));
    CHECK_EQ_U64(out.size, 256 * 4 * 3);
    CHECK_STATUS(linear(gpu, array, 0, 256 * 4 + 256, &out), IMG_PITCH_UNSUPPORTED);
    CHECK_STATUS(hsa_ext_image_data_get_info_with_layout(gpu, &wide, HSA_ACCESS_PERMISSION_RW,
                                                         HSA_EXT_IMAGE_DATA_LAYOUT_OPAQUE, 0, 0, &out),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* Unsupported formats and dimensions beyond the profile's limits. A failed query
     * leaves size and alignment 0, as ROCr clears them first. */
    memset(&out, 0xff, sizeof out);
    CHECK_STATUS(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 8, 8, 0, 0, HSA_EXT_IMAGE_CHANNEL_ORDER_ABGR,
                                    HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8), &out), IMG_FORMAT_UNSUPPORTED);
    CHECK_EQ_U64(out.size, 0);
    CHECK_EQ_U64(out.alignment, 0);
    CHECK_STATUS(info(env->cpu, wide, &out), IMG_FORMAT_UNSUPPORTED);
    CHECK_STATUS(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 16385, 8, 0, 0, HSA_EXT_IMAGE_CHANNEL_ORDER_R,
                                    HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), &out), IMG_SIZE_UNSUPPORTED);
    CHECK_STATUS(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_1D, 64, 2, 0, 0, HSA_EXT_IMAGE_CHANNEL_ORDER_R,
                                    HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), &out), IMG_SIZE_UNSUPPORTED);
    CHECK_STATUS(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 64, 2, 0, 2, HSA_EXT_IMAGE_CHANNEL_ORDER_R,
                                    HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), &out), IMG_SIZE_UNSUPPORTED);
    CHECK_STATUS(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_3D, 64, 64, 8193, 0, HSA_EXT_IMAGE_CHANNEL_ORDER_R,
                                    HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), &out), IMG_SIZE_UNSUPPORTED);
    CHECK_STATUS(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_2DA, 64, 64, 0, 8193, HSA_EXT_IMAGE_CHANNEL_ORDER_R,
                                    HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), &out), IMG_SIZE_UNSUPPORTED);
    /* The largest 2D image is fine: sizes are computed, not allocated. */
    CHECK_OK(info(gpu, img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 16384, 16384, 0, 0, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA,
                                HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT), &out));
    CHECK_EQ_U64(out.size, (uint64_t)16384 * 16384 * 16);

    /* Argument errors. */
    CHECK_STATUS(hsa_ext_image_data_get_info(gpu, NULL, HSA_ACCESS_PERMISSION_RW, &out),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_data_get_info(gpu, &wide, HSA_ACCESS_PERMISSION_RW, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_data_get_info(gpu, &wide, (hsa_access_permission_t)7, &out),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_data_get_info(gpu, &wide, (hsa_access_permission_t)0, &out),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_data_get_info_with_layout(gpu, NULL, HSA_ACCESS_PERMISSION_RW,
                                                         HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, 0, 0, &out),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_ext_image_descriptor_t bad = wide;
    bad.geometry = (hsa_ext_image_geometry_t)9;
    CHECK_STATUS(info(gpu, bad, &out), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_data_get_info(gpu, (const hsa_ext_image_descriptor_t *)16,
                                             HSA_ACCESS_PERMISSION_RW, &out),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(info((hsa_agent_t){0}, wide, &out), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(info((hsa_agent_t){0x77}, wide, &out), HSA_STATUS_ERROR_INVALID_AGENT);
}

static void limits(img_env_t *env) {
    uint32_t one = 0, two[2] = {0}, three[3] = {0};
    CHECK_OK(hsa_amd_image_get_info_max_dim(env->gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS, &one));
    CHECK_EQ_U64(one, 16384);
    CHECK_OK(hsa_amd_image_get_info_max_dim(env->gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_1DB_MAX_ELEMENTS, &one));
    CHECK_EQ_U64(one, 4294967295u);
    CHECK_OK(hsa_amd_image_get_info_max_dim(env->gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_2DA_MAX_ELEMENTS, two));
    CHECK(two[0] == 16384 && two[1] == 16384);
    CHECK_OK(hsa_amd_image_get_info_max_dim(env->gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_3D_MAX_ELEMENTS, three));
    CHECK(three[0] == 16384 && three[1] == 16384 && three[2] == 8192);   /* ROCr's gfx10 limits */
    CHECK_OK(hsa_amd_image_get_info_max_dim(env->gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_ARRAY_MAX_LAYERS, &one));
    CHECK_EQ_U64(one, 8192);
    /* The same numbers hsa_agent_get_info gives. */
    size_t via_agent = 0;
    CHECK_OK(hsa_agent_get_info(env->gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_ARRAY_MAX_LAYERS, &via_agent));
    CHECK_EQ_U64(via_agent, one);
    /* A CPU has no images: zeros. */
    three[0] = three[1] = three[2] = 7;
    CHECK_OK(hsa_amd_image_get_info_max_dim(env->cpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_3D_MAX_ELEMENTS, three));
    CHECK(three[0] == 0 && three[1] == 0 && three[2] == 0);
    CHECK_STATUS(hsa_amd_image_get_info_max_dim(env->gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_MAX_SAMPLER_HANDLERS, &one),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_image_get_info_max_dim(env->gpu, HSA_AGENT_INFO_NAME, &one),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_image_get_info_max_dim(env->gpu, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_amd_image_get_info_max_dim((hsa_agent_t){0}, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS, &one),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_amd_image_get_info_max_dim((hsa_agent_t){99}, (hsa_agent_info_t)HSA_EXT_AGENT_INFO_IMAGE_1D_MAX_ELEMENTS, &one),
                 HSA_STATUS_ERROR_INVALID_AGENT);
}

int main(void) {
    img_env_t env = img_setup();
    capabilities(&env);
    sizes(&env);
    limits(&env);
    CHECK_OK(hsa_shut_down());
    hsa_ext_image_format_t format = {HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA};
    uint32_t mask;
    CHECK_STATUS(hsa_ext_image_get_capability(env.gpu, HSA_EXT_IMAGE_GEOMETRY_2D, &format, &mask),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
    return check_report();
}
