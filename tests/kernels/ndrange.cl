// Work-item functions over 1D/2D/3D ranges whose last work-groups are partial
// (OpenCL 2.0 non-uniform work-groups; HSA grids need not be multiples of the group).
kernel void ndrange_1d(global uint* out) {
  size_t g = get_global_id(0);
  global uint* o = out + 9 * (g - get_global_offset(0));
  o[0] = g;
  o[1] = get_local_id(0);
  o[2] = get_group_id(0);
  o[3] = get_local_size(0);
  o[4] = get_enqueued_local_size(0);
  o[5] = get_num_groups(0);
  o[6] = get_global_size(0);
  o[7] = get_global_linear_id();
  o[8] = get_work_dim();
}

kernel void ndrange_2d(global uint* out) {
  size_t lin = get_global_id(1) * get_global_size(0) + get_global_id(0);
  global uint* o = out + 12 * lin;
  for (uint d = 0; d < 2; d++) {
    o[6 * d + 0] = get_local_id(d);
    o[6 * d + 1] = get_group_id(d);
    o[6 * d + 2] = get_local_size(d);
    o[6 * d + 3] = get_enqueued_local_size(d);
    o[6 * d + 4] = get_num_groups(d);
    o[6 * d + 5] = get_global_size(d);
  }
  o[5] += 1000 * get_local_linear_id();
}

kernel void ndrange_3d(global uint* out) {
  size_t lin = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0)
               + get_global_id(0);
  global uint* o = out + 10 * lin;
  for (uint d = 0; d < 3; d++) {
    o[3 * d + 0] = get_local_id(d) + 100 * get_group_id(d);
    o[3 * d + 1] = get_local_size(d) + 100 * get_enqueued_local_size(d);
    o[3 * d + 2] = get_num_groups(d) + 100 * get_global_size(d);
  }
  o[9] = get_local_linear_id() + 1000 * get_work_dim();
}
