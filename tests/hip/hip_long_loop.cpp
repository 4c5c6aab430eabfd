// A kernel whose one wave loops 20 million times (a tenth of a second on a GPU): more than
// 2^26 instructions in one wave, which SoftGPU once stopped as ILLEGAL_INSTRUCTION. It must
// run to its end and give the host's answer.
#include "hip_check.h"

#include <cstdint>

__global__ void lcg(uint32_t *out, uint32_t n) {
    uint32_t x = out[0];
    for (uint32_t i = 0; i < n; i++) x = x * 1664525u + 1013904223u;
    out[0] = x;
}

int main() {
    const uint32_t n = 20000000, seed = 12345;
    uint32_t want = seed;
    for (uint32_t i = 0; i < n; i++) want = want * 1664525u + 1013904223u;
    uint32_t *out, got = seed;
    HIP_CHECK(hipMalloc(&out, sizeof got));
    HIP_CHECK(hipMemcpy(out, &got, sizeof got, hipMemcpyHostToDevice));
    hipLaunchKernelGGL(lcg, dim3(1), dim3(1), 0, 0, out, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemcpy(&got, out, sizeof got, hipMemcpyDeviceToHost));
    EXPECT(got == want);
    HIP_CHECK(hipFree(out));
    return hip_report("HIP LONG LOOP");
}
