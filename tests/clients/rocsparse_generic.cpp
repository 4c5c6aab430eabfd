// rocSPARSE's generic API over every value type (float, double, complex float, complex
// double): SpMV (CSR adaptive/stream, COO segmented/atomic, ELL; transposed and
// conjugate-transposed), SpSV, SpMM (six algorithms), SpGEMM, SDDMM, dense<->sparse, and
// the sparse-vector ops, each checked against a CPU reference in complex double.
// argv[1] may name one type (f32, f64, c32, c64). Prints "ROCSPARSE GENERIC OK".
#include <rocsparse/rocsparse.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "client_check.h"

using C = std::complex<double>;
struct Type {
    const char* name;
    rocsparse_datatype dt;
    size_t size;
    bool complex;
    double tol;
};
static const Type TYPES[] = {{"f32", rocsparse_datatype_f32_r, 4, false, 2e-5},
                             {"f64", rocsparse_datatype_f64_r, 8, false, 1e-12},
                             {"c32", rocsparse_datatype_f32_c, 8, true, 2e-5},
                             {"c64", rocsparse_datatype_f64_c, 16, true, 1e-12}};
// Host values <-> the device layout of each type.
static std::vector<char> pack(const Type& t, const std::vector<C>& v) {
    std::vector<char> out(v.size() * t.size);
    for (size_t i = 0; i < v.size(); ++i) {
        char* p = &out[i * t.size];
        if (t.dt == rocsparse_datatype_f32_r) {
            float f = v[i].real();
            memcpy(p, &f, 4);
        } else if (t.dt == rocsparse_datatype_f64_r) {
            double d = v[i].real();
            memcpy(p, &d, 8);
        } else if (t.dt == rocsparse_datatype_f32_c) {
            float f[2] = {(float)v[i].real(), (float)v[i].imag()};
            memcpy(p, f, 8);
        } else {
            double d[2] = {v[i].real(), v[i].imag()};
            memcpy(p, d, 16);
        }
    }
    return out;
}
static std::vector<C> unpack(const Type& t, const std::vector<char>& b) {
    std::vector<C> v(b.size() / t.size);
    for (size_t i = 0; i < v.size(); ++i) {
        const char* p = &b[i * t.size];
        if (t.dt == rocsparse_datatype_f32_r) {
            float f;
            memcpy(&f, p, 4);
            v[i] = f;
        } else if (t.dt == rocsparse_datatype_f64_r) {
            double d;
            memcpy(&d, p, 8);
            v[i] = d;
        } else if (t.dt == rocsparse_datatype_f32_c) {
            float f[2];
            memcpy(f, p, 8);
            v[i] = C(f[0], f[1]);
        } else {
            double d[2];
            memcpy(d, p, 16);
            v[i] = C(d[0], d[1]);
        }
    }
    return v;
}
static void* alloc(size_t bytes) {
    void* d;
    HIP_CHECK(hipMalloc(&d, bytes ? bytes : 4));
    return d;
}
static void* upload(const void* h, size_t bytes) {
    void* d = alloc(bytes);
    if (bytes) HIP_CHECK(hipMemcpy(d, h, bytes, hipMemcpyHostToDevice));
    return d;
}
template <class I>
static I* upload(const std::vector<I>& h) {
    return (I*)upload(h.data(), h.size() * sizeof(I));
}
static void* upload(const Type& t, const std::vector<C>& v) {
    auto b = pack(t, v);
    return upload(b.data(), b.size());
}
static std::vector<C> download(const Type& t, const void* d, size_t n) {
    std::vector<char> b(n * t.size);
    HIP_CHECK(hipMemcpy(b.data(), d, b.size(), hipMemcpyDeviceToHost));
    return unpack(t, b);
}
static void check(const Type& t, const char* what, const std::vector<C>& got, const std::vector<C>& want) {
    int bad = 0;
    for (size_t i = 0; i < want.size(); ++i)
        if (!(std::abs(got[i] - want[i]) <= t.tol * (1 + std::abs(want[i])))) {
            if (bad++ < 3)
                printf("FAIL %s %s [%zu]: (%g,%g) want (%g,%g)\n", t.name, what, i, got[i].real(),
                       got[i].imag(), want[i].real(), want[i].imag());
        }
    if (!bad) printf("%s %s ok\n", t.name, what);
    hip_failures += bad != 0;
}
struct Csr {
    int m, n;
    std::vector<int> rp, ci;
    std::vector<C> v;
};
// A sparse matrix with a nonzero diagonal; `tri` keeps only the lower triangle.
static Csr make(int m, int n, int salt, bool tri, bool complex) {
    Csr a{m, n, std::vector<int>(m + 1), {}, {}};
    for (int i = 0; i < m; ++i) {
        a.rp[i] = a.ci.size();
        for (int j = 0; j < n; ++j) {
            bool on = (i == j) || ((i * 7 + j * 3 + salt) % 11 == 0);
            if (!on || (tri && j > i)) continue;
            a.ci.push_back(j);
            double re = i == j ? 4.0 + i % 3 : 0.25 * (1 + (i + 2 * j + salt) % 5);
            a.v.push_back(C(re, complex ? 0.5 * ((i + j) % 3) - 0.5 : 0.0));
        }
    }
    a.rp[a.m] = a.ci.size();
    return a;
}
static C op(C x, rocsparse_operation o) {
    return o == rocsparse_operation_conjugate_transpose ? std::conj(x) : x;
}
static std::vector<C> vec(int n, int salt, bool complex) {
    std::vector<C> v(n);
    for (int i = 0; i < n; ++i)
        v[i] = C(0.5 * ((i * 3 + salt) % 7) - 1.0, complex ? 0.25 * ((i + salt) % 5) : 0.0);
    return v;
}
// y = alpha op(A) x + beta y
static std::vector<C> ref_spmv(const Csr& a, rocsparse_operation o, C alpha, const std::vector<C>& x, C beta,
                               std::vector<C> y) {
    std::vector<C> ax(y.size());
    for (int i = 0; i < a.m; ++i)
        for (int k = a.rp[i]; k < a.rp[i + 1]; ++k) {
            if (o == rocsparse_operation_none)
                ax[i] += a.v[k] * x[a.ci[k]];
            else
                ax[a.ci[k]] += op(a.v[k], o) * x[i];
        }
    for (size_t i = 0; i < y.size(); ++i) y[i] = alpha * ax[i] + beta * y[i];
    return y;
}
static void scalar(const Type& t, C v, char* out) {
    auto b = pack(t, {v});
    memcpy(out, b.data(), t.size);
}

