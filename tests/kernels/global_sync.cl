// Global wave sync (GWS) and GDS counters as ROCm's device libraries use them: a grid
// barrier (cooperative groups' grid.sync is s_barrier, then one wave a workgroup at
// ds_gws_barrier, then s_barrier) and the GWS semaphores; the resource is set up by a
// separate dispatch, as HIP's gwsInit kernel does.

#define ORDER_ACQUIRE atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device)
#define ORDER_RELEASE atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device)

kernel void gws_init(uint value, uint resource) {
  __builtin_amdgcn_ds_gws_init(value, resource);
}

static void grid_sync(void) {
  ORDER_RELEASE;
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (get_local_id(0) == 0)
    __builtin_amdgcn_ds_gws_barrier(get_num_groups(0) - 1, 0);
  barrier(CLK_GLOBAL_MEM_FENCE);
  ORDER_ACQUIRE;
}

// Each round every workgroup works for its own time (delays[group] iterations), publishes a
// slot, then reads the next workgroup's slot of the same round: right only if no workgroup
// passed a barrier before all arrived.
kernel void gws_grid_rounds(global int *slots, global int *out, global const int *delays,
                            global int *work, int rounds) {
  size_t group = get_group_id(0), groups = get_num_groups(0), lid = get_local_id(0);
  int x = (int)lid;
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < delays[group]; k++)
      x = x * 3 + k;
    work[group * get_local_size(0) + lid] = x;
    if (lid == 0)
      slots[group] = r * 1000 + (int)group;
    grid_sync();
    out[(r * groups + group) * get_local_size(0) + lid] = slots[(group + 1) % groups];
    grid_sync();
  }
}

// The last workgroup produces, then lets the others through resource 1 at once (sema_br);
// each of them answers on resource 2 (sema_v), which the producer takes once per consumer.
kernel void gws_semaphores(global int *data, global int *out) {
  size_t group = get_group_id(0), groups = get_num_groups(0);
  if (get_local_id(0) != 0)
    return;
  if (group == groups - 1) {
    data[0] = 4242;
    ORDER_RELEASE;
    __builtin_amdgcn_ds_gws_sema_br(groups - 1, 1);
    for (size_t k = 0; k + 1 < groups; k++)
      __builtin_amdgcn_ds_gws_sema_p(2);
    ORDER_ACQUIRE;
    int sum = 0;
    for (size_t k = 0; k + 1 < groups; k++)
      sum += out[k];
    out[group] = sum;
  } else {
    __builtin_amdgcn_ds_gws_sema_p(1);
    ORDER_ACQUIRE;
    out[group] = data[0] + (int)group;
    ORDER_RELEASE;
    __builtin_amdgcn_ds_gws_sema_v(2);
  }
}

// Workgroups wait on resource 3 until the last one releases every waiter at once.
kernel void gws_release_all(global int *out) {
  size_t group = get_group_id(0), groups = get_num_groups(0);
  if (get_local_id(0) != 0)
    return;
  if (group == groups - 1) {
    out[group] = -1;
    ORDER_RELEASE;
    __builtin_amdgcn_ds_gws_sema_release_all(3);
  } else {
    __builtin_amdgcn_ds_gws_sema_p(3);
    ORDER_ACQUIRE;
    out[group] = out[groups - 1] + (int)group;
  }
}

// ds_append/ds_consume: each wave takes (append) or gives back (consume) one slot per active
// lane of a counter, in LDS (the builtins) and in GDS dword 2 (inline assembly: clang has no
// GDS pointer), and records the counter value it saw.
kernel void append_consume(global uint *seen, global uint *after) {
  local int counter[2];
  size_t lid = get_local_id(0), wave = lid / get_sub_group_size();
  size_t index = get_group_id(0) * get_num_sub_groups() + wave;
  if (lid == 0)
    counter[0] = counter[1] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint lds = (lid & 1) ? (uint)__builtin_amdgcn_ds_append(&counter[0]) : 0;
  uint gds, saved;
  __asm__ volatile("s_mov_b32 %1, m0\n s_mov_b32 m0, 8\n ds_append %0 gds\n"
                   " s_waitcnt lgkmcnt(0)\n s_mov_b32 m0, %1" : "=v"(gds), "=s"(saved));
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    __builtin_amdgcn_ds_consume(&counter[0]);
    after[get_group_id(0)] = (uint)counter[0];
  }
  if (get_sub_group_local_id() == 1) {
    seen[2 * index] = lds;
    seen[2 * index + 1] = gds;
  }
}
