// Sub-dword memory: byte and short loads (sign and zero extension) and stores.
kernel void byte_short_loads(global const char* c, global const uchar* uc, global const short* s,
                             global const ushort* us, global int* out) {
  size_t i = get_global_id(0);
  out[4 * i + 0] = c[i];
  out[4 * i + 1] = uc[i];
  out[4 * i + 2] = s[i];
  out[4 * i + 3] = us[i];
}

kernel void byte_short_stores(global const int* a, global char* c, global short* s,
                              global uchar* packed) {
  size_t i = get_global_id(0);
  int x = a[i];
  c[i] = (char)(x + 100);
  s[i] = (short)(x * 3);
  // Three bytes per item at odd offsets: neighbours' bytes must stay intact.
  packed[3 * i + 0] = (uchar)x;
  packed[3 * i + 1] = (uchar)(x >> 8);
  packed[3 * i + 2] = (uchar)(x >> 16);
}

typedef struct { char tag; short weight; int value; float scale; } record;

kernel void struct_fields(global const record* in, global record* out) {
  size_t i = get_global_id(0);
  record r = in[i];
  out[i].tag = (char)(-r.tag);
  out[i].weight = (short)(r.weight + r.tag);
  out[i].value = r.value ^ r.weight;
  out[i].scale = r.scale * 2.0f;
}

// A larger grid (256 work-groups) of simple streaming work: the engine runs it in chunks.
kernel void stream_triad(global const float* a, global const float* b, global float* c,
                         float k) {
  size_t i = get_global_id(0);
  c[i] = fma(k, b[i], a[i]);
}