// The matrix on the device, described as CSR and as COO (sharing columns and values).
struct Described {
    rocsparse_spmat_descr csr, coo;
};

static Described describe(const Type& t, const Csr& a) {
    std::vector<int> rows;
    for (int i = 0; i < a.m; ++i)
        for (int k = a.rp[i]; k < a.rp[i + 1]; ++k) rows.push_back(i);
    int* rp = upload(a.rp);
    int* ci = upload(a.ci);
    void* v = upload(t, a.v);
    Described d;
    STATUS_CHECK(rocsparse_create_csr_descr(&d.csr, a.m, a.n, a.ci.size(), rp, ci, v, rocsparse_indextype_i32,
                                            rocsparse_indextype_i32, rocsparse_index_base_zero, t.dt));
    STATUS_CHECK(rocsparse_create_coo_descr(&d.coo, a.m, a.n, a.ci.size(), upload(rows), ci, v,
                                            rocsparse_indextype_i32, rocsparse_index_base_zero, t.dt));
    return d;
}

// alpha and beta in the type's layout, for the API's void* scalars.
struct Scalars {
    char alpha[16], beta[16];
};

static Scalars scalars(const Type& t, C alpha, C beta) {
    Scalars s;
    scalar(t, alpha, s.alpha);
    scalar(t, beta, s.beta);
    return s;
}

