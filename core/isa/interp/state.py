"""Wave state of one chunk of workgroups, as numpy arrays over waves.

Holds three invariants:
- every architectural register of every wave lives in these arrays: scalar registers in
  `sgpr[waves, 128]` indexed by the gfx10 operand field id (s0-s105, vcc 106-107, ttmp
  108-123, m0 124, null 125, exec 126-127), so EXEC and VCC are ordinary SGPR slots and
  never disagree with what the code reads; VGPRs in `vgpr[waves, nvgpr, lanes]`;
- lanes past a partial workgroup's last work-item start with their EXEC bit clear, so no
  instruction ever makes them visible;
- a wave is `live` until s_endpgm; a live wave `waiting` at s_barrier is not scheduled until
  every live wave of its workgroup waits too.
"""
import numpy as np

from core.isa.instruction import EXEC_LO, M0, NULL, VCC_LO  # noqa: F401  (re-exported for the engine)

SGPR_SLOTS = 128


class Waves:
    """Register state of `count` waves of `lanes` lanes with `nvgpr` VGPRs each.

    `reuse`: the Waves of the previous chunk of the same dispatch; its arrays are recycled
    (zeroed) when large enough, since first-touch page faults of fresh arrays cost as much as
    running a short kernel over them. `initial`: a snapshot() to start from instead of zeros."""

    STATE = ("sgpr", "vgpr", "scc", "pc", "mode", "flat_scratch", "live", "waiting", "workgroup",
             "wave_in_group", "executed")

    def __init__(self, count, lanes, nvgpr, reuse=None, initial=None):
        self.count = count
        self.lanes = lanes
        fits = reuse is not None and reuse.capacity >= count
        self.capacity = reuse.capacity if fits else count

        def array(name, shape, dtype):
            if fits:
                view = getattr(reuse, name)[:count]
                if initial is None:
                    view.fill(0)
                else:
                    view[...] = initial[name]
                return view
            if initial is not None:
                return initial[name].copy()
            return np.zeros((count,) + shape, dtype)
        self.sgpr = array("sgpr", (SGPR_SLOTS,), np.uint32)
        self.vgpr = array("vgpr", (nvgpr, lanes), np.uint32)
        self.scc = array("scc", (), np.bool_)
        self.pc = array("pc", (), np.int64)
        self.mode = array("mode", (), np.uint32)
        self.flat_scratch = array("flat_scratch", (), np.uint64)
        self.live = array("live", (), np.bool_)
        if initial is None:
            self.live[:] = True
        self.waiting = array("waiting", (), np.bool_)
        self.workgroup = array("workgroup", (), np.int64)      # the wave's workgroup in the chunk
        self.wave_in_group = array("wave_in_group", (), np.int64)
        self.executed = array("executed", (), np.int64)        # instructions issued (watchdog)
        self.lane_shift = np.arange(lanes, dtype=np.uint64)

    def snapshot(self):
        """Copies of every state array, for Waves(..., initial=snapshot)."""
        return {name: getattr(self, name).copy() for name in self.STATE}

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
