// 16-bit multiply-adds, and their results used as 32-bit values: on gfx9 the compiler takes
// v_mad_legacy_u16 / v_mad_legacy_i16 (and 16-bit adds) to leave the register's high half
// zero, so it skips the zero extension.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void mad16(global const ushort *a, global const ushort *b, global const ushort *c,
                  global ushort *u, global short *s, global uint *wide, global half *h) {
  size_t i = get_global_id(0);
  ushort x = a[i], y = b[i], z = c[i];
  ushort m = x * y + z;
  u[i] = m;
  s[i] = (short)x * (short)z + (short)y;
  wide[i] = (uint)m * 3u + (uint)(ushort)(x + y);
  half p = as_half((ushort)(x & 0x3fff)), q = as_half((ushort)(y & 0x3fff)), r = as_half((ushort)(z & 0xbfff));
  h[i] = p * q + r;
}