static void test_spmv(rocsparse_handle h, const Type& t) {
    Csr a = make(37, 29, 1, false, t.complex);
    C alpha(1.5, t.complex ? -0.5 : 0), beta(-0.5, t.complex ? 0.25 : 0);
    Scalars ab = scalars(t, alpha, beta);
    Described d = describe(t, a);
    // ELL of width max row length, padded with column -1
    int width = 0;
    for (int i = 0; i < a.m; ++i) width = std::max(width, a.rp[i + 1] - a.rp[i]);
    std::vector<int> eci(a.m * width, -1);
    std::vector<C> ev(a.m * width);
    for (int i = 0; i < a.m; ++i)
        for (int k = a.rp[i]; k < a.rp[i + 1]; ++k) {
            eci[(k - a.rp[i]) * a.m + i] = a.ci[k];
            ev[(k - a.rp[i]) * a.m + i] = a.v[k];
        }
    int* deci = upload(eci);
    void* dev = upload(t, ev);
    rocsparse_spmat_descr ell;
    STATUS_CHECK(rocsparse_create_ell_descr(&ell, a.m, a.n, deci, dev, width, rocsparse_indextype_i32,
                                            rocsparse_index_base_zero, t.dt));
    struct {
        const char* name;
        rocsparse_spmat_descr mat;
        rocsparse_spmv_alg alg;
    } cases[] = {{"spmv csr adaptive", d.csr, rocsparse_spmv_alg_csr_adaptive},
                 {"spmv csr stream", d.csr, rocsparse_spmv_alg_csr_stream},
                 {"spmv coo segmented", d.coo, rocsparse_spmv_alg_coo},
                 {"spmv coo atomic", d.coo, rocsparse_spmv_alg_coo_atomic},
                 {"spmv ell", ell, rocsparse_spmv_alg_ell}};
    rocsparse_operation ops[] = {rocsparse_operation_none, rocsparse_operation_transpose,
                                 rocsparse_operation_conjugate_transpose};
    for (auto& c : cases)
        for (auto o : ops) {
            if (o == rocsparse_operation_conjugate_transpose && !t.complex) continue;
            if (o != rocsparse_operation_none && c.mat == ell) continue;
            int xs = o == rocsparse_operation_none ? a.n : a.m,
                ys = o == rocsparse_operation_none ? a.m : a.n;
            auto x = vec(xs, 2, t.complex), y = vec(ys, 5, t.complex);
            void* dx = upload(t, x);
            void* dy = upload(t, y);
            rocsparse_dnvec_descr vx, vy;
            STATUS_CHECK(rocsparse_create_dnvec_descr(&vx, xs, dx, t.dt));
            STATUS_CHECK(rocsparse_create_dnvec_descr(&vy, ys, dy, t.dt));
            size_t bs = 0;
            STATUS_CHECK(rocsparse_spmv(h, o, ab.alpha, c.mat, vx, ab.beta, vy, t.dt, c.alg, &bs, nullptr));
            void* buf = alloc(bs);
            STATUS_CHECK(rocsparse_spmv(h, o, ab.alpha, c.mat, vx, ab.beta, vy, t.dt, c.alg, &bs, buf));
            char name[64];
            snprintf(name, sizeof name, "%s op%d", c.name, (int)o - 111);
            check(t, name, download(t, dy, ys), ref_spmv(a, o, alpha, x, beta, y));
            HIP_CHECK(hipFree(dx));
            HIP_CHECK(hipFree(dy));
            HIP_CHECK(hipFree(buf));
            rocsparse_destroy_dnvec_descr(vx);
            rocsparse_destroy_dnvec_descr(vy);
        }
}

