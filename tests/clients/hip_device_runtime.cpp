// Device-side features HIP programs lean on beyond plain arithmetic: the device heap
// (malloc/free, new/delete), virtual functions, recursion, private arrays indexed at run
// time, cross-lane intrinsics (ds_bpermute, readfirstlane, permlanex16, dot products),
// system-scope atomics on host memory, packed half math, and the clocks: clock64() counts
// at hipDeviceAttributeClockRate and wall_clock64() at the GPU's reference clock (the HSA
// agent's timestamp frequency, 100 MHz), so elapsed times computed either way agree.
// Prints "HIP DEVICE RUNTIME OK".
#include <hip/hip_fp16.h>

#include <vector>

#include "client_check.h"

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};

struct Square : Shape {
    float side;
    __device__ explicit Square(float side) : side(side) {}
    __device__ float area() const override { return side * side; }
};

struct Disc : Shape {
    float radius;
    __device__ explicit Disc(float radius) : radius(radius) {}
    __device__ float area() const override { return 3.0f * radius * radius; }
};

__device__ int fibonacci(int n) {
    return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
}

__global__ void heap_objects(float* areas, int* sums) {
    int t = threadIdx.x;
    Shape* shape = (t & 1) ? static_cast<Shape*>(new Disc(t)) : static_cast<Shape*>(new Square(t));
    areas[t] = shape->area();
    delete shape;
    int* scratch = static_cast<int*>(malloc(16 * sizeof(int)));
    for (int i = 0; i < 16; ++i) scratch[i] = i * t;
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += scratch[i];
    free(scratch);
    sums[t] = fibonacci(t % 12) + sum;
}

__global__ void private_array(const int* index, int* out) {
    int local[64];
    for (int i = 0; i < 64; ++i) local[i] = i * threadIdx.x;
    out[threadIdx.x] = local[index[threadIdx.x] & 63];
}

__global__ void lane_ops(int* out) {
    int lane = __lane_id(), v = lane * 3;
    out[threadIdx.x * 4 + 0] = __builtin_amdgcn_ds_bpermute(((lane + 5) % 32) * 4, v);
    out[threadIdx.x * 4 + 1] = __builtin_amdgcn_readfirstlane(v + (int)threadIdx.x);
    out[threadIdx.x * 4 + 2] = __builtin_amdgcn_permlanex16(0, v, 0x76543210, 0xfedcba98, false, false);
    out[threadIdx.x * 4 + 3] = __builtin_amdgcn_sdot4(0x01020304, 0x05060708, 10, false);
}

__global__ void system_atomics_and_half2(int* host_counter, float* out) {
    atomicAdd_system(host_counter, 1);
    __threadfence_system();
    __half2 a = __floats2half2_rn(1.5f, -2.0f), b = __floats2half2_rn(0.25f, 4.0f);
    __half2 c = __hfma2(a, b, a);
    out[threadIdx.x * 2] = __low2float(c);
    out[threadIdx.x * 2 + 1] = __high2float(c);
}

// wall_clock64(), which HIP 5.2's headers declare for the device compilation only.
__device__ long long wall_clock() {
    return __builtin_amdgcn_s_memrealtime();
}

// Spins until the wall clock has advanced `ticks`, recording both clocks' deltas.
__global__ void clock_rates(long long ticks, long long* deltas) {
    long long c0 = clock64(), w0 = wall_clock(), w1 = w0;
    while (w1 - w0 < ticks) w1 = wall_clock();
    long long c1 = clock64();
    deltas[0] = c1 - c0;
    deltas[1] = w1 - w0;
}

