// Generic (flat) pointers: one non-inlined function reads and writes through pointers that
// point into global, __local and private memory, so the hardware resolves each address
// through the shared and private apertures.
__attribute__((noinline)) int bump_and_sum(int* p, int n) {
  int s = 0;
  for (int k = 0; k < n; k++) {
    s += p[k];
    p[k] += k + 1;
  }
  return s;
}

kernel void generic_pointers(global int* g, global int* out) {
  local int shared[64 * 4];
  int mine[4];
  size_t i = get_global_id(0), lid = get_local_id(0);
  for (int k = 0; k < 4; k++) {
    shared[4 * lid + k] = (int)(i * 10) + k;
    mine[k] = (int)i - k;
  }
  int from_global = bump_and_sum(g + 4 * i, 4);
  int from_local = bump_and_sum(shared + 4 * lid, 4);
  int from_private = bump_and_sum(mine, 4);
  out[4 * i + 0] = from_global;
  out[4 * i + 1] = from_local + shared[4 * lid + 3];
  out[4 * i + 2] = from_private + mine[2];
  out[4 * i + 3] = to_global(g + 4 * i) != 0;
}
