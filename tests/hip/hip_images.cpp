// HIP arrays, textures and surfaces on SoftGPU through AMD's HIP runtime: copies to and
// from arrays (HIP's own blit kernels, image_store / image_load), texture objects in every
// address and filter mode, normalized or not, surface reads and writes.
//
// Usage: hip_images IN OUT. IN holds the inputs tests/test_hip_client.py wrote (the texel
// data and sample coordinates below, in this order); OUT receives every result, in the
// order of the sections below, for the test to compare with tests/kernels/image_reference.py.
#include "hip_check.h"

#include <cstring>
#include <vector>

constexpr int W = 7, H = 5, D = 3, K = 64;      // image extent, layers/depth, coordinates

__global__ void sample_2d(hipTextureObject_t t, const float2 *c, float4 *out) {
    int i = threadIdx.x;
    out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

__global__ void sample_3d(hipTextureObject_t t, const float4 *c, float4 *out) {
    int i = threadIdx.x;
    out[i] = tex3D<float4>(t, c[i].x, c[i].y, c[i].z);
}

__global__ void sample_layered(hipTextureObject_t t, const float4 *c, float4 *out) {
    int i = threadIdx.x;
    out[i] = tex2DLayered<float4>(t, c[i].x, c[i].y, (int)c[i].z);
}

__global__ void fetch_linear(hipTextureObject_t t, float *out) {
    int i = threadIdx.x;
    out[i] = tex1Dfetch<float>(t, i);
}

__global__ void surface_twice_plus_one(hipSurfaceObject_t s) {
    int x = threadIdx.x, y = blockIdx.x;
    float4 v;
    surf2Dread(&v, s, x * (int)sizeof(float4), y);
    v.x = 2 * v.x + 1; v.y = 2 * v.y + 1; v.z = 2 * v.z + 1; v.w = 2 * v.w + 1;
    surf2Dwrite(v, s, x * (int)sizeof(float4), y);
}

static std::vector<char> read_file(const char *path) {
    std::vector<char> data;
    FILE *f = std::fopen(path, "rb");
    if (!f) { std::printf("FAIL cannot read %s\n", path); std::exit(1); }
    char chunk[4096];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0) data.insert(data.end(), chunk, chunk + n);
    std::fclose(f);
    return data;
}

// Sample K coordinates of `coords` (device memory) through a texture of `array`.
template <typename Coord>
static void sample(void (*kernel)(hipTextureObject_t, const Coord *, float4 *), hipArray_t array,
                   hipTextureAddressMode address, hipTextureFilterMode filter, bool normalized,
                   hipTextureReadMode read, const Coord *coords, std::vector<float> &results) {
    hipResourceDesc resource = {};
    resource.resType = hipResourceTypeArray;
    resource.res.array.array = array;
    hipTextureDesc desc = {};
    desc.addressMode[0] = desc.addressMode[1] = desc.addressMode[2] = address;
    desc.filterMode = filter;
    desc.readMode = read;
    desc.normalizedCoords = normalized;
    hipTextureObject_t texture;
    HIP_CHECK(hipCreateTextureObject(&texture, &resource, &desc, nullptr));
    float4 *out;
    HIP_CHECK(hipMalloc(&out, K * sizeof(float4)));
    hipLaunchKernelGGL(kernel, dim3(1), dim3(K), 0, 0, texture, coords, out);
    std::vector<float> host(4 * K);
    HIP_CHECK(hipMemcpy(host.data(), out, K * sizeof(float4), hipMemcpyDeviceToHost));
    results.insert(results.end(), host.begin(), host.end());
    HIP_CHECK(hipDestroyTextureObject(texture));
    HIP_CHECK(hipFree(out));
}

