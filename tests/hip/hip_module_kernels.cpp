// Device code only: built by clang-15 with --cuda-device-only into a code object
// (offload bundle or bare ELF) that hip_module.cpp loads at run time.
#include <hip/hip_runtime.h>

__device__ int module_bias;
__device__ float module_table[4] = {1.0f, 10.0f, 100.0f, 1000.0f};

extern "C" __global__ void scale_and_bias(float *data, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * factor + module_bias + module_table[i % 4];
}

// Rotates each block's slice by one through dynamic shared memory.
extern "C" __global__ void rotate_blocks(const int *in, int *out) {
    extern __shared__ int tile[];
    int base = blockIdx.x * blockDim.x;
    tile[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

// A 2D grid: one thread per (x, y), written as y * width + x.
extern "C" __global__ void index_2d(int *out, int width) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * width + x] = y * 1000 + x;
}
