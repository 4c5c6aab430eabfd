// hipRTC (through the code object manager, comgr) as run-time compilers use it: kernel
// source strings compiled with options and name expressions, loaded with hipModuleLoadData
// and launched with hipModuleLaunchKernel; a source with an error reports it in the log.
// Prints "HIPRTC OK".
#include <hip/hiprtc.h>

#include <string>
#include <vector>

#include "client_check.h"

static const char* SOURCE = R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T> __global__ void scale(T* p, T k) { p[threadIdx.x] *= k; }

// A block-wide sum through shared memory; BLOCK comes from the compile options.
extern "C" __global__ void block_sum(const int* in, int* out) {
    __shared__ int part[BLOCK];
    part[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0] + (int)sqrtf(16.0f);
}
)";

static std::string log_of(hiprtcProgram prog) {
    size_t size = 0;
    STATUS_CHECK(hiprtcGetProgramLogSize(prog, &size));
    std::string log(size, '\0');
    STATUS_CHECK(hiprtcGetProgramLog(prog, &log[0]));
    return log;
}

int main() {
    hiprtcProgram prog;
    STATUS_CHECK(hiprtcCreateProgram(&prog, SOURCE, "kernels.cu", 0, nullptr, nullptr));
    STATUS_CHECK(hiprtcAddNameExpression(prog, "scale<int>"));
    const char* options[] = {"--offload-arch=gfx1030", "-DBLOCK=64", "-O3"};
    hiprtcResult compiled = hiprtcCompileProgram(prog, 3, options);
    if (compiled != HIPRTC_SUCCESS) std::printf("FAIL compile: %s\n", log_of(prog).c_str());
    STATUS_CHECK(compiled);
    size_t size = 0;
    STATUS_CHECK(hiprtcGetCodeSize(prog, &size));
    std::vector<char> code(size);
    STATUS_CHECK(hiprtcGetCode(prog, code.data()));
    const char* lowered = nullptr;
    STATUS_CHECK(hiprtcGetLoweredName(prog, "scale<int>", &lowered));
    std::string scale_name = lowered;
    STATUS_CHECK(hiprtcDestroyProgram(&prog));

    hipModule_t module;
    hipFunction_t saxpy, scale, block_sum;
    HIP_CHECK(hipModuleLoadData(&module, code.data()));
    HIP_CHECK(hipModuleGetFunction(&saxpy, module, "saxpy"));
    HIP_CHECK(hipModuleGetFunction(&scale, module, scale_name.c_str()));
    HIP_CHECK(hipModuleGetFunction(&block_sum, module, "block_sum"));

    int n = 1000;
    std::vector<float> x(n), y(n, 1.0f);
    for (int i = 0; i < n; ++i) x[i] = (float)i;
    float *dx, *dy;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
    float a = 2.5f;
    void* saxpy_args[] = {&a, &dx, &dy, &n};
    HIP_CHECK(
        hipModuleLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, saxpy_args, nullptr));
    HIP_CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = 2.5f * i + 1.0f;
    EXPECT_NEAR_ARRAY("saxpy", y, want, n, 0.0);

    int values[64], *dv;
    for (int i = 0; i < 64; ++i) values[i] = i - 7;
    HIP_CHECK(hipMalloc(&dv, sizeof values));
    HIP_CHECK(hipMemcpy(dv, values, sizeof values, hipMemcpyHostToDevice));
    int k = -3;
    void* scale_args[] = {&dv, &k};
    HIP_CHECK(hipModuleLaunchKernel(scale, 1, 1, 1, 64, 1, 1, 0, nullptr, scale_args, nullptr));
    HIP_CHECK(hipMemcpy(values, dv, sizeof values, hipMemcpyDeviceToHost));
    int scaled[64];
    for (int i = 0; i < 64; ++i) scaled[i] = (i - 7) * -3;
    EXPECT_NEAR_ARRAY("scale<int>", values, scaled, 64, 0.0);

    const int blocks = 5;
    std::vector<int> in(blocks * 64), sums(blocks), want_sums(blocks);
    for (int i = 0; i < blocks * 64; ++i) in[i] = (i * 37) % 101;
    for (int b = 0; b < blocks; ++b) {
        want_sums[b] = 4;
        for (int i = 0; i < 64; ++i) want_sums[b] += in[b * 64 + i];
    }
    int *din, *dsums;
    HIP_CHECK(hipMalloc(&din, in.size() * sizeof(int)));
    HIP_CHECK(hipMalloc(&dsums, blocks * sizeof(int)));
    HIP_CHECK(hipMemcpy(din, in.data(), in.size() * sizeof(int), hipMemcpyHostToDevice));
    void* sum_args[] = {&din, &dsums};
    HIP_CHECK(hipModuleLaunchKernel(block_sum, blocks, 1, 1, 64, 1, 1, 0, nullptr, sum_args, nullptr));
    HIP_CHECK(hipMemcpy(sums.data(), dsums, blocks * sizeof(int), hipMemcpyDeviceToHost));
    EXPECT_NEAR_ARRAY("block_sum", sums, want_sums, blocks, 0.0);
    HIP_CHECK(hipModuleUnload(module));

    // A source that does not compile: an error status and a log that names the problem.
    hiprtcProgram broken;
    STATUS_CHECK(hiprtcCreateProgram(&broken, "__global__ void k() { undeclared_thing(); }", "broken.cu", 0,
                                     nullptr, nullptr));
    EXPECT(hiprtcCompileProgram(broken, 1, options) == HIPRTC_ERROR_COMPILATION);
    EXPECT(log_of(broken).find("undeclared_thing") != std::string::npos);
    STATUS_CHECK(hiprtcDestroyProgram(&broken));
    return hip_report("HIPRTC");
}