int main(int argc, char **argv) {
    if (argc != 3) { std::printf("usage: hip_images IN OUT\n"); return 2; }
    std::vector<char> in = read_file(argv[1]);
    const char *p = in.data();
    auto take = [&](size_t bytes) { const char *at = p; p += bytes; return at; };
    const float *texels = (const float *)take(W * H * 4 * sizeof(float));          // float4 [H][W]
    const unsigned char *bytes = (const unsigned char *)take(W * H * 4);         // uchar4 [H][W]
    const float *volume = (const float *)take(W * H * D * 4 * sizeof(float));    // float4 [D][H][W]
    const float *normalized = (const float *)take(K * 2 * sizeof(float));        // float2 [K]
    const float *unnormalized = (const float *)take(K * 2 * sizeof(float));
    const float *coords3 = (const float *)take(K * 4 * sizeof(float));           // float4 [K], normalized
    const float *layered = (const float *)take(K * 4 * sizeof(float));           // float4 [K]: x, y, layer
    std::vector<float> results;

    // 1. hipMemcpy2DToArray from a pitched host buffer, and back.
    hipChannelFormatDesc f4 = hipCreateChannelDesc<float4>();
    hipArray_t plane;
    HIP_CHECK(hipMallocArray(&plane, &f4, W, H, 0));
    size_t pitch = W * sizeof(float4) + 48;
    std::vector<char> pitched(pitch * H, 0);
    for (int y = 0; y < H; y++) std::memcpy(&pitched[y * pitch], texels + y * W * 4, W * sizeof(float4));
    HIP_CHECK(hipMemcpy2DToArray(plane, 0, 0, pitched.data(), pitch, W * sizeof(float4), H, hipMemcpyHostToDevice));
    std::vector<float> back(W * H * 4);
    HIP_CHECK(hipMemcpy2DFromArray(back.data(), W * sizeof(float4), plane, 0, 0, W * sizeof(float4), H,
                                   hipMemcpyDeviceToHost));
    EXPECT(std::memcmp(back.data(), texels, back.size() * sizeof(float)) == 0);

    // 2. tex2D in every address and filter mode (wrap and mirror need normalized coordinates).
    float2 *norm, *unnorm;
    float4 *c3, *lay;
    HIP_CHECK(hipMalloc(&norm, K * sizeof(float2)));
    HIP_CHECK(hipMalloc(&unnorm, K * sizeof(float2)));
    HIP_CHECK(hipMalloc(&c3, K * sizeof(float4)));
    HIP_CHECK(hipMalloc(&lay, K * sizeof(float4)));
    HIP_CHECK(hipMemcpy(norm, normalized, K * sizeof(float2), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(unnorm, unnormalized, K * sizeof(float2), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(c3, coords3, K * sizeof(float4), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(lay, layered, K * sizeof(float4), hipMemcpyHostToDevice));
    const hipTextureAddressMode modes[] = {hipAddressModeWrap, hipAddressModeClamp, hipAddressModeMirror,
                                           hipAddressModeBorder};
    const hipTextureFilterMode filters[] = {hipFilterModePoint, hipFilterModeLinear};
    for (hipTextureAddressMode mode : modes)
        for (hipTextureFilterMode filter : filters)
            sample(sample_2d, plane, mode, filter, true, hipReadModeElementType, norm, results);
    for (hipTextureAddressMode mode : {hipAddressModeClamp, hipAddressModeBorder})
        for (hipTextureFilterMode filter : filters)
            sample(sample_2d, plane, mode, filter, false, hipReadModeElementType, unnorm, results);

    // 3. Unsigned 8-bit texels read as normalized floats. (HIP 5.2's hipCreateChannelDesc<uchar4>
    // says "signed": the kind is spelled out.)
    hipChannelFormatDesc u4 = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
    hipArray_t small;
    HIP_CHECK(hipMallocArray(&small, &u4, W, H, 0));
    HIP_CHECK(hipMemcpy2DToArray(small, 0, 0, bytes, W * 4, W * 4, H, hipMemcpyHostToDevice));
    sample(sample_2d, small, hipAddressModeClamp, hipFilterModeLinear, true, hipReadModeNormalizedFloat, norm,
           results);

    // 4. hipMemcpy3D to a 3D array, tex3D (trilinear), and hipMemcpy3D back to the host.
    hipArray_t cube;
    HIP_CHECK(hipMalloc3DArray(&cube, &f4, make_hipExtent(W, H, D), 0));
    hipMemcpy3DParms up = {};
    up.srcPtr = make_hipPitchedPtr((void *)volume, W * sizeof(float4), W, H);
    up.dstArray = cube;
    up.extent = make_hipExtent(W, H, D);
    up.kind = hipMemcpyHostToDevice;
    HIP_CHECK(hipMemcpy3D(&up));
    sample(sample_3d, cube, hipAddressModeClamp, hipFilterModeLinear, true, hipReadModeElementType, c3, results);
    std::vector<float> volume_back(W * H * D * 4, -1.0f);
    hipMemcpy3DParms down = {};
    down.srcArray = cube;
    down.dstPtr = make_hipPitchedPtr(volume_back.data(), W * sizeof(float4), W, H);
    down.extent = make_hipExtent(W, H, D);
    down.kind = hipMemcpyDeviceToHost;
    HIP_CHECK(hipMemcpy3D(&down));
    EXPECT(std::memcmp(volume_back.data(), volume, volume_back.size() * sizeof(float)) == 0);

    // 5. A layered 2D array (its layers from the same volume), tex2DLayered.
    hipArray_t layers;
    HIP_CHECK(hipMalloc3DArray(&layers, &f4, make_hipExtent(W, H, D), hipArrayLayered));
    up.dstArray = layers;
    HIP_CHECK(hipMemcpy3D(&up));
    sample(sample_layered, layers, hipAddressModeWrap, hipFilterModePoint, true, hipReadModeElementType, lay,
           results);

    // 6. tex1Dfetch from linear memory (a 1D buffer image).
    float *linear;
    HIP_CHECK(hipMalloc(&linear, K * sizeof(float)));
    HIP_CHECK(hipMemcpy(linear, texels, K * sizeof(float), hipMemcpyHostToDevice));
    hipResourceDesc lres = {};
    lres.resType = hipResourceTypeLinear;
    lres.res.linear.devPtr = linear;
    lres.res.linear.desc = hipCreateChannelDesc<float>();
    lres.res.linear.sizeInBytes = K * sizeof(float);
    hipTextureDesc ldesc = {};
    ldesc.readMode = hipReadModeElementType;
    hipTextureObject_t fetch;
    HIP_CHECK(hipCreateTextureObject(&fetch, &lres, &ldesc, nullptr));
    float *fetched;
    HIP_CHECK(hipMalloc(&fetched, K * sizeof(float)));
    hipLaunchKernelGGL(fetch_linear, dim3(1), dim3(K), 0, 0, fetch, fetched);
    std::vector<float> fetched_host(K);
    HIP_CHECK(hipMemcpy(fetched_host.data(), fetched, K * sizeof(float), hipMemcpyDeviceToHost));
    results.insert(results.end(), fetched_host.begin(), fetched_host.end());

    // 7. A surface: every texel read, doubled plus one, written back; then copied out.
    hipResourceDesc sres = {};
    sres.resType = hipResourceTypeArray;
    sres.res.array.array = plane;
    hipSurfaceObject_t surface;
    HIP_CHECK(hipCreateSurfaceObject(&surface, &sres));
    hipLaunchKernelGGL(surface_twice_plus_one, dim3(H), dim3(W), 0, 0, surface);
    HIP_CHECK(hipMemcpy2DFromArray(back.data(), W * sizeof(float4), plane, 0, 0, W * sizeof(float4), H,
                                   hipMemcpyDeviceToHost));
    results.insert(results.end(), back.begin(), back.end());

    HIP_CHECK(hipDestroySurfaceObject(surface));
    HIP_CHECK(hipDestroyTextureObject(fetch));
    for (hipArray_t a : {plane, small, cube, layers}) HIP_CHECK(hipFreeArray(a));
    for (void *ptr : {(void *)norm, (void *)unnorm, (void *)c3, (void *)lay, (void *)linear, (void *)fetched})
        HIP_CHECK(hipFree(ptr));
    FILE *out = std::fopen(argv[2], "wb");
    EXPECT(out && std::fwrite(results.data(), sizeof(float), results.size(), out) == results.size());
    if (out) std::fclose(out);
    return hip_report("HIP IMAGES");
}
