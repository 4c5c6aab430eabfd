// A HIP "hello kernel" process: one small kernel, its result checked, then exit. The
// shape of most tests in a HIP CI suite.
#include <hip/hip_runtime.h>

#include <cstdio>

__global__ void hello(int *out) { out[threadIdx.x] = 42 + threadIdx.x; }

int main() {
    int *device, host[64];
    if (hipMalloc(&device, sizeof host) != hipSuccess) return 1;
    hipLaunchKernelGGL(hello, dim3(1), dim3(64), 0, 0, device);
    if (hipMemcpy(host, device, sizeof host, hipMemcpyDeviceToHost) != hipSuccess) return 1;
    for (int i = 0; i < 64; i++)
        if (host[i] != 42 + i) return 1;
    std::printf("HELLO OK\n");
    return hipFree(device) == hipSuccess ? 0 : 1;
}
