// A HIP program as HIP users write them, run by AMD's own HIP runtime (libamdhip64)
// on top of SoftGPU's libhsa-runtime64: device query, memory, streams, events,
// kernels with shared memory and atomics. Prints "HIP CLIENT OK" when every check holds.
#include "hip_check.h"

#include <string>
#include <vector>

__global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// Block-level sum in shared memory, then one atomic per block.
__global__ void block_sum(const int *in, int *total, int n) {
    __shared__ int partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

// argv[1]: the processor the program was built for and the device must report (gfx1030).
int main(int argc, char **argv) {
    const std::string arch = argc > 1 ? argv[1] : "gfx1030";
    int count = 0;
    HIP_CHECK(hipGetDeviceCount(&count));
    EXPECT(count == 1);
    hipDeviceProp_t props;
    HIP_CHECK(hipGetDeviceProperties(&props, 0));
    EXPECT(std::string(props.gcnArchName).rfind(arch, 0) == 0);
    EXPECT(props.multiProcessorCount > 0);
    EXPECT(props.maxThreadsPerBlock == 1024);

    const int n = 3000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; i++) {
        x[i] = 0.5f * i;
        y[i] = 1.0f + i;
    }
    float *dx, *dy;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    hipEvent_t start, stop;
    HIP_CHECK(hipEventCreate(&start));
    HIP_CHECK(hipEventCreate(&stop));
    HIP_CHECK(hipMemcpyAsync(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice, stream));
    HIP_CHECK(hipMemcpyAsync(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice, stream));
    HIP_CHECK(hipEventRecord(start, stream));
    hipLaunchKernelGGL(saxpy, dim3((n + 255) / 256), dim3(256), 0, stream, 2.0f, dx, dy, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipEventRecord(stop, stream));
    HIP_CHECK(hipMemcpyAsync(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += y[i] != 2.0f * (0.5f * i) + (1.0f + i);
    EXPECT(wrong == 0);
    float ms = -1;
    HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0);

    std::vector<int> values(n);
    long long expected = 0;
    for (int i = 0; i < n; i++) expected += values[i] = (i * 37) % 1001 - 500;
    int *dvalues, *dtotal;
    HIP_CHECK(hipMalloc(&dvalues, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&dtotal, sizeof(int)));
    HIP_CHECK(hipMemset(dtotal, 0, sizeof(int)));
    HIP_CHECK(hipMemcpy(dvalues, values.data(), n * sizeof(int), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(block_sum, dim3((n + 255) / 256), dim3(256), 0, 0, dvalues, dtotal, n);
    HIP_CHECK(hipDeviceSynchronize());
    int total = 0;
    HIP_CHECK(hipMemcpy(&total, dtotal, sizeof(int), hipMemcpyDeviceToHost));
    EXPECT(total == expected);

    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    HIP_CHECK(hipFree(dvalues));
    HIP_CHECK(hipFree(dtotal));
    HIP_CHECK(hipEventDestroy(start));
    HIP_CHECK(hipEventDestroy(stop));
    HIP_CHECK(hipStreamDestroy(stream));
    return hip_report("HIP CLIENT");
}
