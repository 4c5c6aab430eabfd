// gfx90a's floating-point global atomics: f64 add, min and max, f32 add and packed f16 add,
// as HIP's unsafe-atomics builtins emit them (global_atomic_add_f64, _min_f64, _max_f64,
// _add_f32, _pk_add_f16), each lane on one of a few shared addresses.
#include <hip/hip_runtime.h>

typedef _Float16 half2_ __attribute__((ext_vector_type(2)));

extern "C" __global__ void fp_atomics(const double* x, double* sums, double* mins, double* maxs,
                                      float* fsums, half2_* hsums, double* returned) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = x[i];
  int slot = i % 4;
  returned[i] = __builtin_amdgcn_global_atomic_fadd_f64(&sums[slot], v);
  __builtin_amdgcn_global_atomic_fmin_f64(&mins[slot], v);
  __builtin_amdgcn_global_atomic_fmax_f64(&maxs[slot], v);
  __builtin_amdgcn_global_atomic_fadd_f32(&fsums[slot], (float)v);
  half2_ h = {(_Float16)(i % 8), (_Float16)1};
  __builtin_amdgcn_global_atomic_fadd_v2f16(&hsums[slot], h);
}
