// rocPRIM's device-wide algorithms (Debian's 5.3 headers, compiled into this program) as
// their users call them: reduce, inclusive and exclusive scan (single pass, decoupled
// look-back: workgroups wait on the prefixes of earlier ones), radix sort of pairs and
// keys, merge sort, select, run-length encode, histogram and segmented reduce, checked
// against the host. Prints "ROCPRIM OK".
#include <algorithm>
#include <numeric>
#include <rocprim/rocprim.hpp>
#include <vector>

#include "rocprim_client.h"

int main(int argc, char** argv) {
    size_t n = argc > 1 ? atoi(argv[1]) : 20000;
    std::vector<int> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = (int)((i * 2654435761u) % 1000) - 500;
    int* din = up(in);
    int* dout = dalloc<int>(n);
    int* dsum = dalloc<int>(1);
    with_temp(
        [&](void* t, size_t& b) { return rocprim::reduce(t, b, din, dsum, 0, n, rocprim::plus<int>()); });
    check("reduce", down(dsum, 1), {std::accumulate(in.begin(), in.end(), 0)});
    std::vector<int> inc(n), exc(n);
    std::partial_sum(in.begin(), in.end(), inc.begin());
    exc[0] = 7;
    for (size_t i = 1; i < n; ++i) exc[i] = exc[i - 1] + in[i - 1];
    with_temp([&](void* t, size_t& b) {
        return rocprim::inclusive_scan(t, b, din, dout, n, rocprim::plus<int>());
    });
    check("inclusive_scan", down(dout, n), inc);
    with_temp([&](void* t, size_t& b) {
        return rocprim::exclusive_scan(t, b, din, dout, 7, n, rocprim::plus<int>());
    });
    check("exclusive_scan", down(dout, n), exc);
    std::vector<unsigned> keys(n);
    for (size_t i = 0; i < n; ++i) keys[i] = (unsigned)(i * 2246822519u) ^ 0x5bd1e995u;
    std::vector<int> vals(n);
    std::iota(vals.begin(), vals.end(), 0);
    unsigned* dk = up(keys);
    unsigned* dko = dalloc<unsigned>(n);
    int* dv = up(vals);
    int* dvo = dalloc<int>(n);
    with_temp([&](void* t, size_t& b) { return rocprim::radix_sort_pairs(t, b, dk, dko, dv, dvo, n); });
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    std::vector<unsigned> sorted(n);
    for (size_t i = 0; i < n; ++i) sorted[i] = keys[order[i]];
    check("radix_sort_pairs keys", down(dko, n), sorted);
    check("radix_sort_pairs values", down(dvo, n), order);
    with_temp([&](void* t, size_t& b) { return rocprim::radix_sort_keys_desc(t, b, dk, dko, n); });
    std::vector<unsigned> desc = sorted;
    std::reverse(desc.begin(), desc.end());
    check("radix_sort_keys_desc", down(dko, n), desc);
    with_temp(
        [&](void* t, size_t& b) { return rocprim::merge_sort(t, b, din, dout, n, rocprim::less<int>()); });
    std::vector<int> ms = in;
    std::stable_sort(ms.begin(), ms.end());
    check("merge_sort", down(dout, n), ms);
    unsigned* dcount = dalloc<unsigned>(1);
    with_temp([&](void* t, size_t& b) {
        return rocprim::select(t, b, din, dout, dcount, n, [] __device__(int x) { return x % 3 == 0; });
    });
    std::vector<int> sel;
    for (int x : in)
        if (x % 3 == 0) sel.push_back(x);
    check("select count", down(dcount, 1), {(unsigned)sel.size()});
    check("select", down(dout, sel.size()), sel);
    std::vector<int> runs_in(n);
    for (size_t i = 0; i < n; ++i) runs_in[i] = (int)(i / (1 + i % 7 == 0 ? 3 : 5)) % 11;
    int* drin = up(runs_in);
    int* duniq = dalloc<int>(n);
    unsigned* dcounts = dalloc<unsigned>(n);
    unsigned* druns = dalloc<unsigned>(1);
    with_temp(
        [&](void* t, size_t& b) { return rocprim::run_length_encode(t, b, drin, n, duniq, dcounts, druns); });
    std::vector<int> uniq;
    std::vector<unsigned> counts;
    for (size_t i = 0; i < n; ++i) {
        if (i == 0 || runs_in[i] != runs_in[i - 1]) {
            uniq.push_back(runs_in[i]);
            counts.push_back(0);
        }
        counts.back()++;
    }
    check("run_length_encode runs", down(druns, 1), {(unsigned)uniq.size()});
    check("run_length_encode unique", down(duniq, uniq.size()), uniq);
    check("run_length_encode counts", down(dcounts, counts.size()), counts);
    unsigned* dhist = dalloc<unsigned>(10);
    with_temp([&](void* t, size_t& b) {
        return rocprim::histogram_even(t, b, din, (unsigned)n, dhist, 11u, -500, 500);
    });
    std::vector<unsigned> hist(10);
    for (int x : in)
        if (x >= -500 && x < 500) hist[(x + 500) / 100]++;
    check("histogram_even", down(dhist, 10), hist);
    std::vector<int> offs;
    for (size_t i = 0; i <= n; i += 97) offs.push_back(i);
    if (offs.back() != (int)n) offs.push_back(n);
    int* doffs = up(offs);
    int segs = offs.size() - 1;
    int* dseg = dalloc<int>(segs);
    with_temp([&](void* t, size_t& b) {
        return rocprim::segmented_reduce(t, b, din, dseg, segs, doffs, doffs + 1, rocprim::maximum<int>(),
                                         -1000);
    });
    std::vector<int> segmax(segs, -1000);
    for (int s = 0; s < segs; ++s)
        for (int i = offs[s]; i < offs[s + 1]; ++i) segmax[s] = std::max(segmax[s], in[i]);
    check("segmented_reduce max", down(dseg, segs), segmax);
    return hip_report("ROCPRIM");
}
