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

SGPR_SLOTS = 128
VCC_LO, M0, NULL, EXEC_LO = 106, 124, 125, 126
TTMP0 = 108


class Waves:
    """Register state of `count` waves of `lanes` lanes with `nvgpr` VGPRs each."""

    def __init__(self, count, lanes, nvgpr):
        self.count = count
        self.lanes = lanes
        self.sgpr = np.zeros((count, SGPR_SLOTS), np.uint32)
        self.vgpr = np.zeros((count, nvgpr, lanes), np.uint32)
        self.scc = np.zeros(count, np.bool_)
        self.pc = np.zeros(count, np.int64)
        self.mode = np.zeros(count, np.uint32)
        self.flat_scratch = np.zeros(count, np.uint64)
        self.live = np.ones(count, np.bool_)
        self.waiting = np.zeros(count, np.bool_)
        self.workgroup = np.zeros(count, np.int64)       # index of the wave's workgroup in the chunk
        self.wave_in_group = np.zeros(count, np.int64)
        self.executed = np.zeros(count, np.int64)        # instructions issued, for the watchdog
        self.lane_shift = np.arange(lanes, dtype=np.uint64)

    def exec_mask(self, idx):
        """EXEC as bool [n, lanes] for the waves `idx`."""
        bits = self.sgpr[idx, EXEC_LO].astype(np.uint64)
        if self.lanes == 64:
            bits |= self.sgpr[idx, EXEC_LO + 1].astype(np.uint64) << np.uint64(32)
        return ((bits[:, None] >> self.lane_shift) & np.uint64(1)).astype(np.bool_)

    def pack_mask(self, mask):
        """bool [n, lanes] -> uint64 [n] lane mask."""
        weights = np.uint64(1) << self.lane_shift
        return (mask.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)

    def unpack_mask(self, bits):
        """uint64 [n] lane mask -> bool [n, lanes]."""
        return ((bits.astype(np.uint64)[:, None] >> self.lane_shift) & np.uint64(1)).astype(np.bool_)
