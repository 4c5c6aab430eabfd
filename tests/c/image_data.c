/* Image creation (opaque and linear layouts), the gfx1030 descriptor behind the handle,
 * and import/export/clear/copy with every error they answer. */
#include "image_util.h"

#define W 64
#define H 32

static void descriptor(img_env_t *env) {
    hsa_ext_image_descriptor_t desc = img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, W, H, 0, 0,
                                               HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA, HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8);
    hsa_ext_image_t image;
    void *data = img_create(env, &desc, &image);
    /* The handle is the device address of a 16-byte aligned descriptor object. */
    CHECK(image.handle != 0 && image.handle % 16 == 0);
    const uint32_t *srd = (const uint32_t *)(uintptr_t)image.handle;
    uint64_t base = (uint64_t)(uintptr_t)data;
    CHECK_EQ_U64(srd[0], (uint32_t)(base >> 8));
    CHECK_EQ_U64(srd[1] & 0xff, (base >> 40) & 0xff);
    CHECK_EQ_U64((srd[1] >> 20) & 0x1ff, 56);                                   /* 8_8_8_8 UNORM */
    CHECK_EQ_U64(((srd[2] & 0xfff) << 2) | (srd[1] >> 30), W - 1);             /* width - 1 */
    CHECK_EQ_U64((srd[2] >> 14) & 0x3fff, H - 1);
    CHECK_EQ_U64(srd[3] & 0xfff, 4 | 5 << 3 | 6 << 6 | 7 << 9);               /* X, Y, Z, W */
    CHECK_EQ_U64(srd[3] >> 28, 9);                                             /* SQ_RSRC_IMG_2D */
    CHECK_EQ_U64(srd[4] & 0x3fff, W - 1);                                      /* gfx1030: pitch - 1 */
    CHECK_EQ_U64(srd[8], HSA_EXT_IMAGE_CHANNEL_TYPE_UNORM_INT8);
    CHECK_EQ_U64(srd[9], HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA);
    CHECK_EQ_U64(srd[10], W);
    CHECK_OK(hsa_ext_image_destroy(env->gpu, image));
    CHECK_STATUS(hsa_ext_image_destroy(env->gpu, image), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* A 1DB image is a buffer resource: byte address, stride, records. */
    hsa_ext_image_descriptor_t buffer = img_desc(HSA_EXT_IMAGE_GEOMETRY_1DB, 1000, 0, 0, 0,
                                                 HSA_EXT_IMAGE_CHANNEL_ORDER_R, HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT);
    CHECK_OK(hsa_ext_image_create(env->gpu, &buffer, data, HSA_ACCESS_PERMISSION_RO, &image));
    srd = (const uint32_t *)(uintptr_t)image.handle;
    CHECK_EQ_U64(srd[0], (uint32_t)base);
    CHECK_EQ_U64((srd[1] >> 16) & 0x3fff, 4);
    CHECK_EQ_U64(srd[2], 4000);
    CHECK_EQ_U64((srd[3] >> 12) & 0x7f, 22);                                   /* 32 FLOAT */
    CHECK_OK(hsa_ext_image_destroy(env->gpu, image));
    CHECK_OK(hsa_amd_memory_pool_free(data));
}

