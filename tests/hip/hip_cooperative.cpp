// Cooperative launches on a device that offers them: hipLaunchCooperativeKernel runs a kernel
// whose every workgroup meets the others at grid-wide barriers (cooperative groups
// grid.sync(), a GWS barrier underneath, initialised by HIP's own gwsInit kernel), several
// times in one dispatch; a grid larger than the device holds at once is refused.
// Prints "HIP COOPERATIVE OK" when every check holds.
#include "hip_check.h"

#include <hip/hip_cooperative_groups.h>

#include <vector>

namespace cg = cooperative_groups;

// Each round every element takes the value of an element of the next block from the round
// before (so no block can run ahead), and the grid's total is summed between rounds.
__global__ void grid_rounds(unsigned *a, unsigned *b, unsigned *totals, int rounds) {
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x * blockDim.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < rounds; r++) {
        b[i] = a[(i + blockDim.x) % n] * 3u + 1u;
        grid.sync();
        atomicAdd(&totals[r], b[i]);
        unsigned *t = a;
        a = b;
        b = t;
        grid.sync();
    }
}

int main() {
    int cooperative = 0, cus = 0, per_cu = 0;
    const int threads = 128, rounds = 4;
    HIP_CHECK(hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, 0));
    HIP_CHECK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
    HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, grid_rounds, threads, 0));
    EXPECT(cooperative == 1);
    EXPECT(per_cu >= 1);

    const int blocks = 40;
    const unsigned n = blocks * threads;
    std::vector<unsigned> a(n), b(n, 0), totals(rounds, 0);
    for (unsigned i = 0; i < n; i++) a[i] = i * 7u;
    unsigned *da, *db, *dtotals;
    HIP_CHECK(hipMalloc(&da, n * sizeof(unsigned)));
    HIP_CHECK(hipMalloc(&db, n * sizeof(unsigned)));
    HIP_CHECK(hipMalloc(&dtotals, rounds * sizeof(unsigned)));
    HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(unsigned), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(db, 0, n * sizeof(unsigned)));
    HIP_CHECK(hipMemset(dtotals, 0, rounds * sizeof(unsigned)));
    int r = rounds;
    void *args[] = {&da, &db, &dtotals, &r};
    HIP_CHECK(hipLaunchCooperativeKernel(reinterpret_cast<void *>(grid_rounds), dim3(blocks),
                                         dim3(threads), args, 0, 0));
    HIP_CHECK(hipDeviceSynchronize());

    std::vector<unsigned> want_totals(rounds, 0);
    for (int k = 0; k < rounds; k++) {
        for (unsigned i = 0; i < n; i++) {
            b[i] = a[(i + threads) % n] * 3u + 1u;
            want_totals[k] += b[i];
        }
        a.swap(b);
    }
    std::vector<unsigned> got(n);
    // After an even number of rounds the latest values are back in the first buffer.
    HIP_CHECK(hipMemcpy(got.data(), rounds % 2 ? db : da, n * sizeof(unsigned), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(totals.data(), dtotals, rounds * sizeof(unsigned), hipMemcpyDeviceToHost));
    EXPECT(got == a);
    EXPECT(totals == want_totals);

    // More workgroups than the device holds at once cannot all meet at a grid barrier.
    HIP_EXPECT_ERROR(hipLaunchCooperativeKernel(reinterpret_cast<void *>(grid_rounds),
                                                dim3(per_cu * cus + 1), dim3(threads), args, 0, 0),
                     hipErrorCooperativeLaunchTooLarge);

    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dtotals));
    return hip_report("HIP COOPERATIVE");
}