static void heap_virtual_recursion() {
    float* areas;
    int* sums;
    HIP_CHECK(hipMalloc(&areas, 64 * sizeof(float)));
    HIP_CHECK(hipMalloc(&sums, 64 * sizeof(int)));
    heap_objects<<<1, 64>>>(areas, sums);
    HIP_CHECK(hipDeviceSynchronize());
    std::vector<float> got_areas(64), want_areas(64);
    std::vector<int> got_sums(64), want_sums(64);
    HIP_CHECK(hipMemcpy(got_areas.data(), areas, 64 * sizeof(float), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(got_sums.data(), sums, 64 * sizeof(int), hipMemcpyDeviceToHost));
    for (int t = 0; t < 64; ++t) {
        want_areas[t] = (t & 1) ? 3.0f * t * t : (float)t * t;
        int a = 0, b = 1;
        for (int i = 0; i < t % 12; ++i) {
            int c = a + b;
            a = b;
            b = c;
        }
        want_sums[t] = a + 120 * t;
    }
    EXPECT_NEAR_ARRAY("new/delete and virtual calls", got_areas, want_areas, 64, 0.0);
    EXPECT_NEAR_ARRAY("malloc/free and recursion", got_sums, want_sums, 64, 0.0);
}

static void private_arrays_and_lanes() {
    std::vector<int> index(64), got(64), want(64);
    for (int i = 0; i < 64; ++i) {
        index[i] = (i * 37) % 64;
        want[i] = index[i] * i;
    }
    int *dindex, *dout;
    HIP_CHECK(hipMalloc(&dindex, 64 * sizeof(int)));
    HIP_CHECK(hipMalloc(&dout, 128 * sizeof(int)));
    HIP_CHECK(hipMemcpy(dindex, index.data(), 64 * sizeof(int), hipMemcpyHostToDevice));
    private_array<<<1, 64>>>(dindex, dout);
    HIP_CHECK(hipMemcpy(got.data(), dout, 64 * sizeof(int), hipMemcpyDeviceToHost));
    EXPECT_NEAR_ARRAY("private array", got, want, 64, 0.0);

    lane_ops<<<1, 32>>>(dout);
    std::vector<int> lanes(128), want_lanes(128);
    HIP_CHECK(hipMemcpy(lanes.data(), dout, 128 * sizeof(int), hipMemcpyDeviceToHost));
    const unsigned long long select = 0xfedcba9876543210ull;  // permlanex16's lane selects
    for (int t = 0; t < 32; ++t) {
        int other_half = t < 16 ? 16 : 0;
        want_lanes[t * 4 + 0] = ((t + 5) % 32) * 3;
        want_lanes[t * 4 + 1] = 0;
        want_lanes[t * 4 + 2] = 3 * (other_half + (int)((select >> (4 * (t % 16))) & 15));
        want_lanes[t * 4 + 3] = 10 + 1 * 5 + 2 * 6 + 3 * 7 + 4 * 8;
    }
    EXPECT_NEAR_ARRAY("cross-lane ops", lanes, want_lanes, 128, 0.0);
}

static void host_atomics_and_half2() {
    int* counter;
    HIP_CHECK(hipHostMalloc(&counter, sizeof(int), hipHostMallocCoherent));
    *counter = 0;
    float* out;
    HIP_CHECK(hipMalloc(&out, 64 * 2 * sizeof(float)));
    system_atomics_and_half2<<<2, 32>>>(counter, out);
    HIP_CHECK(hipDeviceSynchronize());
    EXPECT(*counter == 64);
    float fma[2];
    HIP_CHECK(hipMemcpy(fma, out, sizeof fma, hipMemcpyDeviceToHost));
    EXPECT(fma[0] == 1.5f * 0.25f + 1.5f && fma[1] == -2.0f * 4.0f - 2.0f);
    HIP_CHECK(hipHostFree(counter));
}

static void clocks() {
    int clock_khz = 0;
    HIP_CHECK(hipDeviceGetAttribute(&clock_khz, hipDeviceAttributeClockRate, 0));
    EXPECT(clock_khz == 2575000);
    long long* deltas;
    HIP_CHECK(hipMalloc(&deltas, 2 * sizeof(long long)));
    const long long ticks = 20000;  // 200 us of the reference clock
    clock_rates<<<1, 1>>>(ticks, deltas);
    long long got[2];
    HIP_CHECK(hipMemcpy(got, deltas, sizeof got, hipMemcpyDeviceToHost));
    EXPECT(got[1] >= ticks);
    // clock64() was read before and after the wall clock's interval: in seconds (at the
    // rates HIP reports), its interval holds the wall clock's.
    double seconds_by_clock = got[0] / (clock_khz * 1e3), seconds_by_wall = got[1] / 100e6;
    if (seconds_by_clock + 1e-7 < seconds_by_wall) {
        std::printf("FAIL clock64 says %g s where wall_clock64 says %g s\n", seconds_by_clock,
                    seconds_by_wall);
        hip_failures++;
    }
}

int main() {
    heap_virtual_recursion();
    private_arrays_and_lanes();
    host_atomics_and_half2();
    clocks();
    return hip_report("HIP DEVICE RUNTIME");
}
