/* Shared set-up for image tests: the agents, a device pool, descriptors and statuses. */
#ifndef SOFTGPU_TEST_IMAGE_UTIL_H
#define SOFTGPU_TEST_IMAGE_UTIL_H
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_image.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* The image statuses live in another enum than hsa_status_t. */
#define IMG_FORMAT_UNSUPPORTED ((hsa_status_t)HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED)
#define IMG_SIZE_UNSUPPORTED ((hsa_status_t)HSA_EXT_STATUS_ERROR_IMAGE_SIZE_UNSUPPORTED)
#define IMG_PITCH_UNSUPPORTED ((hsa_status_t)HSA_EXT_STATUS_ERROR_IMAGE_PITCH_UNSUPPORTED)

typedef struct {
    hsa_agent_t cpu, gpu;
    hsa_amd_memory_pool_t device;
} img_env_t;

static hsa_status_t img_pick_pool(hsa_amd_memory_pool_t pool, void *data) {
    hsa_amd_segment_t segment;
    MUST(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment));
    if (segment == HSA_AMD_SEGMENT_GLOBAL) {
        *(hsa_amd_memory_pool_t *)data = pool;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

static img_env_t img_setup(void) {
    img_env_t env = {0};
    MUST(hsa_init());
    find_cpu_gpu(&env.cpu, &env.gpu);
    hsa_amd_agent_iterate_memory_pools(env.gpu, img_pick_pool, &env.device);
    if (!env.gpu.handle || !env.cpu.handle || !env.device.handle) {
        printf("FAIL: no GPU, CPU or device pool\n");
        exit(1);
    }
    return env;
}

static inline hsa_ext_image_descriptor_t img_desc(hsa_ext_image_geometry_t geometry, size_t w, size_t h, size_t d,
                                           size_t layers, hsa_ext_image_channel_order_t order,
                                           hsa_ext_image_channel_type_t type) {
    hsa_ext_image_descriptor_t desc = {geometry, w, h, d, layers, {type, order}};
    return desc;
}

/* Device memory for an image of `desc` in the opaque layout, created; returns the data. */
static inline void *img_create(img_env_t *env, const hsa_ext_image_descriptor_t *desc, hsa_ext_image_t *image) {
    hsa_ext_image_data_info_t info;
    void *data = NULL;
    MUST(hsa_ext_image_data_get_info(env->gpu, desc, HSA_ACCESS_PERMISSION_RW, &info));
    MUST(hsa_amd_memory_pool_allocate(env->device, info.size, 0, &data));
    MUST(hsa_ext_image_create(env->gpu, desc, data, HSA_ACCESS_PERMISSION_RW, image));
    return data;
}
#endif
