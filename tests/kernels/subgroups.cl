#pragma OPENCL EXTENSION cl_khr_subgroups : enable
// Sub-groups are waves: 32 or 64 work-items depending on the build.
kernel void subgroup_basics(global const int* a, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  out[4 * i + 0] = sub_group_broadcast(x, 3);
  out[4 * i + 1] = (int)(get_sub_group_size() * 1000 + get_sub_group_local_id());
  out[4 * i + 2] = (int)(get_sub_group_id() * 1000 + get_num_sub_groups());
  out[4 * i + 3] = sub_group_any(x > 900) + 2 * sub_group_all(x > -990);
}

// Cross-lane hardware builtins: ds_bpermute, readfirstlane in a divergent branch,
// readlane, DPP quad permutation, ds_swizzle and ballot.
kernel void cross_lane_builtins(global const int* a, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  uint lane = get_sub_group_local_id();
  uint wave = get_sub_group_size();
  out[6 * i + 0] = __builtin_amdgcn_ds_bpermute((int)(((lane + 1) % wave) * 4), x);
  int first = -1;
  if (lane % 3 != 0) first = __builtin_amdgcn_readfirstlane(x);
  out[6 * i + 1] = first;
  out[6 * i + 2] = __builtin_amdgcn_readlane(x, 5);
  out[6 * i + 3] = __builtin_amdgcn_mov_dpp(x, 0x1b, 0xf, 0xf, false);
  out[6 * i + 4] = __builtin_amdgcn_ds_swizzle(x, 0x041f);
  // 38 is LLVM's signed-greater-than predicate: a ballot of x > 0.
  out[6 * i + 5] = popcount(__builtin_amdgcn_sicmp(x, 0, 38));
}

#ifndef __GFX9__
// DPP row operations (rows of 16 lanes) with the invalid-source rules: bound_ctrl off keeps
// the old value, on writes 0; v_permlane16 / v_permlanex16 with lane selects; ds_permute
// (lanes push to an address, where ds_bpermute pulls); ds_swizzle in quad-permute mode.
// (gfx10 and later: gfx9 has no v_permlane16.)
kernel void dpp_permlane(global const int* a, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  uint lane = get_sub_group_local_id(), wave = get_sub_group_size();
  out[8 * i + 0] = __builtin_amdgcn_update_dpp(-1, x, 0x111, 0xf, 0xf, false);
  out[8 * i + 1] = __builtin_amdgcn_update_dpp(-1, x, 0x101, 0xf, 0xf, true);
  out[8 * i + 2] = __builtin_amdgcn_update_dpp(-1, x, 0x124, 0xf, 0xf, false);
  out[8 * i + 3] = __builtin_amdgcn_update_dpp(-1, x, 0x140, 0xf, 0xf, false);
  out[8 * i + 4] = __builtin_amdgcn_permlane16(0, x, 0x01234567u, 0x89abcdefu, false, false);
  out[8 * i + 5] = __builtin_amdgcn_permlanex16(0, x, 0xfedcba98u, 0x76543210u, false, false);
  out[8 * i + 6] = __builtin_amdgcn_ds_permute((int)(((lane + 3) % wave) * 4), x);
  out[8 * i + 7] = __builtin_amdgcn_ds_swizzle(x, 0x8000 | 0x1b);
}
#endif

// DPP with partial row and bank masks: a lane whose row (16 lanes) or bank (4 lanes of a
// row) is masked off keeps the old value; the others take the selected lane (or 0 / old
// past the row's edge, by bound_ctrl). Each mask pattern enables lanes in every row.
kernel void dpp_masks(global const int* a, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  out[5 * i + 0] = __builtin_amdgcn_update_dpp(-1, x, 0x111, 0x5, 0xf, false);  // row_shr:1
  out[5 * i + 1] = __builtin_amdgcn_update_dpp(-2, x, 0x1b, 0xf, 0x6, false);   // quad_perm [3,2,1,0]
  out[5 * i + 2] = __builtin_amdgcn_update_dpp(-3, x, 0x101, 0xa, 0x9, true);   // row_shl:1
  out[5 * i + 3] = __builtin_amdgcn_update_dpp(-4, x, 0x124, 0x3, 0x1, false);  // row_ror:4
  out[5 * i + 4] = __builtin_amdgcn_update_dpp(-5, x, 0x140, 0xe, 0xc, false);  // row_mirror
}

// Only the upper lanes of each wave active (lanes 20+ of 32, 40+ of 64: in wave64 the
// high half of EXEC and of every lane mask): first-lane reads, ballots, atomics and a
// uniform branch on a lane mask.
kernel void upper_lanes(global const int* a, global int* out, volatile global int* total) {
  size_t i = get_global_id(0);
  int x = a[i];
  uint lane = get_sub_group_local_id(), wave = get_sub_group_size();
  int r0 = -1, r1 = -1, r2 = -1;
  if (lane >= wave * 5 / 8) {
    r0 = __builtin_amdgcn_readfirstlane(x);
    r1 = popcount(__builtin_amdgcn_sicmp(x, 0, 38));
    r2 = atomic_add(total, 1) >= 0;
    if (sub_group_any(x > 995)) r2 += 10;
  }
  out[3 * i + 0] = r0;
  out[3 * i + 1] = r1;
  out[3 * i + 2] = r2;
}
