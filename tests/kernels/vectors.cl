// Vector types: component-wise operations, swizzles, vector compares and selects.
kernel void float4_ops(global const float4* a, global const float4* b, global const float4* c,
                       global float4* out) {
  size_t i = get_global_id(0);
  float4 x = a[i], y = b[i], z = c[i];
  out[3 * i + 0] = fma(x, y, z);
  out[3 * i + 1] = (x + y).wzyx;
  out[3 * i + 2] = select(x, y, isgreater(y, x));
}

kernel void int2_ops(global const int2* a, global const int2* b, global int2* out,
                     global float2* f) {
  size_t i = get_global_id(0);
  int2 x = a[i], y = b[i];
  out[2 * i + 0] = x.yx * y + (int2)(1, -1);
  out[2 * i + 1] = select(x, y, x > y);
  f[i] = convert_float2(x - y);
}

kernel void uchar4_ops(global const uchar4* a, global const uchar4* b, global uchar4* out) {
  size_t i = get_global_id(0);
  uchar4 x = a[i], y = b[i];
  out[4 * i + 0] = add_sat(x, y);
  out[4 * i + 1] = rhadd(x, y);
  out[4 * i + 2] = convert_uchar4_sat(convert_float4(x) * 1.5f);
  out[4 * i + 3] = shuffle(x, (uchar4)(3, 1, 2, 0)) ^ y.s0123;
}

// Three-component loads and stores at element (not vector) alignment.
kernel void vload3_vstore3(global const float* a, global float* out) {
  size_t i = get_global_id(0);
  float3 v = vload3(i, a);
  vstore3(v.zxy * 2.0f, i, out);
}

// Vector loads and stores at element alignment only (offsets 1 and 3 elements past a
// vector boundary): wide memory instructions with dword, short or byte alignment.
kernel void unaligned_vectors(global const float* f, global const short* s,
                              global const uchar* b, global float* fo, global short* so,
                              global uchar* bo) {
  size_t i = get_global_id(0);
  float4 v = vload4(0, f + 4 * i + 1);
  short2 w = vload2(0, s + 2 * i + 1);
  uchar8 c = vload8(0, b + 8 * i + 3);
  vstore4(v * 2.0f, 0, fo + 4 * i + 3);
  vstore2(w.yx, 0, so + 2 * i + 1);
  vstore8(c.s76543210, 0, bo + 8 * i + 1);
}
