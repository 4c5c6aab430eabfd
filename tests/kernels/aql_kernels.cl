// Kernels the packet-processor tests dispatch through real AQL queues.

__kernel void scale_add(__global const float *a, __global float *out, float scale, uint n) {
    size_t i = get_global_id(0);
    if (i < n)
        out[i] = a[i] * scale + (float)i;
}

// Each work-item bumps a counter once: the counter's final value counts work-items run.
__kernel void count_items(__global uint *counter) {
    atomic_inc(counter);
}

// Stores through whatever pointer it is given: a bad one must fault, not corrupt.
__kernel void store_through(__global uint *where) {
    where[get_global_id(0)] = 0xdeadbeef;
}

__kernel void trap_now(__global uint *out) {
    out[0] = 1;
    __builtin_trap();
}

__kernel void empty(void) {}

// 24 KiB of static __local memory and a dynamic __local buffer the dispatch places after it:
// every work-item fills both, then reads entries other work-items wrote.
__kernel void lds_static_dynamic(__global int *out, __local int *dynamic_part) {
    __local int static_part[6144];
    size_t l = get_local_id(0), n = get_local_size(0);
    for (size_t k = l; k < 6144; k += n)
        static_part[k] = (int)k * 3;
    dynamic_part[l] = (int)(l + 1000 * get_group_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = static_part[6143 - l] + dynamic_part[n - 1 - l];
}

// Sets a signal as the device library does (the value, then the signal's event mailbox
// and an interrupt): HIP's hostcall, device printf and assert signal the host this way.
void __ockl_hsa_signal_store(ulong signal, long value, int memory_order);

__kernel void signal_host(ulong signal, long value) {
    __ockl_hsa_signal_store(signal, value, __ATOMIC_RELEASE);
}
