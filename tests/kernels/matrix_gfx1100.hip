// gfx11's WMMA instructions through HIP's builtins (wave32): each workgroup is one wave that
// loads a 16x16 A, B and C in the layouts AMD documents for WMMA (RDNA3's matrix
// instruction calculator and its WMMA guide), multiplies and stores D. A lane holds row
// lane % 16 of A and column lane % 16 of B (lanes 16-31 repeat lanes 0-15); row i of C and D
// sits in register i / 2 of lanes 16 * (i % 2) .. + 15. Workgroup g works on tile set g.
#include <hip/hip_runtime.h>

typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef short short16 __attribute__((ext_vector_type(16)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef int int4_ __attribute__((ext_vector_type(4)));
typedef int int8_ __attribute__((ext_vector_type(8)));

#define TILE(type, name) const type* name##_ = name + blockIdx.x * 256
#define ROW(r) ((2 * (r) + lane / 16) * 16 + lane % 16)

extern "C" __global__ void wmma_f32_16x16x16_f16(const _Float16* a, const _Float16* b,
                                                 const float* c, float* d) {
  int lane = threadIdx.x;
  TILE(_Float16, a); TILE(_Float16, b); TILE(float, c);
  d += blockIdx.x * 256;
  half16 fa, fb;
  for (int k = 0; k < 16; ++k) { fa[k] = a_[(lane % 16) * 16 + k]; fb[k] = b_[k * 16 + lane % 16]; }
  float8 acc;
  for (int r = 0; r < 8; ++r) acc[r] = c_[ROW(r)];
  acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(fa, fb, acc);
  for (int r = 0; r < 8; ++r) d[ROW(r)] = acc[r];
}

// bf16 inputs, passed as their 16-bit patterns.
extern "C" __global__ void wmma_f32_16x16x16_bf16(const short* a, const short* b, const float* c,
                                                  float* d) {
  int lane = threadIdx.x;
  TILE(short, a); TILE(short, b); TILE(float, c);
  d += blockIdx.x * 256;
  short16 fa, fb;
  for (int k = 0; k < 16; ++k) { fa[k] = a_[(lane % 16) * 16 + k]; fb[k] = b_[k * 16 + lane % 16]; }
  float8 acc;
  for (int r = 0; r < 8; ++r) acc[r] = c_[ROW(r)];
  acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(fa, fb, acc);
  for (int r = 0; r < 8; ++r) d[ROW(r)] = acc[r];
}

// f16 results: C and D in the low halves (element 2r of the 16) with OPSEL clear, in the high
// halves (element 2r + 1) with it set; this kernel does the high ones.
extern "C" __global__ void wmma_f16_16x16x16_f16(const _Float16* a, const _Float16* b,
                                                 const _Float16* c, _Float16* d) {
  int lane = threadIdx.x;
  TILE(_Float16, a); TILE(_Float16, b); TILE(_Float16, c);
  d += blockIdx.x * 256;
  half16 fa, fb, acc = {};
  for (int k = 0; k < 16; ++k) { fa[k] = a_[(lane % 16) * 16 + k]; fb[k] = b_[k * 16 + lane % 16]; }
  for (int r = 0; r < 8; ++r) acc[2 * r + 1] = c_[ROW(r)];
  acc = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(fa, fb, acc, true);
  for (int r = 0; r < 8; ++r) d[ROW(r)] = acc[2 * r + 1];
}

// Signed A, unsigned B (bytes), int32 C, saturating.
extern "C" __global__ void wmma_i32_16x16x16_iu8(const signed char* a, const unsigned char* b,
                                                 const int* c, int* d) {
  int lane = threadIdx.x;
  TILE(signed char, a); TILE(unsigned char, b); TILE(int, c);
  d += blockIdx.x * 256;
  int4_ fa = {}, fb = {};
  for (int k = 0; k < 16; ++k) {
    fa[k / 4] |= (a_[(lane % 16) * 16 + k] & 0xff) << (8 * (k % 4));
    fb[k / 4] |= b_[k * 16 + lane % 16] << (8 * (k % 4));
  }
  int8_ acc;
  for (int r = 0; r < 8; ++r) acc[r] = c_[ROW(r)];
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, fa, false, fb, acc, true);
  for (int r = 0; r < 8; ++r) d[ROW(r)] = acc[r];
}
