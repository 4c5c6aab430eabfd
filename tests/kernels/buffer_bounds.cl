// Raw buffer accesses (as Tensile's kernels make them: a resource with num_records, per-lane
// offsets) where `records` may leave every lane out of bounds: loads read 0, stores and
// atomics write nothing, and nothing faults.
kernel void buffer_bounds(global int *data, global int *out, uint records) {
  uint i = get_global_id(0);
  int loaded, old;
  __asm__ volatile(
    "s_mov_b32 s20, %[lo]\n"
    "s_mov_b32 s21, %[hi]\n"
    "s_mov_b32 s22, %[records]\n"
    "s_mov_b32 s23, 0x31014000\n"
    "buffer_load_dword %[loaded], %[offset], s[20:23], 0 offen\n"
    "s_waitcnt vmcnt(0)\n"
    "buffer_store_dword %[value], %[offset], s[20:23], 0 offen offset:256\n"
    "v_mov_b32 %[old], 5\n"
    "buffer_atomic_add %[old], %[offset], s[20:23], 0 offen offset:512 glc\n"
    "s_waitcnt vmcnt(0)\n"
    : [loaded] "=&v"(loaded), [old] "=&v"(old)
    : [lo] "s"((uint)(ulong)data), [hi] "s"((uint)((ulong)data >> 32)), [records] "s"(records),
      [offset] "v"(i * 4), [value] "v"((int)i + 1000)
    : "s20", "s21", "s22", "s23", "memory");
  out[2 * i] = loaded;
  out[2 * i + 1] = old;
}
