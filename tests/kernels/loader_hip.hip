// Loader tests: a HIP kernel, compiled device-only. The attribute macros are the HIP
// headers' own spellings, guarded in case the driver includes those headers.
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif

__device__ int hip_counter = 11;
__constant__ float hip_scale[4] = {1.0f, 2.0f, 4.0f, 8.0f};

extern "C" __global__ void hip_scale_add(float *out, const float *in, int n, int block) {
    int i = __builtin_amdgcn_workgroup_id_x() * block + __builtin_amdgcn_workitem_id_x();
    if (i < n)
        out[i] = in[i] * hip_scale[i & 3] + hip_counter;
}
