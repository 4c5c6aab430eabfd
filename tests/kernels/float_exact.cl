// Built with -cl-fp32-correctly-rounded-divide-sqrt: division and sqrt are exact-rounded,
// so clang emits the full v_div_scale/v_div_fmas/v_div_fixup sequence.
kernel void float_div_sqrt_cr(global const float* a, global const float* b, global float* out) {
  size_t i = get_global_id(0);
  out[2 * i + 0] = a[i] / b[i];
  out[2 * i + 1] = sqrt(fabs(a[i]));
}
