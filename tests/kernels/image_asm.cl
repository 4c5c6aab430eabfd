// MIMG forms the OpenCL and HIP device libraries do not emit, written as inline assembly
// over real images and samplers: depth compare, texel offsets, bias, clamp, explicit and
// 16-bit derivatives, 16-bit addresses, gathers, LOD queries, mip filters, raw (pck) loads
// and stores, resource information, atomics.
//
// Descriptors reach the instructions through fixed SGPRs: each dword is a named "s" operand
// (readfirstlane of the HSA object's words) copied into s[40:47] (T#), s[48:51] (S#) and
// s[52:59] (a second T#); a whole-tuple "s" operand gets VGPRs from clang-15 at -O0.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define RFL(x) __builtin_amdgcn_readfirstlane(x)
#define T_WORDS(p) [t0] "s"(RFL((p)[0])), [t1] "s"(RFL((p)[1])), [t2] "s"(RFL((p)[2])), \
    [t3] "s"(RFL((p)[3])), [t4] "s"(RFL((p)[4])), [t5] "s"(RFL((p)[5])), [t6] "s"(RFL((p)[6])), \
    [t7] "s"(RFL((p)[7]))
#define U_WORDS(p) [u0] "s"(RFL((p)[0])), [u1] "s"(RFL((p)[1])), [u2] "s"(RFL((p)[2])), \
    [u3] "s"(RFL((p)[3])), [u4] "s"(RFL((p)[4])), [u5] "s"(RFL((p)[5])), [u6] "s"(RFL((p)[6])), \
    [u7] "s"(RFL((p)[7]))
// The S# with `or` added to its dword 2 (mip filter) or 0 (compare function).
#define S_WORDS(p, or0, or2) [s0] "s"(RFL((p)[0] | (or0))), [s1] "s"(RFL((p)[1])), \
    [s2] "s"(RFL((p)[2] | (or2))), [s3] "s"(RFL((p)[3]))
#define SET_T "s_mov_b32 s40, %[t0]\n s_mov_b32 s41, %[t1]\n s_mov_b32 s42, %[t2]\n s_mov_b32 s43, %[t3]\n" \
    "s_mov_b32 s44, %[t4]\n s_mov_b32 s45, %[t5]\n s_mov_b32 s46, %[t6]\n s_mov_b32 s47, %[t7]\n"
#define SET_U "s_mov_b32 s52, %[u0]\n s_mov_b32 s53, %[u1]\n s_mov_b32 s54, %[u2]\n s_mov_b32 s55, %[u3]\n" \
    "s_mov_b32 s56, %[u4]\n s_mov_b32 s57, %[u5]\n s_mov_b32 s58, %[u6]\n s_mov_b32 s59, %[u7]\n"
#define SET_S "s_mov_b32 s48, %[s0]\n s_mov_b32 s49, %[s1]\n s_mov_b32 s50, %[s2]\n s_mov_b32 s51, %[s3]\n"
#define CLOBBERS "s40", "s41", "s42", "s43", "s44", "s45", "s46", "s47", "s48", "s49", "s50", "s51", \
    "s52", "s53", "s54", "s55", "s56", "s57", "s58", "s59"
#define WAIT "\n s_waitcnt vmcnt(0)"
#define OBJECT(x) __builtin_astype(x, __constant uint *)
#define LESS (1u << 12)                   // S# DEPTH_COMPARE_FUNC = LESS: reference < texel
#define MIP_POINT (1u << 26)              // S# MIP_FILTER = POINT
#define MIP_LINEAR (2u << 26)             // S# MIP_FILTER = LINEAR

