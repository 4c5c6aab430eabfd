// Device code the way HIP programs write it, through HIP's headers and device libraries:
// warp shuffles and votes, float/double/64-bit atomics, math functions, templates,
// structs passed by value, grid-stride loops, 3D blocks, cooperative-groups tiles and the
// canonical shared-memory tiled matrix multiply.
// Results are checked against the host. Prints "HIP KERNELS OK" when every check holds.
#include "hip_check.h"

#include <hip/hip_cooperative_groups.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace cg = cooperative_groups;

// Sum over each warp with __shfl_down, one atomic per warp.
__global__ void warp_sum(const int *in, int *total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    if ((threadIdx.x & (warpSize - 1)) == 0) atomicAdd(total, v);
}

// Each lane learns how many lanes of its warp hold an odd value, and its rank among them.
__global__ void ballot_rank(const int *in, int *count, int *rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool odd = in[i] & 1;
    unsigned long long mask = __ballot(odd);
    int lane = threadIdx.x & (warpSize - 1);
    count[i] = __popcll(mask);
    rank[i] = odd ? __popcll(mask & ((1ull << lane) - 1)) : -1;
}

// Float and double atomicAdd are compare-and-swap loops on gfx1030: SLOTS addresses keep
// the contention (one winner per address per round) realistic but short.
constexpr int SLOTS = 16;

__global__ void float_atomics(const float *in, float *sum, double *dsum, unsigned long long *bits,
                              int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    atomicAdd(sum + i % SLOTS, in[i]);
    atomicAdd(dsum + i % SLOTS, (double)in[i]);
    atomicOr(bits, 1ull << (i % 64));
}

__global__ void math_functions(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[5 * i + 0] = sinf(v);
    out[5 * i + 1] = expf(v * 0.25f);
    out[5 * i + 2] = sqrtf(fabsf(v));
    out[5 * i + 3] = powf(fabsf(v) + 1.0f, 1.5f);
    out[5 * i + 4] = (float)log((double)fabsf(v) + 2.0);
}

struct Affine {
    float scale;
    float shift;
    int stride;
};

template <typename T>
__global__ void grid_stride_affine(const T *in, T *out, Affine f, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = in[i] * (T)f.scale + (T)f.shift + (T)(i % f.stride);
}

// 3D blocks: every thread writes its flattened coordinates.
__global__ void index_3d(int *out, int nx, int ny) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;
}

// Cooperative-groups tiles of 8: a reduction within each tile through tile shuffles.
__global__ void tile_sums(const int *in, int *out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    if (tile.thread_rank() == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 8] = v;
}

// 64-bit integer arithmetic: multiply-high, division, shifts, and a CAS loop on a max.
__global__ void int64_ops(const long long *in, long long *out, unsigned long long *maxv, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long v = in[i];
    out[3 * i + 0] = __mul64hi(v, 0x123456789ll);
    out[3 * i + 1] = v / 7 - (v % 1000);
    out[3 * i + 2] = (long long)((unsigned long long)v >> 13) ^ (v << 3);
    unsigned long long u = (unsigned long long)v, seen = *maxv;
    while (u > seen) {
        unsigned long long prev = atomicCAS(maxv, seen, u);
        if (prev == seen) break;
        seen = prev;
    }
}

constexpr int TILE = 16;

