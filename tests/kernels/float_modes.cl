// The MODE register: its initial value comes from the kernel descriptor (round to nearest,
// f32/f64 denormals kept, DX10 clamp and IEEE mode on), and s_setreg changes the f32
// rounding mode for what follows (FP_ROUND bits 1:0: 1 = +inf, 2 = -inf, 3 = toward zero),
// leaving the f64/f16 mode (bits 3:2) at round to nearest.
kernel void read_mode(global uint* mode) {
  mode[get_global_id(0)] = __builtin_amdgcn_s_getreg(0x4801);   // hwreg(HW_REG_MODE, 0, 10)
}

#define ROUNDING_KERNEL(name, mode)                                                          \
  kernel void name(global const float* a, global const float* b, global const float* c,   \
                   global const double* d, global float* out, global double* wide) {      \
    size_t i = get_global_id(0);                                                           \
    __builtin_amdgcn_s_setreg(0x0801, mode);                    /* hwreg(HW_REG_MODE, 0, 2) */ \
    float x = a[i], y = b[i], z = c[i];                                                    \
    out[3 * i + 0] = x + y;                                                                \
    out[3 * i + 1] = x * y;                                                                \
    out[3 * i + 2] = fma(x, y, z);                                                         \
    wide[i] = d[i] + (double)x;                                                            \
  }

ROUNDING_KERNEL(round_up, 1)
ROUNDING_KERNEL(round_down, 2)
ROUNDING_KERNEL(round_toward_zero, 3)