// c: x, y (normalized), the depth-compare reference, an LOD/bias/clamp value.
kernel void sample_forms(read_only image2d_t img, sampler_t s, global const float4 *c, global float *out) {
  size_t i = get_global_id(0);
  global float *o = out + 20 * i;
  __constant uint *t = OBJECT(img), *sm = OBJECT(s);
  float x = c[i].x, y = c[i].y, ref = c[i].z, v = c[i].w;
  uint offset = 1u | (0x3Fu << 8);        // +1 texel along x, -1 along y
  float r;
  float4 g;
  __asm__ volatile(SET_T SET_S "image_sample_c_lz %[r], [%[a], %[b], %[c]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(ref), [b] "v"(x), [c] "v"(y), T_WORDS(t), S_WORDS(sm, LESS, 0) : CLOBBERS);
  o[0] = r;
  __asm__ volatile(SET_T SET_S "image_sample_lz_o %[r], [%[a], %[b], %[c]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(offset), [b] "v"(x), [c] "v"(y), T_WORDS(t), S_WORDS(sm, 0, 0) : CLOBBERS);
  o[1] = r;
  __asm__ volatile(SET_T SET_S "image_sample_b %[r], [%[a], %[b], %[c]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(v), [b] "v"(x), [c] "v"(y), T_WORDS(t), S_WORDS(sm, 0, 0) : CLOBBERS);
  o[2] = r;
  __asm__ volatile(SET_T SET_S "image_sample_cl %[r], [%[a], %[b], %[c]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(x), [b] "v"(y), [c] "v"(v), T_WORDS(t), S_WORDS(sm, 0, 0) : CLOBBERS);
  o[3] = r;
  __asm__ volatile(SET_T SET_S "image_sample %[r], [%[a], %[b]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(x), [b] "v"(y), T_WORDS(t), S_WORDS(sm, 0, 0) : CLOBBERS);
  o[4] = r;
  __asm__ volatile(SET_T SET_S "image_sample_l_o %[r], [%[a], %[b], %[c], %[d]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(offset), [b] "v"(x), [c] "v"(y), [d] "v"(v), T_WORDS(t), S_WORDS(sm, 0, 0)
                   : CLOBBERS);
  o[5] = r;
  __asm__ volatile(SET_T SET_S "image_sample_c_l %[r], [%[a], %[b], %[c], %[d]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(ref), [b] "v"(x), [c] "v"(y), [d] "v"(v), T_WORDS(t), S_WORDS(sm, LESS, 0)
                   : CLOBBERS);
  o[6] = r;
  // Derivatives: 16-bit (g16) packed (d/dh x, d/dh y), (d/dv x, d/dv y); then 32-bit coarse.
  uint dh = as_ushort((half)0.25f) | (uint)as_ushort((half)-0.5f) << 16;
  uint dv = as_ushort((half)0.125f) | (uint)as_ushort((half)2.0f) << 16;
  __asm__ volatile(SET_T SET_S "image_sample_d_g16 %[r], [%[a], %[b], %[c], %[d]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(dh), [b] "v"(dv), [c] "v"(x), [d] "v"(y), T_WORDS(t), S_WORDS(sm, 0, 0)
                   : CLOBBERS);
  o[7] = r;
  __asm__ volatile(SET_T SET_S "image_sample_cd %[r], [%[a], %[b], %[c], %[d], %[e], %[f]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(0.25f), [b] "v"(-0.5f), [c] "v"(0.125f), [d] "v"(2.0f), [e] "v"(x), [f] "v"(y),
                     T_WORDS(t), S_WORDS(sm, 0, 0) : CLOBBERS);
  o[8] = r;
  // 16-bit addresses: x and y as halves of one dword.
  uint xy = as_ushort((half)x) | (uint)as_ushort((half)y) << 16;
  __asm__ volatile(SET_T SET_S "image_sample_lz %[r], %[a], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D a16" WAIT
                   : [r] "=v"(r) : [a] "v"(xy), T_WORDS(t), S_WORDS(sm, 0, 0) : CLOBBERS);
  o[9] = r;
  __asm__ volatile(SET_T SET_S "image_gather4_lz %[g], [%[a], %[b]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [g] "=v"(g) : [a] "v"(x), [b] "v"(y), T_WORDS(t), S_WORDS(sm, 0, 0) : CLOBBERS);
  vstore4(g, 0, o + 10);
  __asm__ volatile(SET_T SET_S "image_gather4_c_lz %[g], [%[a], %[b], %[c]], s[40:47], s[48:51] dmask:0x1 dim:SQ_RSRC_IMG_2D" WAIT
                   : [g] "=v"(g) : [a] "v"(ref), [b] "v"(x), [c] "v"(y), T_WORDS(t), S_WORDS(sm, LESS, 0) : CLOBBERS);
  vstore4(g, 0, o + 14);
  float2 lod;
  __asm__ volatile(SET_T SET_S "image_get_lod %[l], [%[a], %[b]], s[40:47], s[48:51] dmask:0x3 dim:SQ_RSRC_IMG_2D" WAIT
                   : [l] "=v"(lod) : [a] "v"(x), [b] "v"(y), T_WORDS(t), S_WORDS(sm, 0, 0) : CLOBBERS);
  vstore2(lod, 0, o + 18);
}

// Mip selection with the S#'s mip filter set by the kernel: point, then linear.
kernel void mip_filters(read_only image2d_t img, sampler_t s, global const float4 *c, global float4 *out) {
  size_t i = get_global_id(0);
  __constant uint *t = OBJECT(img), *sm = OBJECT(s);
  float4 r;
  __asm__ volatile(SET_T SET_S "image_sample_l %[r], [%[a], %[b], %[c]], s[40:47], s[48:51] dmask:0xf dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(c[i].x), [b] "v"(c[i].y), [c] "v"(c[i].z), T_WORDS(t), S_WORDS(sm, 0, MIP_POINT)
                   : CLOBBERS);
  out[2 * i] = r;
  __asm__ volatile(SET_T SET_S "image_sample_l %[r], [%[a], %[b], %[c]], s[40:47], s[48:51] dmask:0xf dim:SQ_RSRC_IMG_2D" WAIT
                   : [r] "=v"(r) : [a] "v"(c[i].x), [b] "v"(c[i].y), [c] "v"(c[i].z), T_WORDS(t), S_WORDS(sm, 0, MIP_LINEAR)
                   : CLOBBERS);
  out[2 * i + 1] = r;
}

// Raw component loads and stores (of level 0, also through the mip forms), resource info.
kernel void raw_forms(read_only image2d_t img, write_only image2d_t dst, global const int2 *c,
                      global uint *out) {
  size_t i = get_global_id(0);
  global uint *o = out + 20 * i;
  __constant uint *t = OBJECT(img), *u = OBJECT(dst);
  uint4 r;
  __asm__ volatile(SET_T "image_load_pck %[r], [%[a], %[b]], s[40:47] dmask:0xf dim:SQ_RSRC_IMG_2D unorm" WAIT
                   : [r] "=v"(r) : [a] "v"(c[i].x), [b] "v"(c[i].y), T_WORDS(t) : CLOBBERS);
  vstore4(r, 0, o);
  __asm__ volatile(SET_T "image_load_pck_sgn %[r], [%[a], %[b]], s[40:47] dmask:0xf dim:SQ_RSRC_IMG_2D unorm" WAIT
                   : [r] "=v"(r) : [a] "v"(c[i].x), [b] "v"(c[i].y), T_WORDS(t) : CLOBBERS);
  vstore4(r, 0, o + 4);
  __asm__ volatile(SET_T "image_load_mip_pck_sgn %[r], [%[a], %[b], %[c]], s[40:47] dmask:0xf dim:SQ_RSRC_IMG_2D unorm" WAIT
                   : [r] "=v"(r) : [a] "v"(c[i].x), [b] "v"(c[i].y), [c] "v"(0u), T_WORDS(t) : CLOBBERS);
  vstore4(r, 0, o + 8);
  __asm__ volatile(SET_T "image_load_mip_pck %[r], [%[a], %[b], %[c]], s[40:47] dmask:0xf dim:SQ_RSRC_IMG_2D unorm" WAIT
                   : [r] "=v"(r) : [a] "v"(c[i].x), [b] "v"(c[i].y), [c] "v"(0u), T_WORDS(t) : CLOBBERS);
  vstore4(r, 0, o + 12);
  __asm__ volatile(SET_T "image_get_resinfo %[r], %[a], s[40:47] dmask:0xf dim:SQ_RSRC_IMG_2D unorm" WAIT
                   : [r] "=v"(r) : [a] "v"(0u), T_WORDS(t) : CLOBBERS);
  vstore4(r, 0, o + 16);
  // dst is 8x16: rows 0-7 through image_store_pck, rows 8-15 through its mip form.
  uint4 raw = (uint4)(i, 0x1FFu + i, 7u * i, 0xFFFFFF80u);   // the low 8 bits of each are stored
  __asm__ volatile(SET_U "image_store_pck %[d], [%[a], %[b]], s[52:59] dmask:0xf dim:SQ_RSRC_IMG_2D unorm\n"
                   "s_waitcnt_vscnt null, 0"
                   : : [d] "v"(raw), [a] "v"((uint)(i % 8)), [b] "v"((uint)(i / 8)), U_WORDS(u)
                   : CLOBBERS, "memory");
  __asm__ volatile(SET_U "image_store_mip_pck %[d], [%[a], %[b], %[c]], s[52:59] dmask:0xf dim:SQ_RSRC_IMG_2D unorm\n"
                   "s_waitcnt_vscnt null, 0"
                   : : [d] "v"(raw.wzyx), [a] "v"((uint)(i % 8)), [b] "v"((uint)(8 + i / 8)), [c] "v"(0u), U_WORDS(u)
                   : CLOBBERS, "memory");
}

// Atomics on 32-bit images: a chain on texel i of `own` (each returns the old value), every
// lane adding to texel 0 of `shared_img`, and float min, max and compare-swap on `floats`.
kernel void atomic_forms(read_write image2d_t own, read_write image2d_t shared_img, read_write image2d_t floats,
                         global const uint *v, global uint *out) {
  size_t i = get_global_id(0);
  __constant uint *t = OBJECT(own), *u = OBJECT(shared_img), *f = OBJECT(floats);
  uint x = i % 8, y = i / 8;
  global uint *o = out + 17 * i;
  uint d = v[i];
#define ATOMIC(op, k, value) do { uint r = (value); \
    __asm__ volatile(SET_T "image_atomic_" op " %[r], [%[a], %[b]], s[40:47] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm glc" WAIT \
                     : [r] "+v"(r) : [a] "v"(x), [b] "v"(y), T_WORDS(t) : CLOBBERS, "memory"); \
    o[k] = r; } while (0)
  ATOMIC("add", 0, d);
  ATOMIC("sub", 1, 3u);
  ATOMIC("umax", 2, 1000u);
  ATOMIC("umin", 3, 5000u);
  ATOMIC("smax", 4, (uint)-7);
  ATOMIC("smin", 5, (i & 1) ? (uint)-5 : 4000u);
  ATOMIC("and", 6, 0xFF7u);
  ATOMIC("or", 7, 0x100u);
  ATOMIC("xor", 8, 0x55u);
  ATOMIC("inc", 9, 3000u);
  ATOMIC("dec", 10, 3000u);
  ATOMIC("swap", 11, 77u + (uint)i);
  uint2 swap = (uint2)(42u, 77u + (uint)i);   // new value, compare: matches, so 42 is stored
  __asm__ volatile(SET_T "image_atomic_cmpswap %[r], [%[a], %[b]], s[40:47] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm glc" WAIT
                   : [r] "+v"(swap) : [a] "v"(x), [b] "v"(y), T_WORDS(t) : CLOBBERS, "memory");
  o[12] = swap.x;
  __asm__ volatile(SET_U "image_atomic_add %[d], [%[a], %[b]], s[52:59] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm" WAIT
                   : : [d] "v"(1u + (uint)i), [a] "v"(0u), [b] "v"(0u), U_WORDS(u) : CLOBBERS, "memory");
  o[13] = 0xFEEDu;
#define FLOAT_ATOMIC(op, k, value) do { float r = (value); \
    __asm__ volatile(SET_U "image_atomic_" op " %[r], [%[a], %[b]], s[52:59] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm glc" WAIT \
                     : [r] "+v"(r) : [a] "v"(x), [b] "v"(y), U_WORDS(f) : CLOBBERS, "memory"); \
    o[k] = as_uint(r); } while (0)
  FLOAT_ATOMIC("fmax", 14, -0.5f);
  FLOAT_ATOMIC("fmin", 15, 0.75f);
  float2 fswap = (float2)(2.5f, 0.75f);       // stored where the texel is now 0.75
  __asm__ volatile(SET_U "image_atomic_fcmpswap %[r], [%[a], %[b]], s[52:59] dmask:0x3 dim:SQ_RSRC_IMG_2D unorm glc" WAIT
                   : [r] "+v"(fswap) : [a] "v"(x), [b] "v"(y), U_WORDS(f) : CLOBBERS, "memory");
  o[16] = as_uint(fswap.x);
}
