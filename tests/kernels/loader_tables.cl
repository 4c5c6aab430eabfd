// Loader tests: several kernels in one object, program-scope globals (visible ones become
// executable symbols), constant tables read through s_getpc-relative addressing, a pointer
// table the linker leaves as R_AMDGPU_RELATIVE64 relocations, LDS and scratch use.
__attribute__((visibility("default"))) global int loader_counter = 5;
__attribute__((visibility("default"))) global float loader_buffer[16];
__attribute__((visibility("default"))) constant int loader_squares[8] = {0, 1, 4, 9, 16, 25, 36, 49};
constant int hidden_primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};
global int first_slot = 100, second_slot = 200;
global int *slot_table[2] = {&first_slot, &second_slot};

kernel void lookup_tables(global int *out) {
    int i = get_global_id(0);
    out[i] = loader_squares[i & 7] + hidden_primes[(i + 1) & 7] + loader_counter;
}

kernel void follow_pointer(global int *out, int which) {
    out[get_global_id(0)] = *slot_table[which & 1];
}

kernel void bump_counter(global int *old, int by) {
    loader_buffer[get_local_id(0) & 15] = (float)by;
    old[get_global_id(0)] = atomic_add(&loader_counter, by);
}

kernel void stage_in_lds(global const float *in, global float *out, local float *dynamic_tile) {
    local float tile[64];
    int l = get_local_id(0);
    tile[l & 63] = in[get_global_id(0)];
    dynamic_tile[l] = tile[l & 63] * 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = dynamic_tile[(l + 1) % get_local_size(0)] + tile[63 - (l & 63)];
}

kernel void scratch_walk(global int *out, int n) {
    volatile int stack[40];
    for (int k = 0; k < 40; k++)
        stack[k] = k * n;
    out[get_global_id(0)] = stack[(get_global_id(0) + n) % 40];
}
