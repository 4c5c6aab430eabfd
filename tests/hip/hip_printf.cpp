// Device-side printf as HIP programs use it: HIP 5.2 lowers it to hostcalls (the kernel
// writes into HIP's hostcall buffer and rings a doorbell signal by an atomic add on the
// amd_signal_t its hsa_signal_t handle points to; HIP's listener thread prints).
// Prints each thread's line, then "HIP PRINTF DONE" after the kernel finished.
#include <hip/hip_runtime.h>

#include <cstdio>

__global__ void greet(int base, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    printf("thread %d of %d: %d %.2f %s\n", i, (int)(gridDim.x * blockDim.x), base + i, scale * i,
           i % 2 ? "odd" : "even");
}

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    hipLaunchKernelGGL(greet, dim3(2), dim3(2), 0, 0, 100, 0.5f);
    hipError_t e = hipDeviceSynchronize();
    std::printf("HIP PRINTF DONE %s\n", hipGetErrorName(e));
    return e == hipSuccess ? 0 : 1;
}
