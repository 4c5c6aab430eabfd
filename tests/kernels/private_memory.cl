// Private arrays indexed by data: too large or too dynamic for registers, they live in scratch.
kernel void private_array_walk(global const uint* seed, global uint* out) {
  size_t i = get_global_id(0);
  uint buf[96];
  uint s = seed[i];
  for (int k = 0; k < 96; k++) {
    s = s * 1664525u + 1013904223u;
    buf[k] = s;
  }
  uint idx = seed[i] % 96;
  uint acc = 0;
  for (uint k = 0; k < 64; k++) {
    idx = (buf[idx] ^ k) % 96;
    acc += buf[idx];
    buf[idx] += k;
  }
  out[i] = acc ^ buf[seed[i] % 96];
}

kernel void private_sort(global const float* in, global float* out) {
  size_t i = get_global_id(0);
  float v[16];
  for (int k = 0; k < 16; k++) v[k] = in[16 * i + k];
  for (int k = 1; k < 16; k++) {
    float key = v[k];
    int j = k - 1;
    while (j >= 0 && v[j] > key) { v[j + 1] = v[j]; j--; }
    v[j + 1] = key;
  }
  for (int k = 0; k < 16; k++) out[16 * i + k] = v[k];
}

// Many live values at once: 48 accumulators, fully unrolled at -O2 (over 50 VGPRs), in
// scratch at -O0.
kernel void register_pressure(global const float* in, global float* out) {
  size_t i = get_global_id(0);
  float acc[48];
#pragma unroll
  for (int k = 0; k < 48; k++) acc[k] = in[48 * i + k];
#pragma unroll
  for (int r = 0; r < 4; r++) {
#pragma unroll
    for (int k = 0; k < 48; k++) acc[k] = acc[k] * 0.5f + acc[(k + 7) % 48];
  }
#pragma unroll
  for (int k = 0; k < 48; k++) out[48 * i + k] = acc[k];
}
