// hipRAND and hipSPARSE, the portable layers over rocRAND and rocSPARSE, as CUDA code
// ported to HIP calls them: a Philox generator through hipRAND's host and device APIs and
// a sparse matrix-vector product through hipSPARSE, against host references.
// Prints "HIP WRAPPERS OK".
#define QUALIFIERS __forceinline__ __device__ __host__
#include <hiprand/hiprand.h>
#include <hiprand/hiprand_kernel.h>
#include <hipsparse/hipsparse.h>

#include <vector>

#include "client_check.h"

__global__ void draw(float* out, unsigned long long seed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    hiprandStatePhilox4_32_10_t s;
    hiprand_init(seed, t, 0, &s);
    out[t] = hiprand_uniform(&s);
}

int main() {
    const int n = 1024;
    float* d;
    HIP_CHECK(hipMalloc(&d, n * sizeof(float)));
    std::vector<float> got(n), want(n);

    // Host API: Philox's output is its subsequence-0 stream whatever the launch layout.
    hiprandGenerator_t g;
    STATUS_CHECK(hiprandCreateGenerator(&g, HIPRAND_RNG_PSEUDO_PHILOX4_32_10));
    STATUS_CHECK(hiprandSetPseudoRandomGeneratorSeed(g, 7));
    STATUS_CHECK(hiprandGenerateUniform(g, d, n));
    HIP_CHECK(hipMemcpy(got.data(), d, n * sizeof(float), hipMemcpyDeviceToHost));
    hiprandStatePhilox4_32_10_t s;
    hiprand_init(7, 0, 0, &s);
    for (int i = 0; i < n; ++i) want[i] = hiprand_uniform(&s);
    EXPECT_NEAR_ARRAY("hiprand host api", got, want, n, 0.0);
    STATUS_CHECK(hiprandDestroyGenerator(g));

    draw<<<n / 128, 128>>>(d, 9);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(got.data(), d, n * sizeof(float), hipMemcpyDeviceToHost));
    for (int t = 0; t < n; ++t) {
        hiprand_init(9, t, 0, &s);
        want[t] = hiprand_uniform(&s);
    }
    EXPECT_NEAR_ARRAY("hiprand device api", got, want, n, 0.0);

    // y = A x for a 4x4 CSR matrix.
    hipsparseHandle_t h;
    STATUS_CHECK(hipsparseCreate(&h));
    const int rp[] = {0, 1, 3, 4, 6}, ci[] = {0, 0, 1, 2, 1, 3};
    const float v[] = {1, 2, 3, 4, 5, 6}, x[] = {1, -1, 2, 0.5f}, wanted[] = {1, -1, 8, -2};
    int *drp, *dci;
    float *dv, *dx, *dy;
    HIP_CHECK(hipMalloc(&drp, sizeof rp));
    HIP_CHECK(hipMalloc(&dci, sizeof ci));
    HIP_CHECK(hipMalloc(&dv, sizeof v));
    HIP_CHECK(hipMalloc(&dx, sizeof x));
    HIP_CHECK(hipMalloc(&dy, sizeof x));
    HIP_CHECK(hipMemcpy(drp, rp, sizeof rp, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dci, ci, sizeof ci, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dv, v, sizeof v, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dx, x, sizeof x, hipMemcpyHostToDevice));
    hipsparseMatDescr_t descr;
    STATUS_CHECK(hipsparseCreateMatDescr(&descr));
    const float one = 1, zero = 0;
    STATUS_CHECK(hipsparseScsrmv(h, HIPSPARSE_OPERATION_NON_TRANSPOSE, 4, 4, 6, &one, descr, dv, drp, dci, dx,
                                 &zero, dy));
    float y[4];
    HIP_CHECK(hipMemcpy(y, dy, sizeof y, hipMemcpyDeviceToHost));
    EXPECT_NEAR_ARRAY("hipsparse csrmv", y, wanted, 4, 0.0);
    STATUS_CHECK(hipsparseDestroy(h));
    return hip_report("HIP WRAPPERS");
}
