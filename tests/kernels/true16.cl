// 16-bit work clang-21 keeps in register halves on gfx11 (true16: v1.l / v1.h operands).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void true16_halves(global const half2* h, global const short2* s, global half* ho,
                          global short* so, global int* io) {
  size_t i = get_global_id(0);
  half2 a = h[i];
  short2 b = s[i];
  half x = a.x * a.y + a.y;                    // f16 ops on the low and the high half
  half y = a.y > a.x ? a.y - a.x : -a.x;       // f16 compare and select of halves
  ho[2 * i] = x;
  ho[2 * i + 1] = fmin(y, (half)4.0f) / a.y;
  short c = (short)(~b.x ^ b.y) + (b.y >> 3);  // 16-bit not, xor, shift, add
  so[i] = b.x < b.y ? c : (short)(b.x & b.y | 5);
  io[i] = (int)b.y * (int)(short)(b.x | 1);    // sign extensions of halves
}
