// 32- and 64-bit integer arithmetic: every result is exact, wrapping as in C.
kernel void int_arith(global const int* a, global const int* b, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  out[4 * i + 0] = x + y;
  out[4 * i + 1] = x - y;
  out[4 * i + 2] = x * y;
  out[4 * i + 3] = mul_hi(x, y);
}

// b never 0 and never -1 with a == INT_MIN (the host builds them so).
kernel void int_div_rem(global const int* a, global const int* b, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  uint ux = (uint)x, uy = (uint)y;
  out[4 * i + 0] = x / y;
  out[4 * i + 1] = x % y;
  out[4 * i + 2] = (int)(ux / uy);
  out[4 * i + 3] = (int)(ux % uy);
}

kernel void int_shifts(global const int* a, global const int* b, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  int s = b[i];
  out[4 * i + 0] = x << (s & 31);
  out[4 * i + 1] = x >> (s & 31);
  out[4 * i + 2] = (int)((uint)x >> (s & 31));
  out[4 * i + 3] = (int)rotate((uint)x, (uint)s);
}

kernel void int_bitops(global const uint* a, global const uint* b, global uint* out) {
  size_t i = get_global_id(0);
  uint x = a[i], y = b[i];
  out[6 * i + 0] = (x & y) ^ (~x | y);
  out[6 * i + 1] = popcount(x);
  out[6 * i + 2] = clz(x);
  out[6 * i + 3] = ctz(y);
  out[6 * i + 4] = bitselect(x, y, 0x0ff0f00fu);
  out[6 * i + 5] = (x >> 7) & 0x3ffu;
}

kernel void int_minmax(global const int* a, global const int* b, global const int* c,
                       global int* out) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i], z = c[i];
  out[8 * i + 0] = min(x, y);
  out[8 * i + 1] = max(x, y);
  out[8 * i + 2] = (int)min((uint)x, (uint)y);
  out[8 * i + 3] = (int)abs(x);
  out[8 * i + 4] = clamp(x, min(y, z), max(y, z));
  out[8 * i + 5] = add_sat(x, y);
  out[8 * i + 6] = sub_sat(x, y);
  out[8 * i + 7] = (int)abs_diff(x, y);
}

// mul24/mad24 take 24-bit operands (the host keeps them in range), hadd/rhadd never overflow.
kernel void int_mad24_hadd(global const int* a, global const int* b, global const int* c,
                           global int* out) {
  size_t i = get_global_id(0);
  int x = a[i] >> 8, y = b[i] >> 8, z = c[i];
  out[4 * i + 0] = mul24(x, y);
  out[4 * i + 1] = mad24(x, y, z);
  out[4 * i + 2] = hadd(a[i], b[i]);
  out[4 * i + 3] = rhadd(a[i], b[i]);
}

kernel void long_math(global const long* a, global const long* b, global long* out) {
  size_t i = get_global_id(0);
  long x = a[i], y = b[i];
  ulong ux = (ulong)x, uy = (ulong)y;
  out[8 * i + 0] = x + y;
  out[8 * i + 1] = x * y;
  out[8 * i + 2] = x / y;
  out[8 * i + 3] = x % y;
  out[8 * i + 4] = (long)(ux / uy);
  out[8 * i + 5] = (x << (y & 63)) ^ (x >> ((y >> 8) & 63));
  out[8 * i + 6] = (long)mul_hi(ux, uy);
  out[8 * i + 7] = (long)(popcount(ux) + clz(ux) * 256);
}

// Bit-field builtins: extract (signed/unsigned), insert, reverse, upsample, 64-bit rotate.
kernel void int_bitfield(global const uint* a, global const uint* b, global uint* out,
                         global ulong* wide) {
  size_t i = get_global_id(0);
  uint x = a[i], y = b[i];
  out[4 * i + 0] = (x >> 5) & 0x1ffu;
  out[4 * i + 1] = (uint)(((int)(x << 7)) >> 20);
  out[4 * i + 2] = (x & ~0x0ff0u) | ((y << 4) & 0x0ff0u);
  out[4 * i + 3] = __builtin_bitreverse32(x);
  wide[2 * i + 0] = upsample(x, y);
  wide[2 * i + 1] = rotate(upsample(y, x), (ulong)(x & 127));
}

// 16-bit integers, scalar and packed (short2 / ushort2 use packed VOP3P integer ops).
kernel void short_math(global const short2* a, global const short2* b, global short2* out,
                       global ushort* u) {
  size_t i = get_global_id(0);
  short2 x = a[i], y = b[i];
  out[4 * i + 0] = x + y;
  out[4 * i + 1] = x * y;
  out[4 * i + 2] = max(x, y) >> (short2)(3, 1);
  out[4 * i + 3] = as_short2(min(as_ushort2(x), as_ushort2(y)) - (ushort2)(7, 700));
  ushort p = (ushort)x.s0, q = (ushort)y.s1;
  u[i] = (ushort)((uint)p * q + (p >> 3)) ^ (ushort)(q << 2);
}

// Uniform work: every value here depends only on kernel arguments and the group id, so
// clang keeps it in scalar registers (SALU, 64-bit scalar ops).
kernel void scalar_uniform(global ulong* out, ulong seed, uint n) {
  ulong h = seed ^ (ulong)get_group_id(0) * 0x9e3779b97f4a7c15UL;
  uint acc = 0;
  for (uint k = 0; k < n; k++) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    uint lo = (uint)h;
    acc += popcount(lo) + clz(lo | 1u) + ctz((uint)(h >> 32) | 0x80000000u);
    acc = max(acc, (uint)(h >> 40)) - min(acc, 5u);
  }
  if (get_local_id(0) == 0) {
    out[2 * get_group_id(0) + 0] = h;
    out[2 * get_group_id(0) + 1] = acc;
  }
}
