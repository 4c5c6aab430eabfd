// The kernel the robustness tests dispatch: a dispatch that runs until the host tells it to
// stop (signals arriving mid-dispatch, queue errors in the middle of packet processing).

// Spins until *stop is non-zero, then records that it saw it: a dispatch of unbounded
// length that the host (a signal handler) can end.
__kernel void spin_until(__global volatile uint *stop, __global uint *seen) {
    while (*stop == 0)
        ;
    if (get_global_id(0) == 0)
        *seen = *stop;
}
