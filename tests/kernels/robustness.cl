// Kernels the robustness tests dispatch: a dispatch that runs until the host tells it to
// stop (signals arriving mid-dispatch), and faults of every kind for the fault report.

// Spins until *stop is non-zero, then records that it saw it: a dispatch of unbounded
// length that the host (a signal handler) can end.
__kernel void spin_until(__global volatile uint *stop, __global uint *seen) {
    while (*stop == 0)
        ;
    if (get_global_id(0) == 0)
        *seen = *stop;
}

// Loads through whatever pointer it is given: a bad one must fault.
__kernel void load_through(__global const uint *where, __global uint *out) {
    out[get_global_id(0)] = where[get_global_id(0)];
}

__kernel void trap_now(__global uint *out) {
    out[0] = 1;
    __builtin_trap();
}