// C = A * B for n x n matrices, n a multiple of TILE: 2D blocks, 2D shared arrays, barriers.
__global__ void tiled_matmul(const float *a, const float *b, float *c, int n) {
    __shared__ float ta[TILE][TILE], tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

static void check_matmul() {
    const int n = 32;
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (int i = 0; i < n * n; i++) {
        a[i] = (float)(i % 7 - 3);   // small integers: every sum is exact in float
        b[i] = (float)(i % 5 - 2);
    }
    float *da, *db, *dc;
    HIP_CHECK(hipMalloc(&da, n * n * sizeof(float)));
    HIP_CHECK(hipMalloc(&db, n * n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dc, n * n * sizeof(float)));
    HIP_CHECK(hipMemcpy(da, a.data(), n * n * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(db, b.data(), n * n * sizeof(float), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(tiled_matmul, dim3(n / TILE, n / TILE), dim3(TILE, TILE), 0, 0, da, db, dc, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(c.data(), dc, n * n * sizeof(float), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0.0f;
            for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
            wrong += c[i * n + j] != s;
        }
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
}

static void check_warp_sum_and_ballot() {
    const int n = 1000, blocks = (n + 255) / 256;
    std::vector<int> in(blocks * 256, 0);
    long long expected = 0;
    for (int i = 0; i < n; i++) expected += in[i] = (i * 7919) % 1013 - 300;
    int *din, *dtotal, *dcount, *drank;
    HIP_CHECK(hipMalloc(&din, in.size() * sizeof(int)));
    HIP_CHECK(hipMalloc(&dtotal, sizeof(int)));
    HIP_CHECK(hipMalloc(&dcount, in.size() * sizeof(int)));
    HIP_CHECK(hipMalloc(&drank, in.size() * sizeof(int)));
    HIP_CHECK(hipMemcpy(din, in.data(), in.size() * sizeof(int), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(dtotal, 0, sizeof(int)));
    hipLaunchKernelGGL(warp_sum, dim3(blocks), dim3(256), 0, 0, din, dtotal, n);
    hipLaunchKernelGGL(ballot_rank, dim3(blocks), dim3(256), 0, 0, din, dcount, drank);
    HIP_CHECK(hipGetLastError());
    int total = 0;
    std::vector<int> count(in.size()), rank(in.size());
    HIP_CHECK(hipMemcpy(&total, dtotal, sizeof(int), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(count.data(), dcount, count.size() * sizeof(int), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(rank.data(), drank, rank.size() * sizeof(int), hipMemcpyDeviceToHost));
    EXPECT(total == expected);
    int warp = 0;
    HIP_CHECK(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0));
    int wrong = 0;
    for (size_t base = 0; base < in.size(); base += warp) {
        int odd = 0;
        for (int lane = 0; lane < warp; lane++) {
            bool is_odd = in[base + lane] & 1;
            wrong += rank[base + lane] != (is_odd ? odd : -1);
            odd += is_odd;
        }
        for (int lane = 0; lane < warp; lane++) wrong += count[base + lane] != odd;
    }
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dtotal));
    HIP_CHECK(hipFree(dcount));
    HIP_CHECK(hipFree(drank));
}

static void check_atomics_and_math() {
    const int n = 320;
    std::vector<float> x(n);
    for (int i = 0; i < n; i++) x[i] = 0.125f * (i - 150);   // exact in binary: sums are exact
    float *dx, *dsum, *dout;
    double *ddsum;
    unsigned long long *dbits;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dsum, SLOTS * sizeof(float)));
    HIP_CHECK(hipMalloc(&ddsum, SLOTS * sizeof(double)));
    HIP_CHECK(hipMalloc(&dbits, sizeof(unsigned long long)));
    HIP_CHECK(hipMalloc(&dout, 5 * n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(dsum, 0, SLOTS * sizeof(float)));
    HIP_CHECK(hipMemset(ddsum, 0, SLOTS * sizeof(double)));
    HIP_CHECK(hipMemset(dbits, 0, sizeof(unsigned long long)));
    hipLaunchKernelGGL(float_atomics, dim3((n + 127) / 128), dim3(128), 0, 0, dx, dsum, ddsum, dbits,
                       n);
    hipLaunchKernelGGL(math_functions, dim3((n + 127) / 128), dim3(128), 0, 0, dx, dout, n);
    HIP_CHECK(hipGetLastError());
    float sum[SLOTS];
    double dsum_host[SLOTS];
    unsigned long long bits = 0;
    std::vector<float> out(5 * n);
    HIP_CHECK(hipMemcpy(sum, dsum, sizeof(sum), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(dsum_host, ddsum, sizeof(dsum_host), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(&bits, dbits, sizeof(bits), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(out.data(), dout, out.size() * sizeof(float), hipMemcpyDeviceToHost));
    double expected[SLOTS] = {};
    for (int i = 0; i < n; i++) expected[i % SLOTS] += x[i];
    int wrong_sums = 0;
    for (int k = 0; k < SLOTS; k++) wrong_sums += sum[k] != (float)expected[k] || dsum_host[k] != expected[k];
    EXPECT(wrong_sums == 0);
    EXPECT(bits == ~0ull);
    // HIP's device math is accurate to a few ulp: compare with a relative tolerance.
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        float v = x[i];
        const double want[5] = {std::sin((double)v), std::exp(v * 0.25), std::sqrt(std::fabs((double)v)),
                                std::pow(std::fabs((double)v) + 1.0, 1.5), std::log(std::fabs((double)v) + 2.0)};
        for (int k = 0; k < 5; k++)
            wrong += std::fabs(out[5 * i + k] - want[k]) > 4e-6 * std::fmax(1.0, std::fabs(want[k]));
    }
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dsum));
    HIP_CHECK(hipFree(ddsum));
    HIP_CHECK(hipFree(dbits));
    HIP_CHECK(hipFree(dout));
}

template <typename T>
static void check_template(Affine f) {
    const int n = 5000;
    std::vector<T> in(n), out(n);
    for (int i = 0; i < n; i++) in[i] = (T)(i % 97) - (T)40;
    T *din, *dout;
    HIP_CHECK(hipMalloc(&din, n * sizeof(T)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(T)));
    HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(T), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(grid_stride_affine<T>, dim3(3), dim3(128), 0, 0, din, dout, f, n);
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(T), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += out[i] != in[i] * (T)f.scale + (T)f.shift + (T)(i % f.stride);
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
}

static void check_3d_and_tiles() {
    const int nx = 16, ny = 6, nz = 4;
    int *dout;
    HIP_CHECK(hipMalloc(&dout, nx * ny * nz * sizeof(int)));
    hipLaunchKernelGGL(index_3d, dim3(nx / 8, ny / 3, nz / 2), dim3(8, 3, 2), 0, 0, dout, nx, ny);
    std::vector<int> out(nx * ny * nz);
    HIP_CHECK(hipMemcpy(out.data(), dout, out.size() * sizeof(int), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) wrong += out[(z * ny + y) * nx + x] != x + 100 * y + 10000 * z;
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(dout));

    const int n = 256;
    std::vector<int> in(n), sums(n / 8);
    for (int i = 0; i < n; i++) in[i] = i * i % 37;
    int *din, *dsums;
    HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&dsums, n / 8 * sizeof(int)));
    HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(tile_sums, dim3(2), dim3(128), 0, 0, din, dsums);
    HIP_CHECK(hipMemcpy(sums.data(), dsums, sums.size() * sizeof(int), hipMemcpyDeviceToHost));
    wrong = 0;
    for (int t = 0; t < n / 8; t++) {
        int s = 0;
        for (int k = 0; k < 8; k++) s += in[8 * t + k];
        wrong += sums[t] != s;
    }
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dsums));
}

