// rocRAND (Debian's 5.3, its own precompiled gfx1030 kernels) through its host API, and its
// device API compiled into a user kernel, checked against the same engines run on the host
// (rocRAND's device functions are plain C++: FQUALIFIERS makes them host functions too).
//
// Host API: Philox4x32-10 (uniform, uniform double, normal), MRG32k3a (uniform), Sobol32
// (uniform) exactly; MRG32k3a normal, MTGP32 uniform and Poisson by their moments. XORWOW's
// host generator is left out: its initialization kernel alone runs 3.7e9 lane instructions
// (over a minute on the interpreter); its engine is checked through the device API.
// Prints "ROCRAND GENERATORS OK".
#define FQUALIFIERS __forceinline__ __device__ __host__
#include <rocrand/rocrand.h>
#include <rocrand/rocrand_kernel.h>

#include <vector>

#include "client_check.h"

static const unsigned long long SEED = 1234;
static const size_t N = 4096;

template <class T>
static std::vector<T> download(const T* d, size_t n) {
    std::vector<T> h(n);
    HIP_CHECK(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
    return h;
}

// Mean and variance within a few standard errors of the distribution's.
static void expect_moments(const char* what, const std::vector<double>& v, double mean, double var) {
    double m = 0, s = 0;
    for (double x : v) m += x;
    m /= v.size();
    for (double x : v) s += (x - m) * (x - m);
    s /= v.size();
    bool ok = std::fabs(m - mean) < 5 * std::sqrt(var / v.size()) && std::fabs(s - var) < 0.15 * var;
    for (double x : v) ok = ok && std::isfinite(x);
    if (!ok) {
        std::printf("FAIL %s: mean %g (expected %g), variance %g (expected %g)\n", what, m, mean, s, var);
        hip_failures++;
    } else {
        std::printf("%s ok\n", what);
    }
}

template <class T>
static std::vector<double> widen(const std::vector<T>& v) {
    return std::vector<double>(v.begin(), v.end());
}

static rocrand_generator seeded(rocrand_rng_type type) {
    rocrand_generator g;
    STATUS_CHECK(rocrand_create_generator(&g, type));
    STATUS_CHECK(rocrand_set_seed(g, SEED));
    return g;
}

static void philox_host_api(float* d, double* dd) {
    rocrand_generator g = seeded(ROCRAND_RNG_PSEUDO_PHILOX4_32_10);
    STATUS_CHECK(rocrand_generate_uniform(g, d, N));
    std::vector<float> uniform = download(d, N);
    STATUS_CHECK(rocrand_generate_normal(g, d, N, 1.0f, 2.0f));
    std::vector<float> normal = download(d, N);
    STATUS_CHECK(rocrand_generate_uniform_double(g, dd, N));
    std::vector<double> uniform_double = download(dd, N);
    STATUS_CHECK(rocrand_destroy_generator(g));
    // Philox is counter based: whatever the launch layout, the host generator's output is
    // subsequence 0's stream, each call continuing where the last ended.
    rocrand_state_philox4x32_10 s;
    rocrand_init(SEED, 0, 0, &s);
    std::vector<float> want(N), want_normal(N);
    std::vector<double> want_double(N);
    for (size_t i = 0; i < N; ++i) want[i] = rocrand_uniform(&s);
    for (size_t i = 0; i < N; i += 4) {
        float4 v = rocrand_normal4(&s);
        float four[4] = {v.x, v.y, v.z, v.w};
        for (int j = 0; j < 4; ++j) want_normal[i + j] = 1.0f + 2.0f * four[j];
    }
    for (size_t i = 0; i < N; i += 2) {
        double2 v = rocrand_uniform_double2(&s);
        want_double[i] = v.x;
        want_double[i + 1] = v.y;
    }
    EXPECT_NEAR_ARRAY("philox uniform", uniform, want, N, 0.0);
    // Box-Muller through the device library's log/sincos: a few ulps from the host's libm.
    EXPECT_NEAR_ARRAY("philox normal", normal, want_normal, N, 1e-5);
    EXPECT_NEAR_ARRAY("philox uniform double", uniform_double, want_double, N, 0.0);
}

static void mrg32k3a_host_api(float* d) {
    rocrand_generator g = seeded(ROCRAND_RNG_PSEUDO_MRG32K3A);
    STATUS_CHECK(rocrand_generate_uniform(g, d, N));
    std::vector<float> uniform = download(d, N);
    STATUS_CHECK(rocrand_generate_normal(g, d, N, -1.0f, 0.5f));
    std::vector<float> normal = download(d, N);
    STATUS_CHECK(rocrand_destroy_generator(g));
    // One engine per thread, engine i at subsequence i: a first call of N < engines
    // values takes each engine's first draw.
    std::vector<float> want(N);
    for (size_t i = 0; i < N; ++i) {
        rocrand_state_mrg32k3a s;
        rocrand_init(SEED, i, 0, &s);
        want[i] = rocrand_uniform(&s);
    }
    EXPECT_NEAR_ARRAY("mrg32k3a uniform", uniform, want, N, 0.0);
    expect_moments("mrg32k3a normal", widen(normal), -1.0, 0.25);
}

static void sobol32_host_api(float* d) {
    rocrand_generator g;
    STATUS_CHECK(rocrand_create_generator(&g, ROCRAND_RNG_QUASI_SOBOL32));
    STATUS_CHECK(rocrand_generate_uniform(g, d, N));
    std::vector<float> uniform = download(d, N);
    STATUS_CHECK(rocrand_destroy_generator(g));
    // Dimension 1's direction numbers are 2^(31-k): point i is the bit reversal of i's
    // Gray code, scaled into (0, 1] as rocRAND scales 32-bit values.
    std::vector<float> want(N);
    for (unsigned i = 0; i < N; ++i) {
        unsigned gray = i ^ (i >> 1), v = 0;
        for (int b = 0; b < 32; ++b) v |= ((gray >> b) & 1u) << (31 - b);
        want[i] = ROCRAND_2POW32_INV + v * ROCRAND_2POW32_INV;
    }
    EXPECT_NEAR_ARRAY("sobol32 uniform", uniform, want, N, 0.0);
}

static void mtgp32_and_poisson(float* d, unsigned* du) {
    rocrand_generator g = seeded(ROCRAND_RNG_PSEUDO_MTGP32);
    STATUS_CHECK(rocrand_generate_uniform(g, d, N));
    std::vector<float> uniform = download(d, N);
    bool in_range = true;
    for (float x : uniform) in_range = in_range && x > 0.0f && x <= 1.0f;
    EXPECT(in_range);
    expect_moments("mtgp32 uniform", widen(uniform), 0.5, 1.0 / 12);
    STATUS_CHECK(rocrand_destroy_generator(g));
    STATUS_CHECK(rocrand_create_generator(&g, ROCRAND_RNG_PSEUDO_PHILOX4_32_10));
    for (double lambda : {0.5, 20.0, 3000.0}) {  // three of rocRAND's Poisson methods
        STATUS_CHECK(rocrand_generate_poisson(g, du, N, lambda));
        char what[48];
        std::snprintf(what, sizeof what, "philox poisson lambda=%g", lambda);
        expect_moments(what, widen(download(du, N)), lambda, lambda);
    }
    STATUS_CHECK(rocrand_destroy_generator(g));
}

// The device API in a user kernel: each thread draws uniforms and normals from its own
// subsequence, as the rocRAND documentation shows.
const int PER_THREAD = 4, THREADS = 128;

template <class State>
__global__ void draw(float* uniform, float* normal, unsigned long long seed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    State s;
    rocrand_init(seed, t, 3, &s);
    for (int i = 0; i < PER_THREAD; ++i) {
        uniform[t * PER_THREAD + i] = rocrand_uniform(&s);
        normal[t * PER_THREAD + i] = rocrand_normal(&s);
    }
}

template <class State>
static void device_api(const char* name, float* du, float* dn) {
    const int n = THREADS * PER_THREAD;
    draw<State><<<THREADS / 64, 64>>>(du, dn, SEED);
    HIP_CHECK(hipGetLastError());
    std::vector<float> uniform = download(du, n), normal = download(dn, n), want(n), want_normal(n);
    for (int t = 0; t < THREADS; ++t) {
        State s;
        rocrand_init(SEED, t, 3, &s);
        for (int i = 0; i < PER_THREAD; ++i) {
            want[t * PER_THREAD + i] = rocrand_uniform(&s);
            want_normal[t * PER_THREAD + i] = rocrand_normal(&s);
        }
    }
    char what[64];
    std::snprintf(what, sizeof what, "device api %s uniform", name);
    EXPECT_NEAR_ARRAY(what, uniform, want, n, 0.0);
    std::snprintf(what, sizeof what, "device api %s normal", name);
    EXPECT_NEAR_ARRAY(what, normal, want_normal, n, 1e-5);
}

int main() {
    float* d;
    double* dd;
    unsigned* du;
    HIP_CHECK(hipMalloc(&d, N * sizeof(float)));
    HIP_CHECK(hipMalloc(&dd, N * sizeof(double)));
    HIP_CHECK(hipMalloc(&du, N * sizeof(unsigned)));
    philox_host_api(d, dd);
    mrg32k3a_host_api(d);
    sobol32_host_api(d);
    mtgp32_and_poisson(d, du);
    float *uniform, *normal;
    HIP_CHECK(hipMalloc(&uniform, THREADS * PER_THREAD * sizeof(float)));
    HIP_CHECK(hipMalloc(&normal, THREADS * PER_THREAD * sizeof(float)));
    device_api<rocrand_state_xorwow>("xorwow", uniform, normal);
    device_api<rocrand_state_philox4x32_10>("philox", uniform, normal);
    device_api<rocrand_state_mrg32k3a>("mrg32k3a", uniform, normal);
    return hip_report("ROCRAND GENERATORS");
}
