// Double precision: + - * fma / sqrt are correctly rounded in OpenCL.
kernel void double_arith(global const double* a, global const double* b, global const double* c,
                         global double* out) {
  size_t i = get_global_id(0);
  double x = a[i], y = b[i], z = c[i];
  out[6 * i + 0] = x + y;
  out[6 * i + 1] = x - z;
  out[6 * i + 2] = x * y;
  out[6 * i + 3] = fma(x, y, z);
  out[6 * i + 4] = x / y;
  out[6 * i + 5] = sqrt(fabs(z));
}

kernel void double_transcendental(global const double* a, global const double* p,
                                  global double* out) {
  size_t i = get_global_id(0);
  out[5 * i + 0] = exp(a[i]);
  out[5 * i + 1] = log(p[i]);
  out[5 * i + 2] = sin(a[i]);
  out[5 * i + 3] = cos(a[i]);
  out[5 * i + 4] = pow(p[i], a[i] * 0.25);
}

kernel void double_convert(global const double* a, global const long* l, global float* f,
                           global long* n, global double* d) {
  size_t i = get_global_id(0);
  double x = a[i];
  f[2 * i + 0] = convert_float(x);
  f[2 * i + 1] = convert_float_rtz(x);
  n[2 * i + 0] = convert_long(x);
  n[2 * i + 1] = convert_int_sat(x);
  d[4 * i + 0] = convert_double(l[i]);
  d[4 * i + 1] = floor(x);
  d[4 * i + 2] = ceil(x);
  d[4 * i + 3] = round(x);
}

// f64 denormals (kept: FLOAT_DENORM_MODE_16_64 = 3) and special values.
kernel void double_special(global const double* a, global const double* b, global double* out) {
  size_t i = get_global_id(0);
  double x = a[i], y = b[i];
  out[5 * i + 0] = x * y;
  out[5 * i + 1] = x / y;
  out[5 * i + 2] = sqrt(x);
  out[5 * i + 3] = exp(y * -700.0);
  out[5 * i + 4] = log(x);
}
