// Memory as HIP programs use it: pitched 2D/3D copies, pinned (hipHostMalloc) and
// registered (hipHostRegister) host memory read and written by kernels, managed memory,
// device-to-device copies, typed memsets, __device__ variables reached through
// hipMemcpyToSymbol, and HIP arrays (allocation only: copying into one runs HIP's image
// blit kernels, whose image instructions the engine does not run yet).
// Prints "HIP MEMORY OK" when every check holds.
#include "hip_check.h"

#include <cstring>
#include <vector>

__device__ int device_table[64];

__global__ void add_table(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += device_table[i % 64];
}

__global__ void square_in_place(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * data[i];
}

// One thread per element of a pitched 2D array: adds row*1000 + column.
__global__ void mark_2d(char *base, size_t pitch, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < width && y < height) reinterpret_cast<int *>(base + y * pitch)[x] += y * 1000 + x;
}

static void copies_2d_with_pitch() {
    const int width = 37, height = 11;  // width not a multiple of anything on purpose
    std::vector<int> host(width * height), back(width * height, -1);
    for (int i = 0; i < width * height; i++) host[i] = i * 7;
    int *dev;
    size_t pitch = 0;
    HIP_CHECK(hipMallocPitch(reinterpret_cast<void **>(&dev), &pitch, width * sizeof(int), height));
    EXPECT(pitch >= width * sizeof(int));
    HIP_CHECK(hipMemcpy2D(dev, pitch, host.data(), width * sizeof(int), width * sizeof(int), height,
                          hipMemcpyHostToDevice));
    hipLaunchKernelGGL(mark_2d, dim3(1, height), dim3(64), 0, 0, reinterpret_cast<char *>(dev),
                       pitch, width, height);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy2D(back.data(), width * sizeof(int), dev, pitch, width * sizeof(int), height,
                          hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            wrong += back[y * width + x] != host[y * width + x] + y * 1000 + x;
    EXPECT(wrong == 0);

    // A sub-rectangle copied asynchronously into a tightly packed host buffer.
    const int sub_w = 5, sub_h = 4, x0 = 3, y0 = 2;
    std::vector<int> sub(sub_w * sub_h, -1);
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    HIP_CHECK(hipMemcpy2DAsync(sub.data(), sub_w * sizeof(int),
                               reinterpret_cast<char *>(dev) + y0 * pitch + x0 * sizeof(int), pitch,
                               sub_w * sizeof(int), sub_h, hipMemcpyDeviceToHost, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    wrong = 0;
    for (int y = 0; y < sub_h; y++)
        for (int x = 0; x < sub_w; x++) wrong += sub[y * sub_w + x] != back[(y + y0) * width + x + x0];
    EXPECT(wrong == 0);

    // hipMemset2D touches the rectangle only, not the padding or the other rows.
    HIP_CHECK(hipMemset2D(dev, pitch, 0xAB, 3 * sizeof(int), 2));
    HIP_CHECK(hipMemcpy2D(back.data(), width * sizeof(int), dev, pitch, width * sizeof(int), height,
                          hipMemcpyDeviceToHost));
    EXPECT(back[0] == int(0xABABABAB) && back[width + 2] == int(0xABABABAB));
    EXPECT(back[3] == host[3] + 3 && back[2 * width] == host[2 * width] + 2000);
    HIP_CHECK(hipStreamDestroy(stream));
    HIP_CHECK(hipFree(dev));
}

static void copies_3d() {
    const int w = 9, h = 5, d = 4;
    hipExtent extent = make_hipExtent(w * sizeof(float), h, d);
    hipPitchedPtr dev;
    HIP_CHECK(hipMalloc3D(&dev, extent));
    std::vector<float> host(w * h * d), back(w * h * d, -1.0f);
    for (int i = 0; i < w * h * d; i++) host[i] = 0.25f * i;

    hipMemcpy3DParms up = {};
    up.srcPtr = make_hipPitchedPtr(host.data(), w * sizeof(float), w, h);
    up.dstPtr = dev;
    up.extent = extent;
    up.kind = hipMemcpyHostToDevice;
    HIP_CHECK(hipMemcpy3D(&up));

    hipMemcpy3DParms down = {};
    down.srcPtr = dev;
    down.dstPtr = make_hipPitchedPtr(back.data(), w * sizeof(float), w, h);
    down.extent = extent;
    down.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipMemcpy3D(&down));
    EXPECT(std::memcmp(host.data(), back.data(), host.size() * sizeof(float)) == 0);

    // One interior box at an offset, into a same-shaped zeroed host array.
    std::vector<float> box(w * h * d, 0.0f);
    hipMemcpy3DParms part = {};
    part.srcPtr = dev;
    part.srcPos = make_hipPos(2 * sizeof(float), 1, 1);
    part.dstPtr = make_hipPitchedPtr(box.data(), w * sizeof(float), w, h);
    part.dstPos = make_hipPos(2 * sizeof(float), 1, 1);
    part.extent = make_hipExtent(3 * sizeof(float), 2, 2);
    part.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipMemcpy3D(&part));
    int wrong = 0;
    for (int z = 0; z < d; z++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int i = (z * h + y) * w + x;
                bool inside = x >= 2 && x < 5 && y >= 1 && y < 3 && z >= 1 && z < 3;
                wrong += box[i] != (inside ? host[i] : 0.0f);
            }
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(dev.ptr));
}

