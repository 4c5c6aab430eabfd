// A kernel that faults, as HIP programs meet it: HIP registers an error callback on
// every queue and aborts the process with a message naming the HSA status. argv[1]
// picks the fault: "memory" stores through a pointer to nowhere, "trap" executes
// __builtin_trap(). "launching" is printed before the kernel; "survived" must never be.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void store_to(int *target, int value) { target[threadIdx.x] = value; }

__global__ void trap_if(const int *flag) {
    if (*flag) __builtin_trap();
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    int *flag;
    if (hipMalloc(&flag, sizeof(int)) != hipSuccess) return 3;
    int one = 1;
    if (hipMemcpy(flag, &one, sizeof(int), hipMemcpyHostToDevice) != hipSuccess) return 3;
    std::printf("launching\n");
    if (std::strcmp(argv[1], "memory") == 0) {
        // An address no allocation covers (page 16, never mapped for the GPU).
        hipLaunchKernelGGL(store_to, dim3(1), dim3(64), 0, 0, reinterpret_cast<int *>(0x10000), 7);
    } else {
        hipLaunchKernelGGL(trap_if, dim3(1), dim3(32), 0, 0, flag);
    }
    hipError_t e = hipDeviceSynchronize();
    std::printf("survived: %s\n", hipGetErrorName(e));
    return 0;
}
