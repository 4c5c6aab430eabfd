// Conversions with explicit rounding modes and saturation (OpenCL 6.2.3).
kernel void convert_float_to_int(global const float* a, global int* out) {
  size_t i = get_global_id(0);
  float x = a[i];
  out[8 * i + 0] = convert_int_sat(x);
  out[8 * i + 1] = convert_int_sat_rte(x);
  out[8 * i + 2] = convert_int_sat_rtp(x);
  out[8 * i + 3] = convert_int_sat_rtn(x);
  out[8 * i + 4] = (int)convert_uint_sat(x);
  out[8 * i + 5] = convert_char_sat(x);
  out[8 * i + 6] = convert_ushort_sat(x);
  // A plain cast is undefined out of range: keep it in range (clamp of NaN is unspecified).
  out[8 * i + 7] = isnan(x) ? 7 : (int)clamp(x, -1e9f, 1e9f);
}

kernel void convert_int_narrow(global const int* a, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  out[4 * i + 0] = convert_uchar_sat(x);
  out[4 * i + 1] = convert_short_sat(x);
  out[4 * i + 2] = (char)x;
  out[4 * i + 3] = (ushort)x;
}

kernel void convert_int_to_float(global const int* a, global float* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  out[5 * i + 0] = convert_float(x);
  out[5 * i + 1] = convert_float_rtz(x);
  out[5 * i + 2] = convert_float_rtp(x);
  out[5 * i + 3] = convert_float_rtn(x);
  out[5 * i + 4] = convert_float((uint)x);
}

// 64-bit integers <-> floating point: multi-instruction sequences on this hardware.
// ROCm's device library saturates convert_long too (NaN becomes LONG_MIN).
kernel void convert_64bit(global const long* l, global const float* f, global float* to_float,
                          global long* to_long, global double* to_double) {
  size_t i = get_global_id(0);
  to_float[2 * i + 0] = convert_float(l[i]);
  to_float[2 * i + 1] = convert_float((ulong)l[i]);
  to_long[2 * i + 0] = convert_long(f[i]);
  to_long[2 * i + 1] = (long)convert_ulong_sat(f[i]);
  to_double[i] = convert_double((ulong)l[i]);
}
