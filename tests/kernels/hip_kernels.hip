// HIP device code: the same machine code path as OpenCL, reached through HIP's
// builtins (blockIdx, __shared__, __syncthreads, warp shuffles, atomicAdd).
#include <hip/hip_runtime.h>

extern "C" __global__ void hip_saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(a, x[i], y[i]);
}

// Block sum: warp-level __shfl_xor tree, then one partial per warp through __shared__.
extern "C" __global__ void hip_block_sum(const int* in, int* sums) {
  __shared__ int partial[1024 / 32];
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = warpSize / 2; off > 0; off /= 2) v += __shfl_xor(v, off);
  int warp = threadIdx.x / warpSize;
  if (threadIdx.x % warpSize == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < (int)(blockDim.x / warpSize); w++) total += partial[w];
    sums[blockIdx.x] = total;
  }
}

extern "C" __global__ void hip_histogram(const unsigned* data, unsigned* hist) {
  atomicAdd(&hist[data[blockIdx.x * blockDim.x + threadIdx.x] % 32u], 1u);
}

// A C++ template instantiated twice: kernels known by their mangled names. An explicit
// fma: HIP contracts a*b+c by default, and the reference must not guess whether it did.
template <typename T>
__global__ void scale(T* data, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = fma(data[i], factor, static_cast<T>(threadIdx.x));
}
template __global__ void scale<float>(float*, float, int);
template __global__ void scale<double>(double*, double, int);

// Dynamic shared memory: sized by the dispatch (group segment size), not by the kernel.
extern "C" __global__ void hip_dynamic_shared(const int* in, int* out) {
  extern __shared__ int tile[];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t] - t;
}

// Clocks: clock64() (s_memtime) advances across timed work, wall_clock64()
// (s_memrealtime) never runs backwards.
extern "C" __global__ void hip_clocks(const int* in, long long* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  long long c0 = clock64(), w0 = wall_clock64();
  int v = in[i], n = v & 15;
  for (int k = 0; k < n; k++) v = v * 3 + k;
  long long c1 = clock64(), w1 = wall_clock64();
  out[3 * i + 0] = c1 - c0;
  out[3 * i + 1] = w1 - w0;
  out[3 * i + 2] = v;
}
