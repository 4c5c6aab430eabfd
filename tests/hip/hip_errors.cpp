// Error paths as HIP programs meet them: every bad request gets HIP's error code back
// (nothing crashes, nothing hangs), and the device still computes correctly afterwards.
// Prints "HIP ERRORS OK" when every check holds.
#include "hip_check.h"

#include <vector>

__global__ void fill(int *out, int value) { out[threadIdx.x] = value; }

int main() {
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    int count = 0;
    HIP_CHECK(hipGetDeviceCount(&count));
    HIP_EXPECT_ERROR(hipSetDevice(count), hipErrorInvalidDevice);
    hipDeviceProp_t props;
    HIP_EXPECT_ERROR(hipGetDeviceProperties(&props, count), hipErrorInvalidDevice);
    HIP_CHECK(hipGetDeviceProperties(&props, 0));

    // More memory than the device has: HIP says out of memory, also when each request
    // alone would fit but together they exceed the pool (SoftGPU's pool refuses).
    void *huge = nullptr;
    HIP_EXPECT_ERROR(hipMalloc(&huge, size_t(1) << 44), hipErrorOutOfMemory);
    EXPECT(huge == nullptr);
    HIP_EXPECT_ERROR(hipGetLastError(), hipErrorOutOfMemory);  // reported once, then cleared
    HIP_CHECK(hipGetLastError());
    size_t free_bytes = 0, total_bytes = 0;
    HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
    void *most = nullptr, *more = nullptr;
    HIP_CHECK(hipMalloc(&most, total_bytes / 4 * 3));
    HIP_EXPECT_ERROR(hipMalloc(&more, total_bytes / 4 * 3), hipErrorOutOfMemory);
    HIP_CHECK(hipFree(most));
    HIP_CHECK(hipMalloc(&more, total_bytes / 4 * 3));  // the freed memory is back
    HIP_CHECK(hipFree(more));
    (void)hipGetLastError();

    int *dev;
    HIP_CHECK(hipMalloc(&dev, 256 * sizeof(int)));
    std::vector<int> host(512, 3);
    // Copies past the end of the allocation, to a pointer no allocation covers.
    HIP_EXPECT_ERROR(hipMemcpy(dev, host.data(), 512 * sizeof(int), hipMemcpyHostToDevice),
                     hipErrorInvalidValue);
    HIP_EXPECT_ERROR(hipMemcpy(host.data(), dev + 200, 100 * sizeof(int), hipMemcpyDeviceToHost),
                     hipErrorInvalidValue);
    HIP_EXPECT_ERROR(hipMemcpy(reinterpret_cast<void *>(0x1000), host.data(), 16, hipMemcpyHostToDevice),
                     hipErrorInvalidValue);
    HIP_EXPECT_ERROR(hipMemset(dev, 0, 512 * sizeof(int)), hipErrorInvalidValue);
    // Freeing what was never allocated, or twice.
    HIP_EXPECT_ERROR(hipFree(reinterpret_cast<void *>(0x1234)), hipErrorInvalidValue);
    HIP_EXPECT_ERROR(hipFree(host.data()), hipErrorInvalidValue);
    HIP_EXPECT_ERROR(hipHostUnregister(host.data()), hipErrorHostMemoryNotRegistered);

    // A block larger than the device allows is refused at launch.
    hipLaunchKernelGGL(fill, dim3(1), dim3(props.maxThreadsPerBlock + 1), 0, 0, dev, 1);
    HIP_EXPECT_ERROR(hipGetLastError(), hipErrorInvalidConfiguration);

    // Timing asked of events created without it.
    hipEvent_t a, b;
    HIP_CHECK(hipEventCreateWithFlags(&a, hipEventDisableTiming));
    HIP_CHECK(hipEventCreateWithFlags(&b, hipEventDisableTiming));
    HIP_CHECK(hipEventRecord(a, 0));
    HIP_CHECK(hipEventRecord(b, 0));
    HIP_CHECK(hipEventSynchronize(b));
    float ms = 0;
    HIP_EXPECT_ERROR(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle);

    // Pointer attributes: device memory is device memory, unknown host memory is refused.
    hipPointerAttribute_t attributes;
    HIP_CHECK(hipPointerGetAttributes(&attributes, dev + 10));
    EXPECT(attributes.memoryType == hipMemoryTypeDevice);
    EXPECT(attributes.devicePointer == dev + 10);
    HIP_EXPECT_ERROR(hipPointerGetAttributes(&attributes, host.data()), hipErrorInvalidValue);

    // After all of that the device still works.
    hipLaunchKernelGGL(fill, dim3(1), dim3(256), 0, 0, dev, 42);
    HIP_CHECK(hipGetLastError());
    std::vector<int> out(256);
    HIP_CHECK(hipMemcpy(out.data(), dev, 256 * sizeof(int), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int v : out) wrong += v != 42;
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(dev));
    HIP_EXPECT_ERROR(hipFree(dev), hipErrorInvalidValue);
    HIP_CHECK(hipEventDestroy(a));
    HIP_CHECK(hipEventDestroy(b));
    return hip_report("HIP ERRORS");
}
