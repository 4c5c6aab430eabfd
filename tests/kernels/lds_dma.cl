// gfx940+'s LDS DMA (global_load_lds_*, built by clang-21 in the ROCm 6.4 root): each lane's
// data goes from global memory straight to LDS at M0 + offset + lane * size, where M0 is the
// wave's LDS pointer. Workgroups of 256 (four waves); every lane then reads a neighbour's slot,
// so a lane placed wrongly shows.

// One dword per lane, without and with an instruction offset (16 bytes on, in global memory and
// in LDS alike).
kernel void lds_dma_dword(global const uint *in, global uint *out) {
  local uint tile[2 * 256 + 4];
  uint lid = get_local_id(0), gid = get_global_id(0);
  local uint *wave = tile + (lid & ~63u);
  __builtin_amdgcn_global_load_lds(in + gid, wave, 4, 0, 0);
  __builtin_amdgcn_global_load_lds(in + gid, wave + 256, 4, 16, 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  uint next = (lid & ~63u) + ((lid & 63u) ^ 1u);
  out[2 * gid] = tile[next];
  out[2 * gid + 1] = tile[256 + 4 + next];
}

#if defined(__gfx950__)
// gfx950's 12- and 16-byte forms: a lane's three or four dwords land together.
kernel void lds_dma_wide(global const uint *in, global uint *out) {
  local uint tile[256 * 4 + 256 * 3];
  uint lid = get_local_id(0), gid = get_global_id(0);
  local uint *x4 = tile + 4 * (lid & ~63u), *x3 = tile + 256 * 4 + 3 * (lid & ~63u);
  __builtin_amdgcn_global_load_lds(in + 4 * gid, x4, 16, 0, 0);
  __builtin_amdgcn_global_load_lds(in + 4 * gid, x3, 12, 0, 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  uint next = (lid & ~63u) + ((lid & 63u) ^ 1u);
  for (int k = 0; k < 4; ++k) out[7 * gid + k] = tile[4 * next + k];
  for (int k = 0; k < 3; ++k) out[7 * gid + 4 + k] = tile[256 * 4 + 3 * next + k];
}
#endif
