// gfx940+'s 8-bit float matrix products (fp8 and bf8: gfx942's FNUZ flavour, gfx950's OCP one)
// and gfx950's f16/i8 products of twice the K, through HIP's builtins, built by clang-21 in the
// ROCm 6.4 root. Each workgroup is one wave64 holding its A, B and C tiles in the layouts AMD's
// matrix instruction calculator gives: for a 16x16xK product a lane holds K/4 consecutive k of
// row (A) or column (B) lane % 16, k from (K/4) * (lane / 16); D row i sits in register i % 4
// of lane 16 * (i / 4) + j. Workgroup g works on tile set g.
#include <hip/hip_runtime.h>

typedef float float4_ __attribute__((ext_vector_type(4)));
typedef float float16_ __attribute__((ext_vector_type(16)));
typedef unsigned char bytes8 __attribute__((ext_vector_type(8)));

// 16x32 A times 32x16 B of 8-bit floats (A's kind, then B's), plus 16x16 C (f32).
#define MFMA_16X16X32(A, B)                                                                   \
  extern "C" __global__ void mfma_f32_16x16x32_##A##_##B(const unsigned char* a,              \
                                                         const unsigned char* b,              \
                                                         const float* c, float* d) {          \
    int lane = threadIdx.x, t = blockIdx.x;                                                   \
    a += t * 16 * 32; b += t * 32 * 16; c += t * 16 * 16; d += t * 16 * 16;                   \
    bytes8 fa, fb;                                                                            \
    for (int e = 0; e < 8; ++e) {                                                             \
      int k = 8 * (lane / 16) + e;                                                            \
      fa[e] = a[(lane % 16) * 32 + k];                                                        \
      fb[e] = b[k * 16 + lane % 16];                                                          \
    }                                                                                         \
    float4_ acc;                                                                              \
    for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (lane / 16) + r) * 16 + lane % 16];           \
    acc = __builtin_amdgcn_mfma_f32_16x16x32_##A##_##B(__builtin_bit_cast(long, fa),          \
                                                      __builtin_bit_cast(long, fb), acc,     \
                                                      0, 0, 0);                               \
    for (int r = 0; r < 4; ++r) d[(4 * (lane / 16) + r) * 16 + lane % 16] = acc[r];           \
  }
MFMA_16X16X32(fp8, fp8)
MFMA_16X16X32(fp8, bf8)
MFMA_16X16X32(bf8, fp8)
MFMA_16X16X32(bf8, bf8)

// 32x16 A times 16x32 B (fp8): a lane holds eight consecutive k of row lane % 32 (k from
// 8 * (lane / 32)); D row i sits in register 4 * (i / 8) + i % 4 of lane 32 * (i / 4 % 2) + j.
extern "C" __global__ void mfma_f32_32x32x16_fp8_fp8(const unsigned char* a,
                                                     const unsigned char* b, const float* c,
                                                     float* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 32 * 16; b += t * 16 * 32; c += t * 32 * 32; d += t * 32 * 32;
  bytes8 fa, fb;
  for (int e = 0; e < 8; ++e) {
    int k = 8 * (lane / 32) + e;
    fa[e] = a[(lane % 32) * 16 + k];
    fb[e] = b[k * 32 + lane % 32];
  }
  float16_ acc;
  for (int r = 0; r < 16; ++r) acc[r] = c[(8 * (r / 4) + 4 * (lane / 32) + r % 4) * 32 + lane % 32];
  acc = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(__builtin_bit_cast(long, fa),
                                                   __builtin_bit_cast(long, fb), acc, 0, 0, 0);
  for (int r = 0; r < 16; ++r) d[(8 * (r / 4) + 4 * (lane / 32) + r % 4) * 32 + lane % 32] = acc[r];
}

#if defined(__gfx950__)
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef int int4_ __attribute__((ext_vector_type(4)));
typedef signed char chars16 __attribute__((ext_vector_type(16)));

// gfx950: 16x32 A times 32x16 B (f16), eight k per lane.
extern "C" __global__ void mfma_f32_16x16x32_f16(const _Float16* a, const _Float16* b,
                                                 const float* c, float* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 16 * 32; b += t * 32 * 16; c += t * 16 * 16; d += t * 16 * 16;
  half8 fa, fb;
  for (int e = 0; e < 8; ++e) {
    int k = 8 * (lane / 16) + e;
    fa[e] = a[(lane % 16) * 32 + k];
    fb[e] = b[k * 16 + lane % 16];
  }
  float4_ acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (lane / 16) + r) * 16 + lane % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x32_f16(fa, fb, acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r) d[(4 * (lane / 16) + r) * 16 + lane % 16] = acc[r];
}

// gfx950: 16x64 A times 64x16 B (int8) plus int32 C, sixteen k per lane.
extern "C" __global__ void mfma_i32_16x16x64_i8(const signed char* a, const signed char* b,
                                                const int* c, int* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 16 * 64; b += t * 64 * 16; c += t * 16 * 16; d += t * 16 * 16;
  chars16 fa, fb;
  for (int e = 0; e < 16; ++e) {
    int k = 16 * (lane / 16) + e;
    fa[e] = a[(lane % 16) * 64 + k];
    fb[e] = b[k * 16 + lane % 16];
  }
  int4_ acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (lane / 16) + r) * 16 + lane % 16];
  acc = __builtin_amdgcn_mfma_i32_16x16x64_i8(__builtin_bit_cast(int4_, fa),
                                              __builtin_bit_cast(int4_, fb), acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r) d[(4 * (lane / 16) + r) * 16 + lane % 16] = acc[r];
}
#endif