static void check_int64() {
    const int n = 300;
    std::vector<long long> in(n), out(3 * n);
    unsigned long long expected_max = 0;
    for (int i = 0; i < n; i++) {
        in[i] = (long long)(0x9E3779B97F4A7C15ull * (i + 1)) >> (i % 7);
        expected_max = std::max(expected_max, (unsigned long long)in[i]);
    }
    long long *din, *dout;
    unsigned long long *dmax;
    HIP_CHECK(hipMalloc(&din, n * sizeof(long long)));
    HIP_CHECK(hipMalloc(&dout, 3 * n * sizeof(long long)));
    HIP_CHECK(hipMalloc(&dmax, sizeof(unsigned long long)));
    HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(long long), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(dmax, 0, sizeof(unsigned long long)));
    hipLaunchKernelGGL(int64_ops, dim3((n + 63) / 64), dim3(64), 0, 0, din, dout, dmax, n);
    unsigned long long got_max = 0;
    HIP_CHECK(hipMemcpy(out.data(), dout, out.size() * sizeof(long long), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(&got_max, dmax, sizeof(got_max), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        long long v = in[i];
        wrong += out[3 * i + 0] != (long long)(((__int128)v * 0x123456789ll) >> 64);
        wrong += out[3 * i + 1] != v / 7 - (v % 1000);
        wrong += out[3 * i + 2] != ((long long)((unsigned long long)v >> 13) ^ (long long)((unsigned long long)v << 3));
    }
    EXPECT(wrong == 0);
    EXPECT(got_max == expected_max);
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
    HIP_CHECK(hipFree(dmax));
}

int main() {
    check_warp_sum_and_ballot();
    check_atomics_and_math();
    check_template<int>(Affine{3.0f, -2.0f, 5});
    check_template<float>(Affine{0.5f, 1.25f, 9});
    check_template<double>(Affine{-1.5f, 0.75f, 4});
    check_3d_and_tiles();
    check_int64();
    check_matmul();
    return hip_report("HIP KERNELS");
}
