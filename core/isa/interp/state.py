"""Wave state of one chunk of workgroups, as numpy arrays over waves.

Holds these invariants:
- every architectural register of every wave lives in these arrays: scalar registers in
  `sgpr[waves, 128]` indexed by the gfx10 operand field id (s0-s105, vcc 106-107, ttmp
  108-123, m0 124, null 125, exec 126-127), so EXEC and VCC are ordinary SGPR slots and
  never disagree with what the code reads; VGPRs in `vgpr[waves, nvgpr, lanes]`;
- lanes past a partial workgroup's last work-item start with their EXEC bit clear, so no
  instruction ever makes them visible;
- a wave is `live` until s_endpgm; a live wave `waiting` is not scheduled: at s_barrier until
  every live wave of its workgroup waits too, or `parked` on a GWS resource until a
  ds_gws_barrier completes or a semaphore lets it through.
"""
import numpy as np

from core.isa.instruction import EXEC_LO, M0, NULL, VCC_LO  # noqa: F401  (re-exported for the engine)

SGPR_SLOTS = 128
STATE_ARRAYS = ("sgpr", "vgpr", "scc", "pc", "mode", "flat_scratch", "live", "waiting", "parked",
                "gws_resource", "gws_ticket", "workgroup", "wave_in_group", "executed", "epoch",
                "scratch_block")


class Waves:
    """Register state of `count` waves of `lanes` lanes with `nvgpr` VGPRs each.

    `reuse`: the Waves of the previous chunk of the same dispatch; its arrays are recycled
    (zeroed) when large enough, since first-touch page faults of fresh arrays cost as much as
    running a short kernel over them."""

    def __init__(self, count, lanes, nvgpr, reuse=None):
        self.count = count
        self.lanes = lanes
        fits = reuse is not None and reuse.capacity >= count
        self.capacity = reuse.capacity if fits else count

        def array(name, shape, dtype):
            if fits:
                view = getattr(reuse, name)[:count]
                view.fill(0)
                return view
            return np.zeros((count,) + shape, dtype)
        self.sgpr = array("sgpr", (SGPR_SLOTS,), np.uint32)
        self.vgpr = array("vgpr", (nvgpr, lanes), np.uint32)
        self.scc = array("scc", (), np.bool_)
        self.pc = array("pc", (), np.int64)
        self.mode = array("mode", (), np.uint32)
        self.flat_scratch = array("flat_scratch", (), np.uint64)
        self.live = array("live", (), np.bool_)
        self.live[:] = True
        self.waiting = array("waiting", (), np.bool_)        # not schedulable: s_barrier or GWS
        self.parked = array("parked", (), np.bool_)          # waiting on a GWS resource
        self.gws_resource = array("gws_resource", (), np.int64)
        self.gws_ticket = array("gws_ticket", (), np.int64)  # arrival order at a GWS semaphore
        self.workgroup = array("workgroup", (), np.int64)      # the wave's workgroup in the chunk
        self.wave_in_group = array("wave_in_group", (), np.int64)
        self.executed = array("executed", (), np.int64)        # instructions issued (watchdog)
        self.epoch = array("epoch", (), np.int64)              # scheduling turn (fairness)
        self.scratch_block = array("scratch_block", (), np.int64)
        self.lane_shift = np.arange(lanes, dtype=np.uint64)

    def copy_from(self, source, indices):
        """Waves 0..len(indices)-1 take the whole state of `source`'s waves `indices`."""
        k = len(indices)
        for name in STATE_ARRAYS:
            getattr(self, name)[:k] = getattr(source, name)[indices]

    def exec_mask(self, idx):
        """EXEC as bool [n, lanes] for the waves `idx`."""
        if self.lanes == 64:
            return self.unpack_mask(self.sgpr[idx, EXEC_LO:EXEC_LO + 2])
        return self.unpack_mask(self.sgpr[idx, EXEC_LO])

    def pack_mask(self, mask):
        """bool [n, lanes] -> uint64 [n] lane mask."""
        packed = np.packbits(np.ascontiguousarray(mask, np.bool_), axis=1, bitorder="little")
        return packed.view(np.uint64 if self.lanes == 64 else np.uint32)[:, 0].astype(np.uint64)

    def unpack_mask(self, bits):
        """Lane masks -> bool [n, lanes]: uint32/uint64 [n], or uint32 [n, 2] (lo, hi) words."""
        words = np.ascontiguousarray(bits, np.uint64 if bits.ndim == 1 and self.lanes == 64 else None)
        if words.ndim == 1 and self.lanes == 32:
            words = words.astype(np.uint32)
        raw = words.view(np.uint8).reshape(len(words), -1)[:, :self.lanes // 8]
        return np.unpackbits(raw, axis=1, bitorder="little").view(np.bool_)
