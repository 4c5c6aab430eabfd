// Image kernels: OpenCL C's image functions over images and samplers made through the HSA
// images extension (tests/support/images.py). One coordinate or texel per work-item.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

// Sampled reads with the sampler the case passes (normalized or not, every addressing
// and filter mode): image_sample_lz, with the device library's nearest-filter coordinate
// adjustment at -O0 and -O2.
#define SAMPLE(name, image, coord, result, read)                                                   \
  kernel void name(read_only image img, sampler_t s, global const coord *c, global result *out) { \
    size_t i = get_global_id(0);                                                                  \
    out[i] = read(img, s, c[i]);                                                                  \
  }
SAMPLE(sample_1d, image1d_t, float, float4, read_imagef)
SAMPLE(sample_1d_array, image1d_array_t, float2, float4, read_imagef)
SAMPLE(sample_2d, image2d_t, float2, float4, read_imagef)
SAMPLE(sample_2d_array, image2d_array_t, float4, float4, read_imagef)
SAMPLE(sample_3d, image3d_t, float4, float4, read_imagef)
SAMPLE(sample_2d_uint, image2d_t, float2, uint4, read_imageui)      // integer images
SAMPLE(sample_2d_half, image2d_t, float2, half4, read_imageh)       // image_sample with d16

// read_imagei with float and integer coordinates.
kernel void sample_2d_int(read_only image2d_t img, sampler_t s, global const float2 *c,
                          global const int2 *ic, global int4 *out, global int4 *iout) {
  size_t i = get_global_id(0);
  out[i] = read_imagei(img, s, c[i]);
  iout[i] = read_imagei(img, s, ic[i]);
}

// Sampler-less reads (image_load): every texel, and texels past the edges (zero).
kernel void load_2d(read_only image2d_t img, global const int2 *c, global float4 *out, global int4 *raw) {
  size_t i = get_global_id(0);
  out[i] = read_imagef(img, c[i]);
  raw[i] = read_imagei(img, c[i]);
}

#define LOAD(name, image, coord, result, read)                                        \
  kernel void name(read_only image img, global const coord *c, global result *out) { \
    size_t i = get_global_id(0);                                                     \
    out[i] = read(img, c[i]);                                                        \
  }
LOAD(load_1d_array, image1d_array_t, int2, uint4, read_imageui)
LOAD(load_3d, image3d_t, int4, float4, read_imagef)
LOAD(load_2d_array, image2d_array_t, int4, int4, read_imagei)

// 1D buffer images are buffer resources: buffer_load_format / buffer_store_format.
kernel void buffer_image(read_only image1d_buffer_t in, write_only image1d_buffer_t out, global float4 *got) {
  int i = get_global_id(0);
  float4 v = read_imagef(in, i);
  got[i] = v;
  write_imagef(out, i, v.wzyx);
}

// Writes: every texel of the image from a buffer of RGBA values (image_store).
#define STORE_2D(name, write, type)                                          \
  kernel void name(write_only image2d_t img, global const type *v) {         \
    int x = get_global_id(0), y = get_global_id(1);                          \
    write(img, (int2)(x, y), v[y * get_image_width(img) + x]);               \
  }
STORE_2D(store_2d, write_imagef, float4)
STORE_2D(store_2d_int, write_imagei, int4)
STORE_2D(store_2d_uint, write_imageui, uint4)
STORE_2D(store_2d_half, write_imageh, half4)

kernel void store_1d_array(write_only image1d_array_t img, global const float4 *v) {
  int x = get_global_id(0), layer = get_global_id(1);
  write_imagef(img, (int2)(x, layer), v[layer * get_image_width(img) + x]);
}

kernel void store_2d_array(write_only image2d_array_t img, global const float4 *v) {
  int x = get_global_id(0), y = get_global_id(1), layer = get_global_id(2);
  int w = get_image_width(img), h = get_image_height(img);
  write_imagef(img, (int4)(x, y, layer, 0), v[(layer * h + y) * w + x]);
}

kernel void store_3d(write_only image3d_t img, global const float4 *v) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  int w = get_image_width(img), h = get_image_height(img);
  write_imagef(img, (int4)(x, y, z, 0), v[(z * h + y) * w + x]);
}

// read_write images: read a texel, write it back changed.
kernel void read_write_2d(read_write image2d_t img) {
  int2 c = (int2)(get_global_id(0), get_global_id(1));
  write_imagef(img, c, read_imagef(img, c) * 0.5f + (float4)(0.25f));
}

// What the device library reads from the descriptor for get_image_*.
kernel void queries(read_only image2d_array_t a, read_only image3d_t b, global int *out) {
  out[0] = get_image_width(a);
  out[1] = get_image_height(a);
  out[2] = (int)get_image_array_size(a);
  out[3] = get_image_channel_data_type(a);
  out[4] = get_image_channel_order(a);
  out[5] = get_image_width(b);
  out[6] = get_image_height(b);
  out[7] = get_image_depth(b);
}

// Mipmapped images (made with hsa_amd_image_create from a descriptor with mip levels):
// explicit LODs (image_sample_l), gradients (image_sample_d), and per-level loads and
// stores, through the device library functions cl_khr_mipmap_image's read_imagef and
// write_imagef call (image_load_mip / image_store_mip).
float4 __ockl_image_sample_lod_2D(__constant uint *i, __constant uint *s, float2 c, float l);
float4 __ockl_image_sample_grad_2D(__constant uint *i, __constant uint *s, float2 c, float2 dx, float2 dy);
float4 __ockl_image_load_lod_2D(__constant uint *i, int2 c, int l);
void __ockl_image_store_lod_2D(__constant uint *i, int2 c, int l, float4 p);
#define OBJECT(x) __builtin_astype(x, __constant uint *)

kernel void sample_lod_2d(read_only image2d_t img, sampler_t s, global const float4 *c, global float4 *out) {
  size_t i = get_global_id(0);
  out[i] = __ockl_image_sample_lod_2D(OBJECT(img), OBJECT(s), c[i].xy, c[i].z);
}

kernel void sample_grad_2d(read_only image2d_t img, sampler_t s, global const float4 *c,
                           global const float4 *d, global float4 *out) {
  size_t i = get_global_id(0);
  out[i] = __ockl_image_sample_grad_2D(OBJECT(img), OBJECT(s), c[i].xy, d[i].xy, d[i].zw);
}

kernel void copy_level(read_only image2d_t src, write_only image2d_t dst, int from, int to) {
  int2 c = (int2)(get_global_id(0), get_global_id(1));
  float4 v = __ockl_image_load_lod_2D(OBJECT(src), c, from);
  __ockl_image_store_lod_2D(OBJECT(dst), c, to, v + (float4)(0.5f));
}

// amd_fetch4 (ROCm's device library): image_gather4 of one channel of the 2x2 footprint.
float4 amd_fetch4_fsf(read_only image2d_t im, sampler_t s, float2 coord, int comp);

kernel void gather_2d(read_only image2d_t img, sampler_t s, global const float2 *c, int channel,
                      global float4 *out) {
  size_t i = get_global_id(0);
  out[i] = amd_fetch4_fsf(img, s, c[i], channel);
}
