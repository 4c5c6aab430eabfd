"""Global wave sync (GWS) and the global data share (GDS) of a queue: state that outlives
one dispatch and is shared by every wave of the grid.

Holds these invariants:
- every hardware queue owns one GlobalSync for its lifetime; only a cooperative queue
  (HSA_QUEUE_TYPE_COOPERATIVE, which ROCr gives a GWS allocation) may use GWS: HIP
  initialises resource 0 in one dispatch (its gwsInit blit) and the cooperative kernel waits
  on it in the next, so the counters persist between dispatches;
- there are GWS_RESOURCES resources, each one counter: ds_gws_init sets it; a ds_gws_barrier
  arrival that finds it above 0 decrements it and waits, the arrival that finds 0 releases
  every waiting wave and sets it again from its own operand (the operand is the number of
  waves the barrier takes, minus 1); semaphores count up (sema_v by one, sema_br by the
  operand) and sema_p takes one, waiting while the count is 0, first come first served;
- GDS is GDS_BYTES of memory, zero when the queue is made, shared by its dispatches.
"""
import numpy as np

GWS_RESOURCES = 64          # the 6-bit resource id space of ds_gws_* (M0[21:16] + offset)
GDS_BYTES = 64 << 10        # gfx10's global data share


class GlobalSync:
    def __init__(self, gws):
        self.gws = gws                  # the queue has a GWS allocation (cooperative queue)
        self.counters = np.zeros(GWS_RESOURCES, np.int64)
        self.gds = np.zeros(GDS_BYTES, np.uint8)
        self.arrivals = 0               # semaphore waiters are served in arrival order