static void test_spsv(rocsparse_handle h, const Type& t) {
    Csr a = make(33, 33, 2, true, t.complex);
    int nnz = a.ci.size();
    C alpha(2.0, t.complex ? 1.0 : 0);
    char al[16];
    scalar(t, alpha, al);
    int* rp = upload(a.rp);
    int* ci = upload(a.ci);
    void* v = upload(t, a.v);
    rocsparse_operation ops[] = {rocsparse_operation_none, rocsparse_operation_transpose};
    for (auto o : ops) {
        rocsparse_spmat_descr mat;
        STATUS_CHECK(rocsparse_create_csr_descr(&mat, a.m, a.n, nnz, rp, ci, v, rocsparse_indextype_i32,
                                                rocsparse_indextype_i32, rocsparse_index_base_zero, t.dt));
        rocsparse_fill_mode fill = rocsparse_fill_mode_lower;
        STATUS_CHECK(rocsparse_spmat_set_attribute(mat, rocsparse_spmat_fill_mode, &fill, sizeof fill));
        auto b = vec(a.m, 3, t.complex);
        // reference: op(L) x = alpha b by substitution (forward for L, backward for L^T)
        std::vector<std::vector<C>> dense(a.m, std::vector<C>(a.m));
        for (int i = 0; i < a.m; ++i)
            for (int k = a.rp[i]; k < a.rp[i + 1]; ++k) dense[i][a.ci[k]] = a.v[k];
        std::vector<C> x(a.m);
        if (o == rocsparse_operation_none)
            for (int i = 0; i < a.m; ++i) {
                C s = alpha * b[i];
                for (int j = 0; j < i; ++j) s -= dense[i][j] * x[j];
                x[i] = s / dense[i][i];
            }
        else
            for (int i = a.m - 1; i >= 0; --i) {
                C s = alpha * b[i];
                for (int j = i + 1; j < a.m; ++j) s -= dense[j][i] * x[j];
                x[i] = s / dense[i][i];
            }
        void* db = upload(t, b);
        void* dx = upload(t, std::vector<C>(a.m));
        rocsparse_dnvec_descr vb, vx;
        STATUS_CHECK(rocsparse_create_dnvec_descr(&vb, a.m, db, t.dt));
        STATUS_CHECK(rocsparse_create_dnvec_descr(&vx, a.m, dx, t.dt));
        size_t bs = 0;
        STATUS_CHECK(rocsparse_spsv(h, o, al, mat, vb, vx, t.dt, rocsparse_spsv_alg_default,
                                    rocsparse_spsv_stage_buffer_size, &bs, nullptr));
        void* buf = alloc(bs);
        STATUS_CHECK(rocsparse_spsv(h, o, al, mat, vb, vx, t.dt, rocsparse_spsv_alg_default,
                                    rocsparse_spsv_stage_preprocess, &bs, buf));
        STATUS_CHECK(rocsparse_spsv(h, o, al, mat, vb, vx, t.dt, rocsparse_spsv_alg_default,
                                    rocsparse_spsv_stage_compute, &bs, buf));
        check(t, o == rocsparse_operation_none ? "spsv lower" : "spsv lower transposed", download(t, dx, a.m),
              x);
    }
}