static void creation_errors(img_env_t *env) {
    hsa_ext_image_descriptor_t desc = img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, 100, 10, 0, 0,
                                               HSA_EXT_IMAGE_CHANNEL_ORDER_R, HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT);
    void *data;
    MUST(hsa_amd_memory_pool_allocate(env->device, 1 << 20, 0, &data));
    hsa_ext_image_t image = {1};
    CHECK_STATUS(hsa_ext_image_create(env->gpu, NULL, data, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_create(env->gpu, &desc, NULL, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_create(env->gpu, &desc, data, HSA_ACCESS_PERMISSION_RW, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_create((hsa_agent_t){0}, &desc, data, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_image_create((hsa_agent_t){5}, &desc, data, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_EQ_U64(image.handle, 0);                           /* cleared before validation, as ROCr */
    /* Data must be aligned to the layout's alignment (256). */
    CHECK_STATUS(hsa_ext_image_create(env->gpu, &desc, (char *)data + 64, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* ... and be memory the device reaches: the whole image inside one allocation. */
    static char host[1 << 16] __attribute__((aligned(256)));
    CHECK_STATUS(hsa_ext_image_create(env->gpu, &desc, host, HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_create(env->gpu, &desc, (char *)data + (1 << 20) - 4096,
                                      HSA_ACCESS_PERMISSION_RW, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_ext_image_descriptor_t abgr = desc;
    abgr.format.channel_order = HSA_EXT_IMAGE_CHANNEL_ORDER_ABGR;
    CHECK_STATUS(hsa_ext_image_create(env->gpu, &abgr, data, HSA_ACCESS_PERMISSION_RW, &image),
                 IMG_FORMAT_UNSUPPORTED);
    CHECK_STATUS(hsa_ext_image_create(env->cpu, &desc, data, HSA_ACCESS_PERMISSION_RW, &image),
                 IMG_FORMAT_UNSUPPORTED);
    hsa_ext_image_descriptor_t huge = desc;
    huge.width = 1 << 20;
    CHECK_STATUS(hsa_ext_image_create(env->gpu, &huge, data, HSA_ACCESS_PERMISSION_RW, &image),
                 IMG_SIZE_UNSUPPORTED);

    /* Linear layout: the caller's pitch, or the address library's refusal. */
    CHECK_OK(hsa_ext_image_create_with_layout(env->gpu, &desc, data, HSA_ACCESS_PERMISSION_RW,
                                              HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, 1024, 0, &image));
    CHECK_EQ_U64(((const uint32_t *)(uintptr_t)image.handle)[4] & 0x3fff, 255);
    CHECK_OK(hsa_ext_image_destroy(env->gpu, image));
    CHECK_STATUS(hsa_ext_image_create_with_layout(env->gpu, &desc, data, HSA_ACCESS_PERMISSION_RW,
                                                  HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, 0, 0, &image),
                 HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_ext_image_create_with_layout(env->gpu, &desc, data, HSA_ACCESS_PERMISSION_RW,
                                                  HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, 1026, 0, &image),
                 IMG_PITCH_UNSUPPORTED);
    CHECK_STATUS(hsa_ext_image_create_with_layout(env->gpu, &desc, data, HSA_ACCESS_PERMISSION_RW,
                                                  HSA_EXT_IMAGE_DATA_LAYOUT_OPAQUE, 1024, 0, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_create_with_layout(env->gpu, &desc, NULL, HSA_ACCESS_PERMISSION_RW,
                                                  HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, 1024, 0, &image),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_create_with_layout((hsa_agent_t){0}, &desc, data, HSA_ACCESS_PERMISSION_RW,
                                                  HSA_EXT_IMAGE_DATA_LAYOUT_LINEAR, 1024, 0, &image),
                 HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_OK(hsa_amd_memory_pool_free(data));
}

static void data_paths(img_env_t *env) {
    hsa_ext_image_descriptor_t desc = img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, W, H, 0, 0,
                                               HSA_EXT_IMAGE_CHANNEL_ORDER_R, HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT32);
    hsa_ext_image_t a, b;
    void *data_a = img_create(env, &desc, &a);
    void *data_b = img_create(env, &desc, &b);
    static uint32_t in[H][W], out[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) in[y][x] = (uint32_t)(y * 1000 + x);
    hsa_ext_image_region_t all = {{0, 0, 0}, {W, H, 1}};
    CHECK_OK(hsa_ext_image_import(env->gpu, in, 0, 0, a, &all));
    CHECK_OK(hsa_ext_image_export(env->gpu, a, out, 0, 0, &all));
    CHECK(memcmp(in, out, sizeof in) == 0);

    /* Clear a window of b, then copy a window of a beside it. */
    uint32_t seven[4] = {7, 0, 0, 0};
    hsa_ext_image_region_t window = {{4, 2, 0}, {8, 3, 1}};
    CHECK_OK(hsa_ext_image_clear(env->gpu, b, seven, &window));
    hsa_dim3_t from = {10, 20, 0}, to = {30, 5, 0}, size = {5, 4, 1};
    CHECK_OK(hsa_ext_image_copy(env->gpu, a, &from, b, &to, &size));
    CHECK_OK(hsa_ext_image_export(env->gpu, b, out, 0, 0, &all));
    int wrong = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint32_t want = 0;
            if (x >= 4 && x < 12 && y >= 2 && y < 5) want = 7;
            if (x >= 30 && x < 35 && y >= 5 && y < 9) want = in[y - 5 + 20][x - 30 + 10];
            wrong += out[y][x] != want;
        }
    CHECK_EQ_U64(wrong, 0);

    /* Regions must lie inside the image; a zero range moves nothing. */
    hsa_ext_image_region_t outside = {{60, 0, 0}, {8, 1, 1}};
    CHECK_STATUS(hsa_ext_image_import(env->gpu, in, 0, 0, a, &outside), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_export(env->gpu, a, out, 0, 0, &outside), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_clear(env->gpu, a, seven, &outside), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_ext_image_region_t deep = {{0, 0, 1}, {1, 1, 1}};
    CHECK_STATUS(hsa_ext_image_clear(env->gpu, a, seven, &deep), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_dim3_t far = {0, 31, 0};
    CHECK_STATUS(hsa_ext_image_copy(env->gpu, a, &far, b, &to, &size), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_ext_image_region_t empty = {{0, 0, 0}, {0, 5, 1}};
    CHECK_OK(hsa_ext_image_clear(env->gpu, a, seven, &empty));

    /* NULL pointers, handles of 0, forged and destroyed handles, bad buffers. */
    hsa_ext_image_t zero = {0}, forged = {0xdeadbeef0};
    CHECK_STATUS(hsa_ext_image_import(env->gpu, NULL, 0, 0, a, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_import(env->gpu, in, 0, 0, zero, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_import(env->gpu, in, 0, 0, a, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_import(env->gpu, in, 0, 0, forged, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_import(env->gpu, (void *)16, 0, 0, a, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* A garbage pitch makes the buffer span a terabyte: refused, not allocated. */
    CHECK_STATUS(hsa_ext_image_import(env->gpu, in, (size_t)1 << 40, 0, a, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_export(env->gpu, a, out, (size_t)1 << 40, 0, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_import((hsa_agent_t){0}, in, 0, 0, a, &all), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_image_export(env->gpu, a, NULL, 0, 0, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_export(env->gpu, zero, out, 0, 0, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_export(env->gpu, a, out, 0, 0, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_export(env->gpu, forged, out, 0, 0, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_export(env->gpu, a, (void *)16, 0, 0, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_export((hsa_agent_t){3}, a, out, 0, 0, &all), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_image_clear(env->gpu, a, NULL, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_clear(env->gpu, a, seven, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_clear(env->gpu, zero, seven, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_clear(env->gpu, forged, seven, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_clear((hsa_agent_t){0}, a, seven, &all), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_image_copy(env->gpu, zero, &from, b, &to, &size), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_copy(env->gpu, a, NULL, b, &to, &size), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_copy(env->gpu, a, &from, b, NULL, &size), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_copy(env->gpu, a, &from, b, &to, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_copy(env->gpu, a, &from, forged, &to, &size), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_copy((hsa_agent_t){0}, a, &from, b, &to, &size), HSA_STATUS_ERROR_INVALID_AGENT);

    /* Copies need equal formats (sRGBA <-> RGBA 8-bit unorm aside). */
    hsa_ext_image_descriptor_t other = img_desc(HSA_EXT_IMAGE_GEOMETRY_2D, W, H, 0, 0,
                                                HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA, HSA_EXT_IMAGE_CHANNEL_TYPE_UNSIGNED_INT8);
    hsa_ext_image_t c;
    void *data_c = img_create(env, &other, &c);
    CHECK_STATUS(hsa_ext_image_copy(env->gpu, a, &from, c, &to, &size), HSA_STATUS_ERROR_INVALID_ARGUMENT);

    /* An image whose memory was freed answers INVALID_ARGUMENT, and destroy still works. */
    CHECK_OK(hsa_amd_memory_pool_free(data_c));
    CHECK_STATUS(hsa_ext_image_clear(env->gpu, c, seven, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_ext_image_destroy(env->gpu, c));
    CHECK_STATUS(hsa_ext_image_clear(env->gpu, c, seven, &all), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_destroy(env->gpu, zero), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_destroy(env->gpu, forged), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_ext_image_destroy((hsa_agent_t){0}, a), HSA_STATUS_ERROR_INVALID_AGENT);
    CHECK_STATUS(hsa_ext_image_destroy((hsa_agent_t){9}, a), HSA_STATUS_ERROR_INVALID_AGENT);

    CHECK_OK(hsa_ext_image_destroy(env->gpu, a));
    CHECK_OK(hsa_ext_image_destroy(env->gpu, b));
    CHECK_OK(hsa_amd_memory_pool_free(data_a));
    CHECK_OK(hsa_amd_memory_pool_free(data_b));
}

/* The extension table hands out the same functions. */
static void table(img_env_t *env) {
    hsa_ext_images_1_pfn_t fns;
    CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, sizeof fns, &fns));
    hsa_ext_image_format_t format = {HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA};
    uint32_t mask = 0;
    CHECK_OK(fns.hsa_ext_image_get_capability(env->gpu, HSA_EXT_IMAGE_GEOMETRY_3D, &format, &mask));
    CHECK(mask != 0);
}

int main(void) {
    img_env_t env = img_setup();
    descriptor(&env);
    creation_errors(&env);
    data_paths(&env);
    table(&env);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
