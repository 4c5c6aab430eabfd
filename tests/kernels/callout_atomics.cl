// One 32-bit texel hammered by two kinds of atomic add at once: image_atomic_add, which the
// native tier hands to the interpreter (a callout), and a global atomic_add on the texel's
// own memory, which it translates to a host atomic. Written as inline assembly (the OpenCL
// library has no image atomics), with the image's descriptor words in s[40:47].
#define RFL(x) __builtin_amdgcn_readfirstlane(x)
#define T_WORDS(p) [t0] "s"(RFL((p)[0])), [t1] "s"(RFL((p)[1])), [t2] "s"(RFL((p)[2])), \
    [t3] "s"(RFL((p)[3])), [t4] "s"(RFL((p)[4])), [t5] "s"(RFL((p)[5])), [t6] "s"(RFL((p)[6])), \
    [t7] "s"(RFL((p)[7]))
#define SET_T "s_mov_b32 s40, %[t0]\n s_mov_b32 s41, %[t1]\n s_mov_b32 s42, %[t2]\n s_mov_b32 s43, %[t3]\n" \
    "s_mov_b32 s44, %[t4]\n s_mov_b32 s45, %[t5]\n s_mov_b32 s46, %[t6]\n s_mov_b32 s47, %[t7]\n"

// Each work-item, `rounds` times: one image_atomic_add of 1 to texel (0, 0), then
// `translated` global atomic adds of 1 to the same word (the texel's address).
kernel void hammer(read_write image2d_t img, ulong texel_address, uint rounds, uint translated) {
  __constant uint *t = __builtin_astype(img, __constant uint *);
  volatile global atomic_uint *texel = (volatile global atomic_uint *)texel_address;
  for (uint r = 0; r < rounds; r++) {
    __asm__ volatile(SET_T "image_atomic_add %[d], [%[x], %[y]], s[40:47] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm\n"
                     " s_waitcnt vmcnt(0)"
                     : : [d] "v"(1u), [x] "v"(0u), [y] "v"(0u), T_WORDS(t)
                     : "s40", "s41", "s42", "s43", "s44", "s45", "s46", "s47", "memory");
    for (uint k = 0; k < translated; k++)
      atomic_fetch_add_explicit(texel, 1u, memory_order_relaxed, memory_scope_device);
  }
}
