// gfx90a's (and gfx940+'s) matrix instructions through HIP's builtins: each workgroup is one wave64 that
// loads its A, B and C tiles into registers in the layouts AMD documents for the MFMA
// instructions (the AMD matrix instruction calculator), multiplies, and stores D.
// Workgroup g works on tile set g: A, B, C and D arrays hold one tile per workgroup.
#include <hip/hip_runtime.h>

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float4_ __attribute__((ext_vector_type(4)));
typedef float float16_ __attribute__((ext_vector_type(16)));
typedef double double4_ __attribute__((ext_vector_type(4)));
typedef int int4_ __attribute__((ext_vector_type(4)));

// 32x8 A times 8x32 B (f16) plus 32x32 C (f32). A lane holds four consecutive k of row
// lane % 32 (k from 4 * (lane / 32)); D row i sits in register 4 * (i / 8) + i % 4 of
// lane 32 * (i / 4 % 2) + j.
extern "C" __global__ void mfma_f32_32x32x8f16(const _Float16* a, const _Float16* b,
                                               const float* c, float* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 32 * 8; b += t * 8 * 32; c += t * 32 * 32; d += t * 32 * 32;
  half4 fa, fb;
  for (int e = 0; e < 4; ++e) {
    int k = 4 * (lane / 32) + e;
    fa[e] = a[(lane % 32) * 8 + k];
    fb[e] = b[k * 32 + lane % 32];
  }
  float16_ acc;
  for (int r = 0; r < 16; ++r) acc[r] = c[(8 * (r / 4) + 4 * (lane / 32) + r % 4) * 32 + lane % 32];
  acc = __builtin_amdgcn_mfma_f32_32x32x8f16(fa, fb, acc, 0, 0, 0);
  for (int r = 0; r < 16; ++r) d[(8 * (r / 4) + 4 * (lane / 32) + r % 4) * 32 + lane % 32] = acc[r];
}

// 16x4 A times 4x16 B (f32): lane holds A[lane % 16][lane / 16]; D row i in register i % 4
// of lane 16 * (i / 4) + j.
extern "C" __global__ void mfma_f32_16x16x4f32(const float* a, const float* b, const float* c,
                                               float* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 16 * 4; b += t * 4 * 16; c += t * 16 * 16; d += t * 16 * 16;
  float4_ acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (lane / 16) + r) * 16 + lane % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[(lane % 16) * 4 + lane / 16],
                                             b[(lane / 16) * 16 + lane % 16], acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r) d[(4 * (lane / 16) + r) * 16 + lane % 16] = acc[r];
}

// 16x4 A times 4x16 B (f64): like the f32 form, D row i in register pair i / 4 of lane
// 16 * (i % 4) + j. The accumulator's elements are named one by one: clang-15 at -O0 builds a
// double vector from a loop with gfx9's index mode, writing each element's high half into
// the register of its low half.
#define F64_ROW(r) ((4 * (r) + lane / 16) * 16 + lane % 16)
extern "C" __global__ void mfma_f64_16x16x4f64(const double* a, const double* b, const double* c,
                                               double* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 16 * 4; b += t * 4 * 16; c += t * 16 * 16; d += t * 16 * 16;
  double4_ acc = {c[F64_ROW(0)], c[F64_ROW(1)], c[F64_ROW(2)], c[F64_ROW(3)]};
  acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a[(lane % 16) * 4 + lane / 16],
                                             b[(lane / 16) * 16 + lane % 16], acc, 0, 0, 0);
  d[F64_ROW(0)] = acc[0];
  d[F64_ROW(1)] = acc[1];
  d[F64_ROW(2)] = acc[2];
  d[F64_ROW(3)] = acc[3];
}

// gfx940 dropped the 16x16x16 int8 product for one of twice the K (below); so did gfx950.
#if !defined(__gfx942__) && !defined(__gfx950__)
// 16x16 A times 16x16 B (int8) plus int32 C: lane holds bytes k = 4 * (lane / 16) .. + 3 of
// row lane % 16 (A) or column lane % 16 (B); D as for f32.
extern "C" __global__ void mfma_i32_16x16x16i8(const signed char* a, const signed char* b,
                                               const int* c, int* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 16 * 16; b += t * 16 * 16; c += t * 16 * 16; d += t * 16 * 16;
  int fa = 0, fb = 0;
  for (int e = 0; e < 4; ++e) {
    int k = 4 * (lane / 16) + e;
    fa |= (a[(lane % 16) * 16 + k] & 0xff) << (8 * e);
    fb |= (b[k * 16 + lane % 16] & 0xff) << (8 * e);
  }
  int4_ acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (lane / 16) + r) * 16 + lane % 16];
  acc = __builtin_amdgcn_mfma_i32_16x16x16i8(fa, fb, acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r) d[(4 * (lane / 16) + r) * 16 + lane % 16] = acc[r];
}
#else
// 16x32 A times 32x16 B (int8) plus int32 C: lane holds bytes k = 8 * (lane / 16) .. + 7 of
// row lane % 16 (A) or column lane % 16 (B) in a register pair; D as for f32.
extern "C" __global__ void mfma_i32_16x16x32i8(const signed char* a, const signed char* b,
                                               const int* c, int* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 16 * 32; b += t * 32 * 16; c += t * 16 * 16; d += t * 16 * 16;
  long fa = 0, fb = 0;
  for (int e = 0; e < 8; ++e) {
    int k = 8 * (lane / 16) + e;
    fa |= (long)(a[(lane % 16) * 32 + k] & 0xff) << (8 * e);
    fb |= (long)(b[k * 16 + lane % 16] & 0xff) << (8 * e);
  }
  int4_ acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (lane / 16) + r) * 16 + lane % 16];
  acc = __builtin_amdgcn_mfma_i32_16x16x32_i8(fa, fb, acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r) d[(4 * (lane / 16) + r) * 16 + lane % 16] = acc[r];
}
#endif

// Sixteen 4x1 times 1x4 blocks (f32): lane holds element lane % 4 of block lane / 4; D of
// block blk, row i in register i of lane 4 * blk + j. CBSZ 4 and ABID 3 broadcast A's block
// 3 to all sixteen blocks; BLGP 1 makes lanes 32-63 read B from lanes 0-31 (blocks 8-15
// multiply blocks 0-7 of B).
extern "C" __global__ void mfma_f32_4x4x1f32_broadcasts(const float* a, const float* b,
                                                        const float* c, float* d) {
  int lane = threadIdx.x, t = blockIdx.x;
  a += t * 64; b += t * 64; c += t * 256; d += t * 256;
  float4_ acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(lane / 4) * 16 + r * 4 + lane % 4];
  acc = __builtin_amdgcn_mfma_f32_4x4x1f32(a[lane], b[lane], acc, 4, 3, 1);
  for (int r = 0; r < 4; ++r) d[(lane / 4) * 16 + r * 4 + lane % 4] = acc[r];
}
