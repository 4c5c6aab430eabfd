#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// By-value kernel arguments of every size and alignment (sub-dword scalars, half, 64-bit,
// vectors including the 16-byte int3, a struct): the kernarg layout from the metadata and
// the scalar loads that read it.
typedef struct { int a; float b; short c; } pod;

kernel void kernel_arguments(char c, uchar uc, short s, ushort us, half h, int i, long l,
                             float f, double d, float4 v, int3 w, pod p, global double* out) {
  global double* o = out + 16 * get_global_id(0);
  o[0] = c;
  o[1] = uc;
  o[2] = s;
  o[3] = us;
  o[4] = h;
  o[5] = i;
  o[6] = l;
  o[7] = f;
  o[8] = d;
  o[9] = v.x + v.w;
  o[10] = v.y * v.z;
  o[11] = w.x - w.z;
  o[12] = w.y;
  o[13] = p.a;
  o[14] = p.b;
  o[15] = p.c + (double)get_global_id(0);
}