static void kernels_use_pinned_host_memory() {
    const int n = 700;
    int *pinned;
    HIP_CHECK(hipHostMalloc(&pinned, n * sizeof(int), hipHostMallocMapped));
    for (int i = 0; i < n; i++) pinned[i] = i - 300;
    int *mapped;
    HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void **>(&mapped), pinned, 0));
    hipLaunchKernelGGL(square_in_place, dim3((n + 63) / 64), dim3(64), 0, 0, mapped, n);
    HIP_CHECK(hipDeviceSynchronize());
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += pinned[i] != (i - 300) * (i - 300);
    EXPECT(wrong == 0);
    unsigned int flags = 0;
    HIP_CHECK(hipHostGetFlags(&flags, pinned));
    EXPECT(flags & hipHostMallocMapped);
    HIP_CHECK(hipHostFree(pinned));
}

static void kernels_use_registered_host_memory() {
    const int n = 1000;
    std::vector<int> data(n);
    for (int i = 0; i < n; i++) data[i] = i % 50;
    HIP_CHECK(hipHostRegister(data.data(), n * sizeof(int), hipHostRegisterDefault));
    int *mapped;
    HIP_CHECK(hipHostGetDevicePointer(reinterpret_cast<void **>(&mapped), data.data(), 0));
    hipLaunchKernelGGL(square_in_place, dim3((n + 127) / 128), dim3(128), 0, 0, mapped, n);
    HIP_CHECK(hipDeviceSynchronize());
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += data[i] != (i % 50) * (i % 50);
    EXPECT(wrong == 0);

    // Copies from registered memory take the pinned path: the data must still arrive.
    int *dev;
    HIP_CHECK(hipMalloc(&dev, n * sizeof(int)));
    HIP_CHECK(hipMemcpy(dev, data.data(), n * sizeof(int), hipMemcpyHostToDevice));
    std::vector<int> back(n);
    HIP_CHECK(hipMemcpy(back.data(), dev, n * sizeof(int), hipMemcpyDeviceToHost));
    EXPECT(back == data);
    HIP_CHECK(hipHostUnregister(data.data()));
    HIP_CHECK(hipFree(dev));
}

static void managed_memory() {
    const int n = 300;
    int *managed = nullptr;
    hipError_t e = hipMallocManaged(&managed, n * sizeof(int), hipMemAttachGlobal);
    if (e == hipErrorNotSupported) {  // HIP's answer on devices without managed memory
        std::printf("managed memory: not supported\n");
        return;
    }
    HIP_CHECK(e);
    for (int i = 0; i < n; i++) managed[i] = i + 1;
    hipLaunchKernelGGL(square_in_place, dim3((n + 63) / 64), dim3(64), 0, 0, managed, n);
    HIP_CHECK(hipDeviceSynchronize());
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += managed[i] != (i + 1) * (i + 1);
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(managed));
}

static void device_copies_memsets_and_symbols() {
    const int n = 2000;
    int table[64];
    for (int i = 0; i < 64; i++) table[i] = 1 << (i % 20);
    HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(device_table), table, sizeof(table)));
    int *a, *b;
    HIP_CHECK(hipMalloc(&a, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&b, n * sizeof(int)));
    HIP_CHECK(hipMemsetD32(a, 5, n));
    HIP_CHECK(hipMemcpy(b, a, n * sizeof(int), hipMemcpyDeviceToDevice));
    hipLaunchKernelGGL(add_table, dim3((n + 255) / 256), dim3(256), 0, 0, b, n);
    std::vector<int> out(n);
    HIP_CHECK(hipMemcpy(out.data(), b, n * sizeof(int), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += out[i] != 5 + table[i % 64];
    EXPECT(wrong == 0);
    int back[64];
    HIP_CHECK(hipMemcpyFromSymbol(back, HIP_SYMBOL(device_table), sizeof(back)));
    EXPECT(std::memcmp(back, table, sizeof(table)) == 0);

    // Byte memset at an odd offset and length: neighbours stay as they were.
    HIP_CHECK(hipMemsetD8(reinterpret_cast<unsigned char *>(a) + 3, 0x7F, 9));
    unsigned char bytes[16];
    HIP_CHECK(hipMemcpy(bytes, a, sizeof(bytes), hipMemcpyDeviceToHost));
    EXPECT(bytes[0] == 5 && bytes[1] == 0 && bytes[2] == 0);
    EXPECT(bytes[3] == 0x7F && bytes[11] == 0x7F && bytes[12] == 5);
    HIP_CHECK(hipFree(a));
    HIP_CHECK(hipFree(b));
}

// HIP reads the image limits from hsa_agent_get_info (32-bit values, as ROCr writes them)
// and refuses any array beyond them.
static void arrays_within_image_limits() {
    hipDeviceProp_t props;
    HIP_CHECK(hipGetDeviceProperties(&props, 0));
    EXPECT(props.maxTexture2D[0] == 16384 && props.maxTexture2D[1] == 16384);
    EXPECT(props.maxTexture3D[0] == 16384 && props.maxTexture3D[1] == 16384 && props.maxTexture3D[2] == 8192);
    hipChannelFormatDesc f32 = hipCreateChannelDesc<float>(), u8x4 = hipCreateChannelDesc<uchar4>();
    hipArray_t plane, cube, wide;
    HIP_CHECK(hipMallocArray(&plane, &f32, 64, 32, 0));
    HIP_CHECK(hipMalloc3DArray(&cube, &u8x4, make_hipExtent(16, 16, 8), 0));
    HIP_EXPECT_ERROR(hipMallocArray(&wide, &f32, 16385, 4, 0), hipErrorInvalidValue);
    HIP_CHECK(hipFreeArray(plane));
    HIP_CHECK(hipFreeArray(cube));
}

int main() {
    copies_2d_with_pitch();
    copies_3d();
    kernels_use_pinned_host_memory();
    kernels_use_registered_host_memory();
    managed_memory();
    device_copies_memsets_and_symbols();
    arrays_within_image_limits();
    return hip_report("HIP MEMORY");
}
