// Real calls (noinline): argument passing in VGPRs, private pointers to the caller's
// stack, 64-bit values, nested calls.
__attribute__((noinline)) int poly(int x, int a, int b, int c) {
  return (a * x + b) * x + c;
}

__attribute__((noinline)) void order3(int a, int b, int c, private int* lo, private int* hi) {
  *lo = min(a, min(b, c));
  *hi = max(a, max(b, c));
}

__attribute__((noinline)) ulong mix64(ulong x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdUL;
  x ^= x >> 33;
  return x;
}

__attribute__((noinline)) int sum_window(private const int* v, int n) {
  int s = 0;
  for (int k = 0; k < n; k++) s += v[k] * (k + 1);
  return s + poly(n, 1, 2, 3);
}

kernel void noinline_calls(global const int* a, global int* out, global ulong* hashed) {
  size_t i = get_global_id(0);
  int x = a[i];
  int lo, hi;
  order3(x, x >> 4, -x, &lo, &hi);
  int window[5] = {x, lo, hi, x & 255, 7};
  out[3 * i + 0] = poly(x & 1023, 3, -5, 11);
  out[3 * i + 1] = hi - lo;
  out[3 * i + 2] = sum_window(window, (x & 3) + 2);
  hashed[i] = mix64((ulong)x * 0x9e3779b97f4a7c15UL);
}

// A loop calling a function placed before its caller: each call jumps backwards, so a wave
// that has used up its turn on the native tier yields at the call and must resume there.
__attribute__((noinline)) uint lcg_step(uint x) { return x * 1664525u + 1013904223u; }

__attribute__((noinline)) uint lcg_run(uint x, int n) {
  for (int k = 0; k < n; k++) x = lcg_step(x) ^ (uint)k;
  return x;
}

kernel void backward_calls(global const uint* seed, global uint* out, int n) {
  size_t i = get_global_id(0);
  out[i] = lcg_run(seed[i], n + (int)(i & 7));
}