static void test_spmm(rocsparse_handle h, const Type& t) {
    Csr a = make(21, 18, 3, false, t.complex);
    int k = 5;
    C alpha(0.5, t.complex ? 0.5 : 0), beta(2.0, 0);
    Scalars ab = scalars(t, alpha, beta);
    Described d = describe(t, a);
    struct {
        const char* name;
        rocsparse_spmat_descr mat;
        rocsparse_spmm_alg alg;
    } cases[] = {{"spmm csr", d.csr, rocsparse_spmm_alg_csr},
                 {"spmm csr row split", d.csr, rocsparse_spmm_alg_csr_row_split},
                 {"spmm csr merge", d.csr, rocsparse_spmm_alg_csr_merge},
                 {"spmm coo segmented", d.coo, rocsparse_spmm_alg_coo_segmented},
                 {"spmm coo atomic", d.coo, rocsparse_spmm_alg_coo_atomic},
                 {"spmm coo seg. atomic", d.coo, rocsparse_spmm_alg_coo_segmented_atomic}};
    for (auto& c : cases) {
        auto B = vec(a.n * k, 1, t.complex), Cm = vec(a.m * k, 4, t.complex);  // column-major
        std::vector<C> want(a.m * k);
        for (int col = 0; col < k; ++col) {
            std::vector<C> x(B.begin() + col * a.n, B.begin() + (col + 1) * a.n),
                y(Cm.begin() + col * a.m, Cm.begin() + (col + 1) * a.m);
            auto r = ref_spmv(a, rocsparse_operation_none, alpha, x, beta, y);
            std::copy(r.begin(), r.end(), want.begin() + col * a.m);
        }
        void* dB = upload(t, B);
        void* dC = upload(t, Cm);
        rocsparse_dnmat_descr mB, mC;
        STATUS_CHECK(rocsparse_create_dnmat_descr(&mB, a.n, k, a.n, dB, t.dt, rocsparse_order_column));
        STATUS_CHECK(rocsparse_create_dnmat_descr(&mC, a.m, k, a.m, dC, t.dt, rocsparse_order_column));
        size_t bs = 0;
        STATUS_CHECK(rocsparse_spmm(h, rocsparse_operation_none, rocsparse_operation_none, ab.alpha, c.mat,
                                    mB, ab.beta, mC, t.dt, c.alg, rocsparse_spmm_stage_buffer_size, &bs,
                                    nullptr));
        void* buf = alloc(bs);
        STATUS_CHECK(rocsparse_spmm(h, rocsparse_operation_none, rocsparse_operation_none, ab.alpha, c.mat,
                                    mB, ab.beta, mC, t.dt, c.alg, rocsparse_spmm_stage_preprocess, &bs, buf));
        STATUS_CHECK(rocsparse_spmm(h, rocsparse_operation_none, rocsparse_operation_none, ab.alpha, c.mat,
                                    mB, ab.beta, mC, t.dt, c.alg, rocsparse_spmm_stage_compute, &bs, buf));
        check(t, c.name, download(t, dC, a.m * k), want);
    }
}

