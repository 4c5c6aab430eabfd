// Helpers of the rocPRIM client programs: device copies of host vectors and back, a
// check against the host's answer, and rocPRIM's two-call temporary-storage protocol.
#ifndef SOFTGPU_ROCPRIM_CLIENT_H
#define SOFTGPU_ROCPRIM_CLIENT_H
#include <vector>

#include "client_check.h"

template <class T>
T* up(const std::vector<T>& h) {
    T* d;
    HIP_CHECK(hipMalloc(&d, h.size() * sizeof(T) + 16));
    HIP_CHECK(hipMemcpy(d, h.data(), h.size() * sizeof(T), hipMemcpyHostToDevice));
    return d;
}
template <class T>
T* dalloc(size_t n) {
    T* d;
    HIP_CHECK(hipMalloc(&d, n * sizeof(T) + 16));
    return d;
}
template <class T>
std::vector<T> down(const T* d, size_t n) {
    std::vector<T> h(n);
    HIP_CHECK(hipMemcpy(h.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
    return h;
}
template <class T>
void check(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
    size_t bad = 0;
    for (size_t i = 0; i < want.size(); ++i)
        if (got[i] != want[i] && bad++ < 3)
            printf("FAIL %s [%zu] %lld, expected %lld\n", what, i, (long long)got[i], (long long)want[i]);
    if (bad)
        hip_failures++;
    else
        printf("%s ok\n", what);
}
template <class F>
void with_temp(F f) {
    size_t bytes = 0;
    HIP_CHECK(f(nullptr, bytes));
    void* tmp;
    HIP_CHECK(hipMalloc(&tmp, bytes + 16));
    HIP_CHECK(f(tmp, bytes));
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipFree(tmp));
}

#endif
