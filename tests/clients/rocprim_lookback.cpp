// rocPRIM's decoupled look-back with every kind of scan state its users get: a value of 4
// bytes or less packed with its flag in one 64-bit atomic (scan of int), and larger values
// kept apart from their flags, ordered by volatile stores and device fences (scan of
// long long and double, and scan/reduce by key, whose state holds tuple<value, bool>).
// Workgroups on different host threads publish and read each other's prefixes; every result
// is checked against the host. Prints "LOOKBACK OK".
#include <numeric>
#include <rocprim/rocprim.hpp>
#include <vector>

#include "rocprim_client.h"

template <class T>
void scans(const char* name, size_t n) {
    std::vector<T> in(n), want(n);
    for (size_t i = 0; i < n; ++i) in[i] = (T)((long long)((i * 2654435761u) % 1000) - 500);
    std::partial_sum(in.begin(), in.end(), want.begin());
    T* din = up(in);
    T* dout = up(std::vector<T>(n));
    with_temp([&](void* t, size_t& b) { return rocprim::inclusive_scan(t, b, din, dout, n, rocprim::plus<T>()); });
    check(name, down(dout, n), want);
}

void by_key(size_t n) {
    std::vector<int> keys(n), vals(n), want(n);
    for (size_t i = 0; i < n; ++i) {
        keys[i] = (int)(i / 37 + (i % 1013 == 0));      // runs of 1..37 keys, crossing workgroups
        vals[i] = (int)((i * 2246822519u) % 2001) - 1000;
    }
    for (size_t i = 0; i < n; ++i) want[i] = vals[i] + (i && keys[i] == keys[i - 1] ? want[i - 1] : 0);
    int *dk = up(keys), *dv = up(vals), *dout = up(std::vector<int>(n));
    with_temp([&](void* t, size_t& b) {
        return rocprim::inclusive_scan_by_key(t, b, dk, dv, dout, n, rocprim::plus<int>());
    });
    check("inclusive_scan_by_key", down(dout, n), want);
    std::vector<int> unique, sums;
    for (size_t i = 0; i < n; ++i) {
        if (!i || keys[i] != keys[i - 1]) {
            unique.push_back(keys[i]);
            sums.push_back(0);
        }
        sums.back() += vals[i];
    }
    int *duk = up(std::vector<int>(n)), *dsums = up(std::vector<int>(n));
    unsigned* druns = up(std::vector<unsigned>(1));
    with_temp([&](void* t, size_t& b) {
        return rocprim::reduce_by_key(t, b, dk, dv, n, duk, dsums, druns, rocprim::plus<int>());
    });
    check("reduce_by_key runs", std::vector<long long>{(long long)down(druns, 1)[0]},
          std::vector<long long>{(long long)unique.size()});
    check("reduce_by_key sums", down(dsums, unique.size()), sums);
}

int main(int argc, char** argv) {
    size_t n = argc > 1 ? atoi(argv[1]) : 200000;
    scans<int>("inclusive_scan int", n);
    scans<long long>("inclusive_scan long long", n);
    scans<double>("inclusive_scan double", n);
    by_key(n);
    if (hip_failures) return 1;
    printf("LOOKBACK OK\n");
    return 0;
}