static void test_spgemm(rocsparse_handle h, const Type& t) {
    Csr a = make(19, 23, 4, false, t.complex), b = make(23, 17, 5, false, t.complex);
    C alpha(1.5, t.complex ? -1.0 : 0);
    char al[16];
    scalar(t, alpha, al);
    std::vector<std::vector<C>> want(a.m, std::vector<C>(b.n));
    std::vector<std::vector<bool>> pattern(a.m, std::vector<bool>(b.n));
    for (int i = 0; i < a.m; ++i)
        for (int p = a.rp[i]; p < a.rp[i + 1]; ++p)
            for (int q = b.rp[a.ci[p]]; q < b.rp[a.ci[p] + 1]; ++q) {
                want[i][b.ci[q]] += alpha * a.v[p] * b.v[q];
                pattern[i][b.ci[q]] = true;
            }
    rocsparse_spmat_descr A, B, D, Cmat;
    STATUS_CHECK(rocsparse_create_csr_descr(&A, a.m, a.n, a.ci.size(), upload(a.rp), upload(a.ci),
                                            upload(t, a.v), rocsparse_indextype_i32, rocsparse_indextype_i32,
                                            rocsparse_index_base_zero, t.dt));
    STATUS_CHECK(rocsparse_create_csr_descr(&B, b.m, b.n, b.ci.size(), upload(b.rp), upload(b.ci),
                                            upload(t, b.v), rocsparse_indextype_i32, rocsparse_indextype_i32,
                                            rocsparse_index_base_zero, t.dt));
    STATUS_CHECK(rocsparse_create_csr_descr(&D, a.m, b.n, 0, upload(std::vector<int>(a.m + 1, 0)), nullptr,
                                            nullptr, rocsparse_indextype_i32, rocsparse_indextype_i32,
                                            rocsparse_index_base_zero, t.dt));
    int* crp = (int*)alloc((a.m + 1) * 4);
    STATUS_CHECK(rocsparse_create_csr_descr(&Cmat, a.m, b.n, 0, crp, nullptr, nullptr,
                                            rocsparse_indextype_i32, rocsparse_indextype_i32,
                                            rocsparse_index_base_zero, t.dt));
    size_t bs = 0;
    STATUS_CHECK(rocsparse_spgemm(h, rocsparse_operation_none, rocsparse_operation_none, al, A, B, nullptr, D,
                                  Cmat, t.dt, rocsparse_spgemm_alg_default,
                                  rocsparse_spgemm_stage_buffer_size, &bs, nullptr));
    void* buf = alloc(bs);
    STATUS_CHECK(rocsparse_spgemm(h, rocsparse_operation_none, rocsparse_operation_none, al, A, B, nullptr, D,
                                  Cmat, t.dt, rocsparse_spgemm_alg_default, rocsparse_spgemm_stage_nnz, &bs,
                                  buf));
    int64_t rows, cols, cnnz;
    STATUS_CHECK(rocsparse_spmat_get_size(Cmat, &rows, &cols, &cnnz));
    int* cci = (int*)alloc(cnnz * 4);
    void* cv = alloc(cnnz * t.size);
    STATUS_CHECK(rocsparse_csr_set_pointers(Cmat, crp, cci, cv));
    STATUS_CHECK(rocsparse_spgemm(h, rocsparse_operation_none, rocsparse_operation_none, al, A, B, nullptr, D,
                                  Cmat, t.dt, rocsparse_spgemm_alg_default, rocsparse_spgemm_stage_compute,
                                  &bs, buf));
    std::vector<int> hrp(a.m + 1), hci(cnnz);
    HIP_CHECK(hipMemcpy(hrp.data(), crp, hrp.size() * 4, hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(hci.data(), cci, cnnz * 4, hipMemcpyDeviceToHost));
    auto hv = download(t, cv, cnnz);
    std::vector<C> got, exp;
    int want_nnz = 0;
    for (auto& r : pattern)
        for (bool p : r) want_nnz += p;
    bool shape = cnnz == want_nnz;
    for (int i = 0; i < a.m && shape; ++i)
        for (int q = hrp[i]; q < hrp[i + 1]; ++q) {
            shape &= pattern[i][hci[q]];
            got.push_back(hv[q]);
            exp.push_back(want[i][hci[q]]);
        }
    if (!shape) {
        printf("FAIL %s spgemm pattern (nnz %lld want %d)\n", t.name, (long long)cnnz, want_nnz);
        hip_failures++;
        return;
    }
    check(t, "spgemm", got, exp);
}

static void test_sddmm_and_conversions(rocsparse_handle h, const Type& t) {
    Csr s = make(14, 12, 6, false, t.complex);
    int m = s.m, n = s.n, k = 6, nnz = s.ci.size();
    auto A = vec(m * k, 2, t.complex), B = vec(k * n, 3, t.complex);  // column-major
    C alpha(2.0, 0), beta(0.5, t.complex ? 0.5 : 0);
    Scalars ab = scalars(t, alpha, beta);
    std::vector<C> want(nnz);
    for (int i = 0; i < m; ++i)
        for (int q = s.rp[i]; q < s.rp[i + 1]; ++q) {
            C dot;
            for (int p = 0; p < k; ++p) dot += A[i + p * m] * B[p + s.ci[q] * k];
            want[q] = alpha * dot + beta * s.v[q];
        }
    void* dv = upload(t, s.v);
    rocsparse_spmat_descr S;
    STATUS_CHECK(rocsparse_create_csr_descr(&S, m, n, nnz, upload(s.rp), upload(s.ci), dv,
                                            rocsparse_indextype_i32, rocsparse_indextype_i32,
                                            rocsparse_index_base_zero, t.dt));
    rocsparse_dnmat_descr mA, mB;
    STATUS_CHECK(rocsparse_create_dnmat_descr(&mA, m, k, m, upload(t, A), t.dt, rocsparse_order_column));
    STATUS_CHECK(rocsparse_create_dnmat_descr(&mB, k, n, k, upload(t, B), t.dt, rocsparse_order_column));
    size_t bs = 0;
    STATUS_CHECK(rocsparse_sddmm_buffer_size(h, rocsparse_operation_none, rocsparse_operation_none, ab.alpha,
                                             mA, mB, ab.beta, S, t.dt, rocsparse_sddmm_alg_default, &bs));
    void* buf = alloc(bs);
    STATUS_CHECK(rocsparse_sddmm_preprocess(h, rocsparse_operation_none, rocsparse_operation_none, ab.alpha,
                                            mA, mB, ab.beta, S, t.dt, rocsparse_sddmm_alg_default, buf));
    STATUS_CHECK(rocsparse_sddmm(h, rocsparse_operation_none, rocsparse_operation_none, ab.alpha, mA, mB,
                                 ab.beta, S, t.dt, rocsparse_sddmm_alg_default, buf));
    check(t, "sddmm", download(t, dv, nnz), want);
    // sparse -> dense -> sparse round trip of the SDDMM result
    std::vector<C> dense(m * n);
    for (int i = 0; i < m; ++i)
        for (int q = s.rp[i]; q < s.rp[i + 1]; ++q) dense[i + s.ci[q] * m] = want[q];
    void* dd = upload(t, std::vector<C>(m * n));
    rocsparse_dnmat_descr mD;
    STATUS_CHECK(rocsparse_create_dnmat_descr(&mD, m, n, m, dd, t.dt, rocsparse_order_column));
    STATUS_CHECK(rocsparse_sparse_to_dense(h, S, mD, rocsparse_sparse_to_dense_alg_default, &bs, nullptr));
    buf = alloc(bs);
    STATUS_CHECK(rocsparse_sparse_to_dense(h, S, mD, rocsparse_sparse_to_dense_alg_default, &bs, buf));
    check(t, "sparse_to_dense", download(t, dd, m * n), dense);
    int* rp2 = (int*)alloc((m + 1) * 4);
    rocsparse_spmat_descr S2;
    STATUS_CHECK(rocsparse_create_csr_descr(&S2, m, n, 0, rp2, nullptr, nullptr, rocsparse_indextype_i32,
                                            rocsparse_indextype_i32, rocsparse_index_base_zero, t.dt));
    STATUS_CHECK(rocsparse_dense_to_sparse(h, mD, S2, rocsparse_dense_to_sparse_alg_default, &bs, nullptr));
    buf = alloc(bs);
    STATUS_CHECK(rocsparse_dense_to_sparse(h, mD, S2, rocsparse_dense_to_sparse_alg_default, nullptr, buf));
    int64_t r2, c2, nnz2;
    STATUS_CHECK(rocsparse_spmat_get_size(S2, &r2, &c2, &nnz2));
    int* ci2 = (int*)alloc(nnz2 * 4);
    void* v2 = alloc(nnz2 * t.size);
    STATUS_CHECK(rocsparse_csr_set_pointers(S2, rp2, ci2, v2));
    STATUS_CHECK(rocsparse_dense_to_sparse(h, mD, S2, rocsparse_dense_to_sparse_alg_default, &bs, buf));
    std::vector<int> hci(nnz2);
    HIP_CHECK(hipMemcpy(hci.data(), ci2, nnz2 * 4, hipMemcpyDeviceToHost));
    std::vector<C> wantv;
    for (int q = 0; q < nnz; ++q)
        if (want[q] != C(0)) wantv.push_back(want[q]);
    if ((size_t)nnz2 != wantv.size()) {
        printf("FAIL %s dense_to_sparse nnz %lld want %zu\n", t.name, (long long)nnz2, wantv.size());
        hip_failures++;
    } else
        check(t, "dense_to_sparse", download(t, v2, nnz2), wantv);
}

static void test_vector_ops(rocsparse_handle h, const Type& t) {
    int size = 50;
    std::vector<int> ind = {1, 4, 9, 10, 17, 30, 31, 44, 49};
    int nnz = ind.size();
    auto xv = vec(nnz, 1, t.complex), y = vec(size, 2, t.complex);
    C alpha(1.25, t.complex ? 0.5 : 0), beta(-2.0, 0);
    Scalars ab = scalars(t, alpha, beta);
    int* dind = upload(ind);
    void* dxv = upload(t, xv);
    void* dy = upload(t, y);
    rocsparse_spvec_descr x;
    rocsparse_dnvec_descr vy;
    STATUS_CHECK(rocsparse_create_spvec_descr(&x, size, nnz, dind, dxv, rocsparse_indextype_i32,
                                              rocsparse_index_base_zero, t.dt));
    STATUS_CHECK(rocsparse_create_dnvec_descr(&vy, size, dy, t.dt));
    // spvv: x . y (and conj(x) . y)
    for (auto o : {rocsparse_operation_none, rocsparse_operation_conjugate_transpose}) {
        if (o != rocsparse_operation_none && !t.complex) continue;
        C want;
        for (int i = 0; i < nnz; ++i) want += op(xv[i], o) * y[ind[i]];
        size_t bs = 0;
        char result[16];
        STATUS_CHECK(rocsparse_spvv(h, o, x, vy, result, t.dt, &bs, nullptr));
        void* buf = alloc(bs);
        STATUS_CHECK(rocsparse_spvv(h, o, x, vy, result, t.dt, &bs, buf));
        HIP_CHECK(hipDeviceSynchronize());
        std::vector<char> rb(result, result + t.size);
        check(t, o == rocsparse_operation_none ? "spvv" : "spvv conjugate", unpack(t, rb), {want});
    }
    // axpby: y = alpha x + beta y
    std::vector<C> want = y;
    for (auto& w : want) w *= beta;
    for (int i = 0; i < nnz; ++i) want[ind[i]] += alpha * xv[i];
    STATUS_CHECK(rocsparse_axpby(h, ab.alpha, x, ab.beta, vy));
    check(t, "axpby", download(t, dy, size), want);
    // gather back into x, then scatter a scaled copy
    STATUS_CHECK(rocsparse_gather(h, vy, x));
    std::vector<C> gathered(nnz);
    for (int i = 0; i < nnz; ++i) gathered[i] = want[ind[i]];
    check(t, "gather", download(t, dxv, nnz), gathered);
    void* dz = upload(t, std::vector<C>(size));
    rocsparse_dnvec_descr vz;
    STATUS_CHECK(rocsparse_create_dnvec_descr(&vz, size, dz, t.dt));
    STATUS_CHECK(rocsparse_scatter(h, x, vz));
    std::vector<C> scattered(size);
    for (int i = 0; i < nnz; ++i) scattered[ind[i]] = gathered[i];
    check(t, "scatter", download(t, dz, size), scattered);
    if (!t.complex) {
        C c(0.6, 0), s(0.8, 0);
        char cc[16], ss[16];
        scalar(t, c, cc);
        scalar(t, s, ss);
        std::vector<C> xr = gathered, yr = scattered;
        for (int i = 0; i < nnz; ++i) {
            C xt = xr[i], yt = yr[ind[i]];
            xr[i] = c * xt + s * yt;
            yr[ind[i]] = c * yt - s * xt;
        }
        STATUS_CHECK(rocsparse_rot(h, cc, ss, x, vz));
        check(t, "rot x", download(t, dxv, nnz), xr);
        check(t, "rot y", download(t, dz, size), yr);
    }
}

int main(int argc, char** argv) {
    setvbuf(stdout, nullptr, _IONBF, 0);
    rocsparse_handle h;
    STATUS_CHECK(rocsparse_create_handle(&h));
    for (const Type& t : TYPES) {
        if (argc > 1 && strcmp(argv[1], t.name)) continue;
        test_spmv(h, t);
        test_spsv(h, t);
        test_spmm(h, t);
        test_spgemm(h, t);
        test_sddmm_and_conversions(h, t);
        test_vector_ops(h, t);
    }
    return hip_report("ROCSPARSE GENERIC");
}
