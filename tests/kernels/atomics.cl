// Global and local atomics. Results are checked against every serial order.
kernel void histogram_inc(global const uint* data, volatile global uint* hist) {
  atomic_inc(&hist[data[get_global_id(0)] & 63]);
}

// Each work-item takes a unique slot from a shared counter.
kernel void counter_slots(volatile global uint* counter, global uint* slots, global uint* taken) {
  uint gid = get_global_id(0);
  uint idx = atomic_add(counter, 1u);
  slots[idx] = gid;
  taken[gid] = idx;
}

kernel void atomic_minmax_bits(global const int* a, volatile global int* res, global int* olds) {
  size_t i = get_global_id(0);
  int x = a[i];
  atomic_min(&res[0], x);
  atomic_max(&res[1], x);
  atomic_or(&res[2], 1 << (x & 31));
  atomic_and(&res[3], ~(1 << ((x >> 5) & 31)));
  atomic_xor(&res[4], x);
  olds[i] = atomic_xchg(&res[5], (int)i);
}

// Addition built from compare-and-swap retries, 16 counters shared by all work-items.
kernel void cmpxchg_add(global const int* a, volatile global int* sums) {
  size_t i = get_global_id(0);
  volatile global int* p = &sums[i % 16];
  int old = *p;
  while (true) {
    int seen = atomic_cmpxchg(p, old, old + a[i]);
    if (seen == old) break;
    old = seen;
  }
}

kernel void atomic64(global const long* a, volatile global atomic_long* sum,
                     volatile global atomic_long* hi) {
  long x = a[get_global_id(0)];
  atomic_fetch_add_explicit(sum, x, memory_order_relaxed);
  atomic_fetch_max_explicit(hi, x, memory_order_relaxed);
}

// Local histogram merged into a global one, and per-group slots from a local counter.
kernel void local_atomics(global const uint* data, volatile global uint* hist,
                          global uint* slot_of) {
  local uint lh[16];
  local uint count;
  size_t lid = get_local_id(0);
  if (lid < 16) lh[lid] = 0;
  if (lid == 0) count = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&lh[data[get_global_id(0)] & 15]);
  slot_of[get_global_id(0)] = atomic_add(&count, 1u);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 16) atomic_add(&hist[lid], lh[lid]);
}

// The remaining atomic operations: sub, dec, unsigned min/max, and their __local forms
// including exchange and compare-and-swap.
kernel void atomics_more(global const uint* a, volatile global uint* g, global uint* local_out) {
  local uint l[6];
  size_t lid = get_local_id(0);
  uint x = a[get_global_id(0)];
  if (lid == 0) {
    l[0] = 0xffffffffu; l[1] = 0; l[2] = 1000000; l[3] = 0; l[4] = 0; l[5] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_sub(&g[0], x & 0xff);
  atomic_dec(&g[1]);
  atomic_min(&g[2], x);
  atomic_max(&g[3], x);
  atomic_min(&l[0], x);
  atomic_max(&l[1], x);
  atomic_sub(&l[2], x & 0xff);
  atomic_xchg(&l[3], x);
  atomic_or(&l[4], x & 0xf0f0u);
  uint old = l[5];
  while (true) {
    uint seen = atomic_cmpxchg(&l[5], old, old ^ x);
    if (seen == old) break;
    old = seen;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid < 6) local_out[6 * get_group_id(0) + lid] = l[lid];
}
