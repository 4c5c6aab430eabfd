// rocSPARSE (Debian's 5.3, its own precompiled gfx1030 kernels) used as its users do:
// csrmv with and without analysis (the adaptive kernel), the triangular solves csrsv and
// csrsm (analysis + solve: waves and workgroups poll each other's progress), csrmm,
// csr2bsr + bsrmv, the incomplete factorization csrilu0 and the tridiagonal solver gtsv.
// Every result is checked against a CPU reference. Prints "ROCSPARSE SOLVERS OK".
#include <rocsparse/rocsparse.h>

#include <vector>

#include "client_check.h"

template <class T>
static T* upload(const std::vector<T>& h) {
    T* d = nullptr;
    HIP_CHECK(hipMalloc(&d, h.size() * sizeof(T) + sizeof(T)));
    HIP_CHECK(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
    return d;
}

template <class T>
static std::vector<T> download(const T* d, size_t n) {
    std::vector<T> h(n);
    HIP_CHECK(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
    return h;
}

static void* scratch(size_t bytes) {
    void* d = nullptr;
    HIP_CHECK(hipMalloc(&d, bytes ? bytes : 4));
    return d;
}

// A CSR matrix: m x n, a nonzero diagonal, scattered off-diagonal entries; `lower` keeps
// the lower triangle only.
struct Csr {
    int m, n;
    std::vector<int> rp, ci;
    std::vector<float> v;
};

static Csr make(int m, int n, bool lower) {
    Csr a{m, n, std::vector<int>(m + 1), {}, {}};
    for (int i = 0; i < m; ++i) {
        a.rp[i] = (int)a.ci.size();
        for (int j = 0; j < (lower ? i + 1 : n); ++j) {
            if (j != i && (i * 7 + j * 3) % 11 != 0 && (i + 2 * j) % 5 != 0) continue;
            a.ci.push_back(j);
            a.v.push_back(j == i ? 2.0f + i % 3 : 0.25f * (1 + (i * j) % 3));
        }
    }
    a.rp[m] = (int)a.ci.size();
    return a;
}

static std::vector<float> spmv(const Csr& a, const std::vector<float>& x) {
    std::vector<float> y(a.m);
    for (int i = 0; i < a.m; ++i)
        for (int k = a.rp[i]; k < a.rp[i + 1]; ++k) y[i] += a.v[k] * x[a.ci[k]];
    return y;
}

// x with L x = alpha b, by forward substitution.
static std::vector<float> forward(const Csr& l, float alpha, const std::vector<float>& b) {
    std::vector<float> x(l.m);
    for (int i = 0; i < l.m; ++i) {
        float s = alpha * b[i], diag = 1;
        for (int k = l.rp[i]; k < l.rp[i + 1]; ++k) {
            if (l.ci[k] == i)
                diag = l.v[k];
            else
                s -= l.v[k] * x[l.ci[k]];
        }
        x[i] = s / diag;
    }
    return x;
}

// The matrix on the device, with a general descriptor.
struct DeviceCsr {
    int nnz, *rp, *ci;
    float* v;
    rocsparse_mat_descr descr;
};

static DeviceCsr to_device(const Csr& a) {
    DeviceCsr d{(int)a.ci.size(), upload(a.rp), upload(a.ci), upload(a.v), nullptr};
    STATUS_CHECK(rocsparse_create_mat_descr(&d.descr));
    return d;
}

static void csrmv(rocsparse_handle h) {
    Csr a = make(70, 53, false);
    DeviceCsr d = to_device(a);
    std::vector<float> x(a.n), y(a.m, 1.0f), want(a.m);
    for (int j = 0; j < a.n; ++j) x[j] = 0.5f + j % 3;
    const float alpha = 2.0f, beta = 0.5f;
    std::vector<float> ax = spmv(a, x);
    for (int i = 0; i < a.m; ++i) want[i] = alpha * ax[i] + beta * y[i];
    float *dx = upload(x), *dy = upload(y);
    STATUS_CHECK(rocsparse_scsrmv(h, rocsparse_operation_none, a.m, a.n, d.nnz, &alpha, d.descr, d.v, d.rp,
                                  d.ci, nullptr, dx, &beta, dy));
    EXPECT_NEAR_ARRAY("csrmv", download(dy, a.m), want, a.m, 1e-5);
    // With analysis, rocSPARSE picks its adaptive kernel (row blocks computed on the GPU).
    rocsparse_mat_info info;
    STATUS_CHECK(rocsparse_create_mat_info(&info));
    HIP_CHECK(hipMemcpy(dy, y.data(), a.m * sizeof(float), hipMemcpyHostToDevice));
    STATUS_CHECK(rocsparse_scsrmv_analysis(h, rocsparse_operation_none, a.m, a.n, d.nnz, d.descr, d.v, d.rp,
                                           d.ci, info));
    STATUS_CHECK(rocsparse_scsrmv(h, rocsparse_operation_none, a.m, a.n, d.nnz, &alpha, d.descr, d.v, d.rp,
                                  d.ci, info, dx, &beta, dy));
    EXPECT_NEAR_ARRAY("csrmv adaptive", download(dy, a.m), want, a.m, 1e-5);
}

static void triangular_solves(rocsparse_handle h) {
    Csr l = make(48, 48, true);
    int m = l.m;
    DeviceCsr d = to_device(l);
    STATUS_CHECK(rocsparse_set_mat_fill_mode(d.descr, rocsparse_fill_mode_lower));

    const float alpha = 1.5f;
    std::vector<float> b(m);
    for (int i = 0; i < m; ++i) b[i] = 1.0f + i % 4;
    float *db = upload(b), *dx = upload(std::vector<float>(m));
    rocsparse_mat_info info;
    STATUS_CHECK(rocsparse_create_mat_info(&info));
    size_t bytes = 0;
    STATUS_CHECK(rocsparse_scsrsv_buffer_size(h, rocsparse_operation_none, m, d.nnz, d.descr, d.v, d.rp, d.ci,
                                              info, &bytes));
    void* buffer = scratch(bytes);
    STATUS_CHECK(rocsparse_scsrsv_analysis(h, rocsparse_operation_none, m, d.nnz, d.descr, d.v, d.rp, d.ci,
                                           info, rocsparse_analysis_policy_reuse, rocsparse_solve_policy_auto,
                                           buffer));
    STATUS_CHECK(rocsparse_scsrsv_solve(h, rocsparse_operation_none, m, d.nnz, &alpha, d.descr, d.v, d.rp,
                                        d.ci, info, db, dx, rocsparse_solve_policy_auto, buffer));
    rocsparse_int pivot = 0;
    EXPECT(rocsparse_csrsv_zero_pivot(h, d.descr, info, &pivot) == rocsparse_status_success);
    EXPECT_NEAR_ARRAY("csrsv", download(dx, m), forward(l, alpha, b), m, 1e-5);

    const int nrhs = 3;
    const float one = 1.0f;
    std::vector<float> rhs(m * nrhs), want(m * nrhs);
    for (int i = 0; i < m * nrhs; ++i) rhs[i] = 1.0f + i % 7;
    for (int r = 0; r < nrhs; ++r) {
        std::vector<float> column(rhs.begin() + r * m, rhs.begin() + (r + 1) * m);
        std::vector<float> x = forward(l, one, column);
        std::copy(x.begin(), x.end(), want.begin() + r * m);
    }
    float* dB = upload(rhs);
    rocsparse_mat_info info_sm;
    STATUS_CHECK(rocsparse_create_mat_info(&info_sm));
    STATUS_CHECK(rocsparse_scsrsm_buffer_size(h, rocsparse_operation_none, rocsparse_operation_none, m, nrhs,
                                              d.nnz, &one, d.descr, d.v, d.rp, d.ci, dB, m, info_sm,
                                              rocsparse_solve_policy_auto, &bytes));
    void* buffer_sm = scratch(bytes);
    STATUS_CHECK(rocsparse_scsrsm_analysis(
        h, rocsparse_operation_none, rocsparse_operation_none, m, nrhs, d.nnz, &one, d.descr, d.v, d.rp, d.ci,
        dB, m, info_sm, rocsparse_analysis_policy_reuse, rocsparse_solve_policy_auto, buffer_sm));
    STATUS_CHECK(rocsparse_scsrsm_solve(h, rocsparse_operation_none, rocsparse_operation_none, m, nrhs, d.nnz,
                                        &one, d.descr, d.v, d.rp, d.ci, dB, m, info_sm,
                                        rocsparse_solve_policy_auto, buffer_sm));
    EXPECT_NEAR_ARRAY("csrsm", download(dB, m * nrhs), want, m * nrhs, 1e-5);
}

static void csrmm_and_bsrmv(rocsparse_handle h) {
    Csr a = make(45, 45, false);
    int m = a.m;
    DeviceCsr d = to_device(a);

    // C = alpha A B + beta C, B and C dense column-major with k columns.
    const int k = 5;
    const float alpha = 2.0f, beta = -1.0f;
    std::vector<float> B(m * k), C(m * k, 1.0f), want(m * k);
    for (int i = 0; i < m * k; ++i) B[i] = 0.5f * (i % 9);
    for (int c = 0; c < k; ++c) {
        std::vector<float> ab = spmv(a, std::vector<float>(B.begin() + c * m, B.begin() + (c + 1) * m));
        for (int i = 0; i < m; ++i) want[i + c * m] = alpha * ab[i] + beta * C[i + c * m];
    }
    float *dB = upload(B), *dC = upload(C);
    STATUS_CHECK(rocsparse_scsrmm(h, rocsparse_operation_none, rocsparse_operation_none, m, k, m, d.nnz,
                                  &alpha, d.descr, d.v, d.rp, d.ci, dB, m, &beta, dC, m));
    EXPECT_NEAR_ARRAY("csrmm", download(dC, m * k), want, m * k, 1e-5);

    // The same matrix in 3x3 blocks (converted on the GPU), times a vector.
    const int dim = 3, mb = (m + dim - 1) / dim;
    rocsparse_mat_descr bsr_descr;
    STATUS_CHECK(rocsparse_create_mat_descr(&bsr_descr));
    int* bsr_rp = (int*)scratch((mb + 1) * sizeof(int));
    int bnnz = 0;
    STATUS_CHECK(rocsparse_csr2bsr_nnz(h, rocsparse_direction_row, m, m, d.descr, d.rp, d.ci, dim, bsr_descr,
                                       bsr_rp, &bnnz));
    int* bsr_ci = (int*)scratch(bnnz * sizeof(int));
    float* bsr_v = (float*)scratch(bnnz * dim * dim * sizeof(float));
    STATUS_CHECK(rocsparse_scsr2bsr(h, rocsparse_direction_row, m, m, d.descr, d.v, d.rp, d.ci, dim,
                                    bsr_descr, bsr_v, bsr_rp, bsr_ci));
    std::vector<float> x(mb * dim, 0.0f);
    for (int i = 0; i < m; ++i) x[i] = 1.0f + i % 5;
    std::vector<float> bwant = spmv(a, x);
    bwant.resize(mb * dim, 0.0f);
    float *dx = upload(x), *dy = upload(std::vector<float>(mb * dim));
    const float one = 1.0f, zero = 0.0f;
    STATUS_CHECK(rocsparse_sbsrmv(h, rocsparse_direction_row, rocsparse_operation_none, mb, mb, bnnz, &one,
                                  bsr_descr, bsr_v, bsr_rp, bsr_ci, dim, dx, &zero, dy));
    EXPECT_NEAR_ARRAY("bsrmv", download(dy, mb * dim), bwant, mb * dim, 1e-5);
}

// ILU(0) on the matrix's own pattern, the textbook IKJ loop.
static std::vector<float> ilu0(const Csr& a) {
    std::vector<float> lu = a.v;
    auto at = [&](int i, int j) -> int {
        for (int k = a.rp[i]; k < a.rp[i + 1]; ++k)
            if (a.ci[k] == j) return k;
        return -1;
    };
    for (int i = 1; i < a.m; ++i)
        for (int p = a.rp[i]; p < a.rp[i + 1] && a.ci[p] < i; ++p) {
            int kk = a.ci[p];
            lu[p] /= lu[at(kk, kk)];
            for (int q = p + 1; q < a.rp[i + 1]; ++q) {
                int pos = at(kk, a.ci[q]);
                if (pos >= 0) lu[q] -= lu[p] * lu[pos];
            }
        }
    return lu;
}

static void incomplete_lu(rocsparse_handle h) {
    Csr a = make(40, 40, false);
    int m = a.m;
    DeviceCsr d = to_device(a);
    rocsparse_mat_info info;
    STATUS_CHECK(rocsparse_create_mat_info(&info));
    size_t bytes = 0;
    STATUS_CHECK(rocsparse_scsrilu0_buffer_size(h, m, d.nnz, d.descr, d.v, d.rp, d.ci, info, &bytes));
    void* buffer = scratch(bytes);
    STATUS_CHECK(rocsparse_scsrilu0_analysis(h, m, d.nnz, d.descr, d.v, d.rp, d.ci, info,
                                             rocsparse_analysis_policy_reuse, rocsparse_solve_policy_auto,
                                             buffer));
    STATUS_CHECK(
        rocsparse_scsrilu0(h, m, d.nnz, d.descr, d.v, d.rp, d.ci, info, rocsparse_solve_policy_auto, buffer));
    rocsparse_int pivot = 0;
    EXPECT(rocsparse_csrilu0_zero_pivot(h, info, &pivot) == rocsparse_status_success);
    EXPECT_NEAR_ARRAY("csrilu0", download(d.v, d.nnz), ilu0(a), d.nnz, 1e-5);
}

// Tridiagonal systems, two right-hand sides: Thomas' algorithm on the host.
static void tridiagonal(rocsparse_handle h) {
    const int n = 37, nrhs = 2;
    std::vector<float> dl(n), d(n), du(n), B(n * nrhs), want(n * nrhs);
    for (int i = 0; i < n; ++i) {
        dl[i] = i ? -1.0f - 0.125f * (i % 3) : 0.0f;
        du[i] = i < n - 1 ? -0.5f : 0.0f;
        d[i] = 4.0f + (i % 2);
    }
    for (int i = 0; i < n * nrhs; ++i) B[i] = (float)(i % 5) - 1.5f;
    for (int r = 0; r < nrhs; ++r) {
        std::vector<double> c(n), y(n);
        for (int i = 0; i < n; ++i) {
            double den = d[i] - (i ? dl[i] * c[i - 1] : 0.0);
            c[i] = du[i] / den;
            y[i] = (B[i + r * n] - (i ? dl[i] * y[i - 1] : 0.0)) / den;
        }
        for (int i = n - 1; i >= 0; --i)
            want[i + r * n] = (float)(y[i] - (i < n - 1 ? c[i] * want[i + 1 + r * n] : 0.0));
    }
    float *ddl = upload(dl), *dd = upload(d), *ddu = upload(du), *dB = upload(B);
    size_t bytes = 0;
    STATUS_CHECK(rocsparse_sgtsv_buffer_size(h, n, nrhs, ddl, dd, ddu, dB, n, &bytes));
    void* gtsv_buffer = scratch(bytes);
    STATUS_CHECK(rocsparse_sgtsv(h, n, nrhs, ddl, dd, ddu, dB, n, gtsv_buffer));
    EXPECT_NEAR_ARRAY("gtsv", download(dB, n * nrhs), want, n * nrhs, 1e-5);
}

int main() {
    rocsparse_handle h;
    STATUS_CHECK(rocsparse_create_handle(&h));
    csrmv(h);
    triangular_solves(h);
    csrmm_and_bsrmv(h);
    incomplete_lu(h);
    tridiagonal(h);
    STATUS_CHECK(rocsparse_destroy_handle(h));
    return hip_report("ROCSPARSE SOLVERS");
}
