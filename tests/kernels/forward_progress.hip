// HIP kernels whose workgroups wait on each other, written the way ROCm libraries write them.
#include <hip/hip_runtime.h>

#define ACQUIRE_LOAD(p) __hip_atomic_load((p), __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)
#define RELEASE_STORE(p, v) __hip_atomic_store((p), (v), __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT)

// Single-pass inclusive prefix sum with decoupled look-back (Merrill and Garland): each block
// takes the next tile from a counter (so tiles are handed out in the order blocks start),
// scans it, publishes its aggregate, then walks back over its predecessors' status words
// until one holds an inclusive prefix. status[t] = flag << 32 | value; flag 1 = aggregate,
// 2 = inclusive prefix, 0 = nothing yet (the look-back sleeps and polls again).
extern "C" __global__ void lookback_scan(const unsigned *in, unsigned *out,
                                         unsigned long long *status, unsigned *tiles,
                                         unsigned n) {
  __shared__ unsigned tile, exclusive;
  __shared__ unsigned sums[256];
  const unsigned long long AGGREGATE = 1ull << 32, PREFIX = 2ull << 32;
  unsigned lid = threadIdx.x;
  if (lid == 0)
    tile = atomicAdd(tiles, 1u);
  __syncthreads();
  unsigned t = tile, i = t * blockDim.x + lid;
  sums[lid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset <<= 1) {
    unsigned v = lid >= offset ? sums[lid - offset] : 0;
    __syncthreads();
    sums[lid] += v;
    __syncthreads();
  }
  if (lid == 0) {
    unsigned aggregate = sums[blockDim.x - 1], prefix = 0;
    if (t == 0) {
      RELEASE_STORE(&status[0], PREFIX | aggregate);
    } else {
      RELEASE_STORE(&status[t], AGGREGATE | aggregate);
      for (int j = (int)t - 1;; j--) {
        unsigned long long s;
        while (((s = ACQUIRE_LOAD(&status[j])) >> 32) == 0)
          __builtin_amdgcn_s_sleep(1);
        prefix += (unsigned)s;
        if ((s & PREFIX) != 0)
          break;
      }
      RELEASE_STORE(&status[t], PREFIX | (prefix + aggregate));
    }
    exclusive = prefix;
  }
  __syncthreads();
  if (i < n)
    out[i] = exclusive + sums[lid];
}

// rocSPARSE's csrsv analysis pattern: one wave per row of a lower-triangular CSR matrix works
// out the row's level (1 + the deepest row it depends on), spinning until each dependency's
// wave has published its own; rows depend on rows of earlier waves and workgroups.
extern "C" __global__ void csr_levels(const int *row_ptr, const int *cols, int *done,
                                      int *depth, int rows) {
  int lane = threadIdx.x % warpSize;
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  if (row >= rows)
    return;
  int level = 0;
  for (int k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += warpSize) {
    int j = cols[k];
    if (j < row) {
      while (ACQUIRE_LOAD(&done[j]) == 0) {
      }
      level = max(level, depth[j] + 1);
    }
  }
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    level = max(level, __shfl_xor(level, offset));
  if (lane == 0) {
    depth[row] = level;
    RELEASE_STORE(&done[row], 1);
  }
}
