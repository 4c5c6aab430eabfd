// Kernels that wait on other waves and other workgroups. On a GPU every resident wave runs
// and the workgroups it holds at once are resident together, so each of these ends; an engine
// that runs one group of waves to its end before the others, or one chunk of workgroups after
// another, spins in them forever.

#define ACQUIRE memory_order_acquire, memory_scope_device
#define RELEASE memory_order_release, memory_scope_device

// The first wave of each workgroup polls a flag that the workgroup's last wave sets after
// `work` iterations of its own; the other waves just write.
kernel void wave_handoff(global atomic_int *flags, global int *out, int work) {
  size_t group = get_group_id(0);
  uint wave = get_sub_group_id();
  int value = -2;
  if (wave == 0) {
    int seen;
    while ((seen = atomic_load_explicit(&flags[group], ACQUIRE)) == 0) {
    }
    value = seen + (int)get_local_id(0);
  } else if (wave == get_num_sub_groups() - 1) {
    int sum = 0;
    for (int k = 0; k < work; k++)
      sum += k;
    atomic_store_explicit(&flags[group], sum + 1, RELEASE);
    value = -1;
  }
  out[get_global_id(0)] = value;
}

// Workgroup 0 waits for the last workgroup of the grid (a later one) to publish a value.
kernel void group_handoff(global atomic_int *flag, global int *out) {
  size_t group = get_group_id(0);
  int value = (int)group;
  if (group == 0) {
    int seen;
    while ((seen = atomic_load_explicit(flag, ACQUIRE)) == 0) {
    }
    value = seen;
  } else if (group == get_num_groups(0) - 1) {
    atomic_store_explicit(flag, 1234, RELEASE);
  }
  out[get_global_id(0)] = value;
}

// Every workgroup waits for the next one: the last publishes 1, each before it one more.
// Ends only if the whole grid is resident at once (the grid must fit the GPU).
kernel void reverse_chain(global atomic_int *ready, global int *value) {
  size_t group = get_group_id(0), groups = get_num_groups(0);
  if (get_local_id(0) == 0) {
    int v = 1;
    if (group + 1 < groups) {
      while (atomic_load_explicit(&ready[group + 1], ACQUIRE) == 0) {
      }
      v = value[group + 1] + 1;
    }
    value[group] = v;
    atomic_store_explicit(&ready[group], 1, RELEASE);
  }
}

// A barrier across the grid made of an atomic counter (persistent-threads style): every
// workgroup publishes a slot, waits until all have arrived, then reads its neighbour's slot.
kernel void counter_grid_barrier(global atomic_int *arrived, global int *slots, global int *out) {
  size_t group = get_group_id(0), groups = get_num_groups(0);
  if (get_local_id(0) == 0) {
    slots[group] = (int)(group * group + 7);
    atomic_fetch_add_explicit(arrived, 1, memory_order_acq_rel, memory_scope_device);
    while (atomic_load_explicit(arrived, ACQUIRE) < (int)groups) {
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[get_global_id(0)] = slots[(group + 1) % groups] + (int)get_local_id(0);
}
