// Kernels with more than 32 KiB of static shared memory, alone and with dynamic shared memory
// on top, launched through HIP: HIP puts static plus dynamic in the dispatch packet's
// group_segment_size, and the kernel must get exactly that (rocSPARSE's and rocRAND's big-LDS
// kernels are launched this way). Prints "HIP LDS OK" when every check holds.
#include "hip_check.h"

#include <vector>

constexpr int STATIC_WORDS = 10240;          // 40 KiB
constexpr int HALF_WORDS = 8192;             // 32 KiB

// Every block fills 40 KiB of static LDS, then each thread sums a strided slice of it
// backwards, so a workgroup that got less LDS than it uses reads zeros.
__global__ void big_static(int *out) {
    __shared__ int tile[STATIC_WORDS];
    for (int k = threadIdx.x; k < STATIC_WORDS; k += blockDim.x) tile[k] = k + blockIdx.x;
    __syncthreads();
    int sum = 0;
    for (int k = STATIC_WORDS - 1 - threadIdx.x; k >= 0; k -= blockDim.x) sum += tile[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// 32 KiB static and the dispatch's dynamic part after it (extern __shared__).
__global__ void static_and_dynamic(int *out) {
    __shared__ int fixed[HALF_WORDS];
    extern __shared__ int dynamic[];
    int words = HALF_WORDS / 2;              // the launch asks for 16 KiB of dynamic LDS
    for (int k = threadIdx.x; k < HALF_WORDS; k += blockDim.x) fixed[k] = 2 * k;
    for (int k = threadIdx.x; k < words; k += blockDim.x) dynamic[k] = 3 * k + blockIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] =
        fixed[HALF_WORDS - 1 - threadIdx.x] + dynamic[words - 1 - threadIdx.x];
}

int main() {
    const int blocks = 6, threads = 256, n = blocks * threads;
    int *dout;
    std::vector<int> out(n);
    HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));

    hipLaunchKernelGGL(big_static, dim3(blocks), dim3(threads), 0, 0, dout);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            long long want = 0;
            for (int k = STATIC_WORDS - 1 - t; k >= 0; k -= threads) want += k + b;
            EXPECT(out[b * threads + t] == (int)want);
        }

    hipLaunchKernelGGL(static_and_dynamic, dim3(blocks), dim3(threads), HALF_WORDS / 2 * sizeof(int),
                       0, dout);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++)
            EXPECT(out[b * threads + t] ==
                   2 * (HALF_WORDS - 1 - t) + 3 * (HALF_WORDS / 2 - 1 - t) + b);

    HIP_CHECK(hipFree(dout));
    return hip_report("HIP LDS");
}
