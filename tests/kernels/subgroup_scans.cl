#pragma OPENCL EXTENSION cl_khr_subgroups : enable
// Sub-group and work-group reductions and scans. Built at -O2 only: at -O0 clang-15 keeps
// the device library's gfx9 code paths (DPP row broadcasts, wavefront shifts), which the
// backend then rejects for gfx10.
kernel void subgroup_collectives(global const int* a, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  out[4 * i + 0] = sub_group_reduce_add(x);
  out[4 * i + 1] = sub_group_scan_inclusive_add(x);
  out[4 * i + 2] = sub_group_scan_exclusive_max(x);
  out[4 * i + 3] = sub_group_reduce_min(x);
}

// OpenCL 2.0 work-group collectives: the device library builds them from sub-group
// operations and __local memory with barriers (same -O2-only restriction).
kernel void workgroup_collectives(global const int* a, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  out[5 * i + 0] = work_group_reduce_add(x);
  out[5 * i + 1] = work_group_scan_inclusive_add(x);
  out[5 * i + 2] = work_group_scan_exclusive_min(x);
  out[5 * i + 3] = work_group_broadcast(x, 5);
  out[5 * i + 4] = work_group_any(x > 990) + 2 * work_group_all(x > -995);
}
