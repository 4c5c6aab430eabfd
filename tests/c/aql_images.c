/* An image kernel dispatched again and again through an AQL queue with nothing allocated in
   between, as a filter applied in a loop: on the native tier its image instructions run as
   callouts to the interpreter, and every round must see the last one's texels (each round
   maps every texel x to x * 0.5 + 0.25, images.cl's read_write_2d).
   usage: aql_images CODE_OBJECT */
#include <hsa/hsa_ext_image.h>

#include "check.h"
#include "aql_util.h"

enum { W = 64, H = 16, ROUNDS = 24 };

static aql_env_t env;

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    aql_setup(&env, argv[1]);
    hsa_ext_image_descriptor_t desc = {HSA_EXT_IMAGE_GEOMETRY_2D, W, H, 0, 0,
                                       {HSA_EXT_IMAGE_CHANNEL_TYPE_FLOAT, HSA_EXT_IMAGE_CHANNEL_ORDER_RGBA}};
    hsa_ext_image_data_info_t info;
    MUST(hsa_ext_image_data_get_info(env.gpu, &desc, HSA_ACCESS_PERMISSION_RW, &info));
    void *data;
    MUST(hsa_amd_memory_pool_allocate(env.device_pool, info.size, 0, &data));
    hsa_agent_t both[2] = {env.gpu, env.cpu};
    MUST(hsa_amd_agents_allow_access(2, both, NULL, data));
    hsa_ext_image_t image;
    MUST(hsa_ext_image_create(env.gpu, &desc, data, HSA_ACCESS_PERMISSION_RW, &image));
    static float texels[H][W][4], expected[H][W][4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++)
                texels[y][x][c] = expected[y][x][c] = (float)(y * W + x) * 0.75f - 17.0f * (float)c;
    hsa_ext_image_region_t all = {{0, 0, 0}, {W, H, 1}};
    MUST(hsa_ext_image_import(env.gpu, texels, 0, 0, image, &all));

    uint64_t kernel = aql_kernel(&env, "read_write_2d");
    uint64_t *args = aql_alloc(&env, 256);      /* the image, then hidden arguments (zero) */
    args[0] = image.handle;
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, aql_record_error, NULL, UINT32_MAX,
                          UINT32_MAX, &queue));
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    for (int round = 0; round < ROUNDS; round++) {
        hsa_kernel_dispatch_packet_t p = aql_dispatch_packet(kernel, args, W, 8, done);
        p.setup = 2;
        p.workgroup_size_y = 4;
        p.grid_size_y = H;
        hsa_signal_store_relaxed(done, 1);
        aql_publish(queue, &p);
        if (!aql_wait_zero(done, 60)) {
            printf("FAIL round %d did not complete\n", round);
            exit(1);
        }
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < 4; c++)
                    expected[y][x][c] = expected[y][x][c] * 0.5f + 0.25f;
    }
    MUST(hsa_ext_image_export(env.gpu, image, texels, 0, 0, &all));
    int wrong = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++)
                if (texels[y][x][c] != expected[y][x][c] && wrong++ < 5)
                    printf("FAIL texel (%d, %d) channel %d: %g, expected %g\n", x, y, c,
                           texels[y][x][c], expected[y][x][c]);
    CHECK(wrong == 0);
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_signal_destroy(done));
    MUST(hsa_ext_image_destroy(env.gpu, image));
    MUST(hsa_amd_memory_pool_free(data));
    MUST(hsa_shut_down());
    return check_report();
}
