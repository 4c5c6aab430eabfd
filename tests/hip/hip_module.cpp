// The module API as programs that load kernels at run time use it: a code object built
// by clang-15 (argv[1], bundled or bare ELF) loaded from memory and from its path,
// functions and globals looked up by name, launches with kernel parameter arrays and
// with a packed argument buffer, dynamic shared memory, 2D grids, and the errors for
// names that are not there and for code objects of another GPU (argv[2], an ELF for
// gfx90a: HIP compares its ISA with the agent's). Prints "HIP MODULE OK" when every check holds.
#include "hip_check.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

static std::vector<char> read_file(const char *path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

static void launch_with_parameter_array(hipModule_t module) {
    hipFunction_t scale;
    HIP_CHECK(hipModuleGetFunction(&scale, module, "scale_and_bias"));
    hipDeviceptr_t bias_ptr;
    size_t bias_size = 0;
    HIP_CHECK(hipModuleGetGlobal(&bias_ptr, &bias_size, module, "module_bias"));
    EXPECT(bias_size == sizeof(int));
    int bias = 5;
    HIP_CHECK(hipMemcpyHtoD(bias_ptr, &bias, sizeof(bias)));

    const int n = 1000;
    std::vector<float> host(n);
    for (int i = 0; i < n; i++) host[i] = 0.5f * i;
    float *data;
    HIP_CHECK(hipMalloc(&data, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(data, host.data(), n * sizeof(float), hipMemcpyHostToDevice));
    float factor = 3.0f;
    int count = n;
    void *params[] = {&data, &factor, &count};
    HIP_CHECK(hipModuleLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params,
                                    nullptr));
    std::vector<float> out(n);
    HIP_CHECK(hipMemcpy(out.data(), data, n * sizeof(float), hipMemcpyDeviceToHost));
    const float table[4] = {1.0f, 10.0f, 100.0f, 1000.0f};
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += out[i] != host[i] * 3.0f + 5 + table[i % 4];
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(data));
}

// Arguments packed by hand into one buffer, as HIP_LAUNCH_PARAM_BUFFER_POINTER takes them.
static void launch_with_argument_buffer(hipModule_t module) {
    hipFunction_t rotate;
    HIP_CHECK(hipModuleGetFunction(&rotate, module, "rotate_blocks"));
    const int block = 96, blocks = 3, n = block * blocks;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; i++) in[i] = 7 * i + 1;
    int *din, *dout;
    HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
    HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
    struct {
        int *in;
        int *out;
    } args = {din, dout};
    size_t args_size = sizeof(args);
    void *config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                      &args_size, HIP_LAUNCH_PARAM_END};
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    HIP_CHECK(hipModuleLaunchKernel(rotate, blocks, 1, 1, block, 1, 1, block * sizeof(int), stream,
                                    nullptr, config));
    HIP_CHECK(hipStreamSynchronize(stream));
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < block; t++) wrong += out[b * block + t] != in[b * block + (t + 1) % block];
    EXPECT(wrong == 0);
    HIP_CHECK(hipStreamDestroy(stream));
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
}

static void launch_2d_grid(hipModule_t module) {
    hipFunction_t index;
    HIP_CHECK(hipModuleGetFunction(&index, module, "index_2d"));
    const int width = 48, height = 20;
    int *dout;
    HIP_CHECK(hipMalloc(&dout, width * height * sizeof(int)));
    int w = width;
    void *params[] = {&dout, &w};
    HIP_CHECK(hipModuleLaunchKernel(index, width / 16, height / 4, 1, 16, 4, 1, 0, nullptr, params,
                                    nullptr));
    std::vector<int> out(width * height);
    HIP_CHECK(hipMemcpy(out.data(), dout, out.size() * sizeof(int), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) wrong += out[y * width + x] != y * 1000 + x;
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(dout));
}

static void lookups_of_missing_names_fail(hipModule_t module) {
    hipFunction_t f;
    HIP_EXPECT_ERROR(hipModuleGetFunction(&f, module, "no_such_kernel"), hipErrorNotFound);
    hipDeviceptr_t p;
    size_t size;
    HIP_EXPECT_ERROR(hipModuleGetGlobal(&p, &size, module, "no_such_global"), hipErrorNotFound);
}

static void globals_read_back(hipModule_t module) {
    hipDeviceptr_t table_ptr;
    size_t table_size = 0;
    HIP_CHECK(hipModuleGetGlobal(&table_ptr, &table_size, module, "module_table"));
    EXPECT(table_size == 4 * sizeof(float));
    float table[4] = {};
    HIP_CHECK(hipMemcpyDtoH(table, table_ptr, sizeof(table)));
    EXPECT(table[0] == 1.0f && table[3] == 1000.0f);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        std::printf("usage: hip_module CODE_OBJECT FOREIGN_CODE_OBJECT\n");
        return 2;
    }
    std::vector<char> image = read_file(argv[1]);
    EXPECT(!image.empty());
    hipModule_t module;
    HIP_CHECK(hipModuleLoadData(&module, image.data()));
    launch_with_parameter_array(module);
    launch_with_argument_buffer(module);
    launch_2d_grid(module);
    lookups_of_missing_names_fail(module);
    globals_read_back(module);
    HIP_CHECK(hipModuleUnload(module));

    // The same code object loaded from its path: a second, independent module.
    hipModule_t from_file;
    HIP_CHECK(hipModuleLoad(&from_file, argv[1]));
    globals_read_back(from_file);
    launch_2d_grid(from_file);
    HIP_CHECK(hipModuleUnload(from_file));

    std::vector<char> foreign = read_file(argv[2]);
    hipModule_t refused;
    HIP_EXPECT_ERROR(hipModuleLoadData(&refused, foreign.data()), hipErrorSharedObjectInitFailed);
    HIP_EXPECT_ERROR(hipModuleLoad(&refused, "/nonexistent/module.co"), hipErrorFileNotFound);
    return hip_report("HIP MODULE");
}
