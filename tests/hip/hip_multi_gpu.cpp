// Two GPUs (a SoftGPU profile with gpu_count 2), as multi-GPU HIP programs use them:
// per-device allocations and kernels selected with hipSetDevice, peer queries, copies
// between devices, and a kernel writing its peer's memory after hipDeviceEnablePeerAccess
// (which maps that memory to it: hsa_amd_agents_allow_access).
// Prints "HIP MULTI GPU OK" when every check holds.
#include "hip_check.h"

#include <string>
#include <vector>

__global__ void fill(int *out, int base) { out[threadIdx.x] = base + threadIdx.x; }

static std::vector<int> read_back(int device, const int *ptr, int n) {
    std::vector<int> out(n);
    HIP_CHECK(hipSetDevice(device));
    HIP_CHECK(hipMemcpy(out.data(), ptr, n * sizeof(int), hipMemcpyDeviceToHost));
    return out;
}

static bool is_fill(const std::vector<int> &values, int base) {
    for (size_t i = 0; i < values.size(); i++)
        if (values[i] != base + (int)i) return false;
    return true;
}

int main() {
    const int n = 64;
    int count = 0;
    HIP_CHECK(hipGetDeviceCount(&count));
    EXPECT(count == 2);
    if (count != 2) return hip_report("HIP MULTI GPU");
    hipDeviceProp_t props0, props1;
    HIP_CHECK(hipGetDeviceProperties(&props0, 0));
    HIP_CHECK(hipGetDeviceProperties(&props1, 1));
    EXPECT(std::string(props1.gcnArchName).rfind("gfx1030", 0) == 0);
    EXPECT(props0.pciBusID != props1.pciBusID || props0.pciDeviceID != props1.pciDeviceID);

    int *on0, *on1;
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipMalloc(&on0, n * sizeof(int)));
    hipLaunchKernelGGL(fill, dim3(1), dim3(n), 0, 0, on0, 100);
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipMalloc(&on1, n * sizeof(int)));
    hipLaunchKernelGGL(fill, dim3(1), dim3(n), 0, 0, on1, 200);
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipDeviceSynchronize());
    EXPECT(is_fill(read_back(0, on0, n), 100));
    EXPECT(is_fill(read_back(1, on1, n), 200));

    int can = -1;
    HIP_CHECK(hipDeviceCanAccessPeer(&can, 1, 0));
    EXPECT(can == 1);
    HIP_CHECK(hipDeviceCanAccessPeer(&can, 0, 0));
    EXPECT(can == 0);   // a device is not its own peer

    // Device 0's data copied to device 1, then device 1 writes device 0's memory.
    HIP_CHECK(hipMemcpyPeer(on1, 1, on0, 0, n * sizeof(int)));
    EXPECT(is_fill(read_back(1, on1, n), 100));
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipDeviceEnablePeerAccess(0, 0));
    HIP_EXPECT_ERROR(hipDeviceEnablePeerAccess(0, 0), hipErrorPeerAccessAlreadyEnabled);
    hipLaunchKernelGGL(fill, dim3(1), dim3(n), 0, 0, on0, 300);
    HIP_CHECK(hipDeviceSynchronize());
    EXPECT(is_fill(read_back(0, on0, n), 300));

    HIP_CHECK(hipFree(on0));
    HIP_CHECK(hipFree(on1));
    return hip_report("HIP MULTI GPU");
}
