// IEEE corner cases through ROCm's device library: rounding of small negatives and halves,
// saturating conversions of NaN, infinities and out-of-range values, fmin/fmax of NaNs and
// signed zeros. The references (suite.py) are what the hardware computes from this code.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// round() is LLVM's lowering up to LLVM 17: trunc(x) + (|x - trunc(x)| >= 0.5 ? copysign(1, x)
// : +0.0), +0 for a small negative (LLVM issue 65629). round_fixed is what LLVM 18 emits
// instead (PR 65761): the offset takes x's sign also when it is zero, so -0 + -0 stays -0.
#define ROUND_FIXED(T, x) (trunc(x) + copysign(fabs((x) - trunc(x)) >= (T)0.5 ? (T)1 : (T)0, x))

kernel void rounding_signs(global const float* a, global const double* b, global const half* c,
                           global float* fo, global double* dout, global half* ho) {
  size_t i = get_global_id(0);
  float x = a[i];
  float whole;
  fo[8 * i + 0] = floor(x);
  fo[8 * i + 1] = ceil(x);
  fo[8 * i + 2] = trunc(x);
  fo[8 * i + 3] = rint(x);
  fo[8 * i + 4] = round(x);
  fo[8 * i + 5] = ROUND_FIXED(float, x);
  fo[8 * i + 6] = fract(x, &whole);
  fo[8 * i + 7] = whole;
  double y = b[i];
  dout[5 * i + 0] = floor(y);
  dout[5 * i + 1] = ceil(y);
  dout[5 * i + 2] = trunc(y);
  dout[5 * i + 3] = rint(y);
  dout[5 * i + 4] = round(y);
  half z = c[i];
  ho[4 * i + 0] = floor(z);
  ho[4 * i + 1] = ceil(z);
  ho[4 * i + 2] = trunc(z);
  ho[4 * i + 3] = rint(z);
}

// convert_<int>_sat is min(max(x, lo), hi) then a truncating convert (ROCm device library
// conversions.cl): the hardware max drops a NaN, so NaN converts to lo; spec_int_sat adds the
// OpenCL specification's NaN -> 0.
kernel void saturating_conversions(global const float* a, global const double* b, global int* o,
                                   global long* lo) {
  size_t i = get_global_id(0);
  float x = a[i];
  o[14 * i + 0] = convert_int_sat(x);
  o[14 * i + 1] = convert_int_sat_rte(x);
  o[14 * i + 2] = convert_int_sat_rtp(x);
  o[14 * i + 3] = convert_int_sat_rtn(x);
  o[14 * i + 4] = convert_int_sat_rtz(x);
  o[14 * i + 5] = (int)convert_uint_sat(x);
  o[14 * i + 6] = (int)convert_uint_sat_rte(x);
  o[14 * i + 7] = convert_char_sat(x);
  o[14 * i + 8] = convert_uchar_sat_rtn(x);
  o[14 * i + 9] = convert_short_sat_rtp(x);
  o[14 * i + 10] = convert_ushort_sat(x);
  o[14 * i + 11] = isnan(x) ? 0 : convert_int_sat(x);
  double y = b[i];
  o[14 * i + 12] = convert_int_sat(y);
  o[14 * i + 13] = (int)convert_uint_sat_rte(y);
  lo[2 * i + 0] = convert_long_sat(y);
  lo[2 * i + 1] = (long)convert_ulong_sat(y);
}

// fmin/fmax return the other operand for one NaN and order -0 < +0 (v_min/v_max). clamp to
// [0, 1] of NaN is 0 (unspecified in OpenCL): at -O2 it is the CLAMP bit with DX10_CLAMP set;
// x + 0.0f makes -0 +0 first, since the CLAMP bit's -0 is not documented.
kernel void fminmax_specials(global const float* a, global const float* b, global const double* c,
                             global const double* d, global float* fo, global double* dout) {
  size_t i = get_global_id(0);
  float x = a[i], y = b[i];
  fo[4 * i + 0] = fmin(x, y);
  fo[4 * i + 1] = fmax(x, y);
  fo[4 * i + 2] = clamp(x + 0.0f, 0.0f, 1.0f);     // -O2: v_max_f32 ... clamp
  fo[4 * i + 3] = fmax(fmin(x, y), -0.0f);
  double u = c[i], v = d[i];
  dout[2 * i + 0] = fmin(u, v);
  dout[2 * i + 1] = fmax(u, v);
}
