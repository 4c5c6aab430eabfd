// Single-precision arithmetic. No expression multiplies then adds: OpenCL contracts
// a*b+c into an fma, and the references round each operation on its own.
kernel void float_arith(global const float* a, global const float* b, global const float* c,
                        global float* out) {
  size_t i = get_global_id(0);
  float x = a[i], y = b[i], z = c[i];
  out[4 * i + 0] = x + y;
  out[4 * i + 1] = x - z;
  out[4 * i + 2] = x * y;
  out[4 * i + 3] = fma(x, y, z);
}

// Default precision: OpenCL allows 2.5 ulp for x/y and 3 ulp for sqrt.
kernel void float_div_sqrt(global const float* a, global const float* b, global float* out) {
  size_t i = get_global_id(0);
  out[2 * i + 0] = a[i] / b[i];
  out[2 * i + 1] = sqrt(fabs(a[i]));
}

// a holds NaNs: fmin/fmax return the other operand.
kernel void float_minmax(global const float* a, global const float* b, global const float* t,
                         global float* out) {
  size_t i = get_global_id(0);
  float x = a[i], y = b[i];
  out[8 * i + 0] = fmin(x, y);
  out[8 * i + 1] = fmax(x, y);
  out[8 * i + 2] = fabs(x);
  out[8 * i + 3] = copysign(y, x);
  out[8 * i + 4] = clamp(y, -0.5f, 0.75f);
  out[8 * i + 5] = step(0.25f, y);
  out[8 * i + 6] = sign(y);
  out[8 * i + 7] = mix(y, 2.0f * y, t[i]);
}

kernel void float_round(global const float* a, global float* out) {
  size_t i = get_global_id(0);
  float x = a[i];
  out[6 * i + 0] = floor(x);
  out[6 * i + 1] = ceil(x);
  out[6 * i + 2] = round(x);
  out[6 * i + 3] = rint(x);
  out[6 * i + 4] = trunc(x);
  out[6 * i + 5] = x - trunc(x);
}

kernel void float_exp_log(global const float* a, global const float* p, global float* out) {
  size_t i = get_global_id(0);
  out[4 * i + 0] = exp(a[i]);
  out[4 * i + 1] = exp2(a[i]);
  out[4 * i + 2] = log(p[i]);
  out[4 * i + 3] = log2(p[i]);
}

kernel void float_sin_cos(global const float* a, global float* out) {
  size_t i = get_global_id(0);
  out[2 * i + 0] = sin(a[i]);
  out[2 * i + 1] = cos(a[i]);
}

kernel void float_pow(global const float* a, global const float* b, global float* out) {
  size_t i = get_global_id(0);
  out[i] = pow(a[i], b[i]);
}

// Spec tolerances: rsqrt 2 ulp, cbrt 2 ulp, hypot 4 ulp, atan2 6 ulp.
kernel void float_misc(global const float* a, global const float* b, global float* out) {
  size_t i = get_global_id(0);
  out[4 * i + 0] = rsqrt(a[i]);
  out[4 * i + 1] = cbrt(b[i]);
  out[4 * i + 2] = hypot(a[i], b[i]);
  out[4 * i + 3] = atan2(b[i], a[i]);
}

// native_* map to single hardware instructions whose accuracy is implementation-defined.
kernel void float_native(global const float* a, global const float* p, global float* out) {
  size_t i = get_global_id(0);
  out[8 * i + 0] = native_sin(a[i]);
  out[8 * i + 1] = native_cos(a[i]);
  out[8 * i + 2] = native_exp2(a[i]);
  out[8 * i + 3] = native_log2(p[i]);
  out[8 * i + 4] = native_recip(p[i]);
  out[8 * i + 5] = native_rsqrt(p[i]);
  out[8 * i + 6] = native_sqrt(p[i]);
  out[8 * i + 7] = native_divide(a[i], p[i]);
}

// mad may fuse or not (its precision is the implementation's); with a*b and c of one sign
// both ways stay within 1 ulp. mad_hi and mad_sat are exact.
kernel void mad_family(global const float* a, global const float* b, global const float* c,
                       global const int* x, global const int* y, global const int* z,
                       global float* f, global int* out) {
  size_t i = get_global_id(0);
  f[i] = mad(a[i], b[i], c[i]);
  out[3 * i + 0] = mad_hi(x[i], y[i], z[i]);
  out[3 * i + 1] = mad_sat(x[i], y[i], z[i]);
  out[3 * i + 2] = (int)mad_sat((uint)x[i], (uint)y[i], (uint)z[i]);
}

// IEEE special values through the library: zeros, infinities, NaN, negative arguments,
// overflow and underflow (C99 Annex F results, which OpenCL adopts).
kernel void float_special_values(global const float* a, global const float* b, global float* out) {
  size_t i = get_global_id(0);
  float x = a[i];
  out[6 * i + 0] = exp(x);
  out[6 * i + 1] = log(x);
  out[6 * i + 2] = sqrt(x);
  out[6 * i + 3] = rsqrt(x);
  out[6 * i + 4] = sin(x);
  out[6 * i + 5] = pow(x, b[i]);
}
