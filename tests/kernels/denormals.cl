// f32 denormals: kept by default (the descriptor's FLOAT_DENORM_MODE_32 = 3), flushed in
// and out when built with -cl-denorms-are-zero (mode 0). Same source, two builds.
kernel void float_denormals(global const float* a, global const float* b, global const float* c,
                            global float* out) {
  size_t i = get_global_id(0);
  float x = a[i], y = b[i], z = c[i];
  out[4 * i + 0] = x * y;
  out[4 * i + 1] = x + z;
  out[4 * i + 2] = fma(x, y, z);
  out[4 * i + 3] = x * 0x1p100f;
}
