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
