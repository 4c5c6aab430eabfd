"""One kernel dispatch: the grid cut into workgroup-aligned chunks, each run to completion.

Holds three invariants:
- initial wave state follows ROCr's launch ABI for gfx10: user SGPRs in ROCr order as the
  descriptor enables them, then workgroup ids / workgroup info / scratch wave offset; work-item
  ids in v0, v1, v2; EXEC covers exactly the work-items of (possibly partial) workgroups;
- a chunk's state (VGPRs, scratch, LDS) is bounded by CHUNK_STATE_BYTES, so a grid of any size
  runs in bounded memory; scratch is one arena allocation the chunks share, freed when the
  dispatch ends (also on a fault);
- waves of a chunk run in groups at one PC, lowest PC first, so waves that diverged on
  scalar branches reconverge; s_barrier holds a wave until every live wave of its workgroup
  reached a barrier.
"""
import time

import numpy as np

from core.isa.interp.code import code_for
from core.isa.layout import layout
from core.isa.faults import illegal_instruction
from core.isa.interp.memory import DeviceMemory
from core.isa.interp.operands import Operands
from core.isa.interp.state import EXEC_LO

# 64 MiB of wave state (VGPRs, scratch, 1 KiB of SGPRs and bookkeeping, LDS) per chunk: a
# 2^22-work-item vector add (8 VGPRs, wave32, 2 KiB a wave) runs in 4 chunks of 32768 waves;
# numpy temporaries of one instruction add a few [waves, lanes] arrays on top (~4 MiB each).
CHUNK_STATE_BYTES = 64 << 20
DEFAULT_WATCHDOG = 1 << 26          # instructions per wave
DYNAMIC_STACK_BYTES = 16 << 10      # per work-item, when the kernel's stack size is not static
MAX_LDS_BYTES = 64 << 10            # gfx10 LDS per workgroup


class Dispatch:
    def __init__(self, session, kernel, *, grid, workgroup, kernarg_address, packet_address,
                 queue_address=0, dispatch_id=0, private_segment_size=0, group_segment_size=0,
                 watchdog_instructions=None):
        from core.isa.launch import DispatchStats
        self.session = session
        self.arena = session.arena
        self.kernel = kernel
        self.name = getattr(kernel, "name", None) or "kernel"
        self.desc = layout(kernel)
        self.grid = _dim3(grid)
        self.wgsize = _dim3(workgroup)
        if min(self.grid) < 1 or min(self.wgsize) < 1:
            raise illegal_instruction("grid and workgroup sizes must be positive", kernel=self.name)
        self.kernarg_address = kernarg_address
        self.packet_address = packet_address
        self.queue_address = queue_address
        self.dispatch_id = dispatch_id
        private = max(self.desc.private_segment_size, private_segment_size)
        if self.desc.uses_dynamic_stack:
            private += DYNAMIC_STACK_BYTES
        self.private_bytes = -(-private // 16) * 16       # per work-item, dword-multiple as CP rounds
        self.lds_bytes = self.desc.group_segment_size + group_segment_size
        if self.lds_bytes > MAX_LDS_BYTES:
            raise illegal_instruction(f"{self.lds_bytes} bytes of LDS exceed {MAX_LDS_BYTES}",
                                      kernel=self.name)
        self.watchdog = watchdog_instructions or DEFAULT_WATCHDOG
        self.stats = DispatchStats()
        self.code = code_for(self.arena, kernel, self.desc.wave64)
        self.memory = DeviceMemory(session, getattr(kernel, "agent", None))
        self.counts = [-(-g // w) for g, w in zip(self.grid, self.wgsize)]
        self.total_workgroups = self.counts[0] * self.counts[1] * self.counts[2]
        self.workgroups_done = 0        # read by the progress display while run() goes on
        self.last_waves = None          # the previous chunk's state, recycled by the next
        self._scratch = None            # arena allocation backing every chunk's scratch

    def scratch(self, nbytes):
        """Device address of at least `nbytes` of scratch (grown when a chunk needs more)."""
        if self._scratch is not None and self._scratch.size < nbytes:
            self.arena.free(self._scratch.address)
            self._scratch = None
        if self._scratch is None:
            self._scratch = self.arena.allocate(nbytes, info={"what": f"scratch of {self.name}"})
        return self._scratch.address

    # ---- chunking ----------------------------------------------------------------------
    def run(self):
        start = time.perf_counter()
        counts, total_groups = self.counts, self.total_workgroups
        lanes = self.desc.lanes
        waves_per_group = -(-int(np.prod(self.wgsize)) // lanes)
        wave_bytes = self.desc.nvgpr * lanes * 4 + self.private_bytes * lanes + 1024
        group_bytes = wave_bytes * waves_per_group + self.lds_bytes
        per_chunk = max(1, CHUNK_STATE_BYTES // group_bytes)
        try:
            for first in range(0, total_groups, per_chunk):
                ids = np.arange(first, min(first + per_chunk, total_groups), dtype=np.int64)
                self._run_chunk(ids, counts, waves_per_group)
                self.stats.batches += 1
                self.workgroups_done += ids.size
        finally:
            if self._scratch is not None:
                self.arena.free(self._scratch.address)
                self._scratch = None
        self.stats.workgroups = total_groups
        self.stats.seconds = time.perf_counter() - start
        return self.stats

    def _run_chunk(self, group_ids, counts, waves_per_group):
        from core.isa.interp.chunk import Chunk
        chunk = Chunk(self, group_ids, counts, waves_per_group)
        chunk.setup()
        Scheduler(self, chunk).run()


class Step:
    """What a handler sees: the wave group `idx` at one PC, its operands and the dispatch."""
    __slots__ = ("dispatch", "chunk", "w", "idx", "n", "ops", "inst", "pc")

    def __init__(self, dispatch, chunk, idx, n, inst, pc):
        self.dispatch = dispatch
        self.chunk = chunk
        self.w = chunk.waves
        self.idx = idx
        self.n = n
        self.inst = inst
        self.pc = pc
        self.ops = Operands(self.w, idx, n, self)

    def wave_indices(self):
        return np.arange(self.w.count)[self.idx]

    def report(self, wave=None, lane=None, address=None):
        waves = self.wave_indices()
        wave = int(waves[0] if wave is None else waves[wave])
        wg = self.chunk.workgroup_ids[self.w.workgroup[wave]]
        return dict(kernel=self.dispatch.name, pc=self.pc, instruction=self.inst.text,
                    workgroup=tuple(int(x) for x in wg), wave=int(self.w.wave_in_group[wave]),
                    lane=lane, address=address)

    def illegal(self, reason, wave=None, lane=None):
        return illegal_instruction(reason, **self.report(wave, lane))

    def memory_fault(self, reason, wave, lane, address):
        from core.isa.faults import memory_fault
        return memory_fault(reason, **self.report(wave, int(lane), int(address)))


class Scheduler:
    """Runs a chunk's waves: lowest PC first, a whole group of waves per instruction."""

    def __init__(self, dispatch, chunk):
        self.d = dispatch
        self.chunk = chunk
        self.w = chunk.waves

    def run(self):
        w = self.w
        code = self.d.code
        stats = self.d.stats
        limit = self.d.watchdog
        name = self.d.name
        all_waves = slice(None)
        idx, n, pc, uniform = None, 0, 0, False
        steps = 0
        lane_count = 0
        while True:
            if not uniform:
                idx, n, pc, uniform = self._pick_group()
                if idx is None:
                    break
                if uniform and n == w.count:
                    idx = all_waves
            inst, handler = code.at(pc, name)
            step = Step(self.d, self.chunk, idx, n, inst, pc)
            redirected = handler(step, inst)
            steps += 1
            w.executed[idx] += 1
            lane_count += self._active_lanes(idx)
            if redirected:
                # A branch every wave of a whole-chunk group took alike keeps the group whole.
                uniform = uniform and self._still_together(idx)
                if uniform:
                    pc = int(w.pc[idx][0]) if n else pc
            else:
                pc = inst.address + inst.size
                w.pc[idx] = pc
            if steps >= limit and int(w.executed.max()) > limit:
                raise step.illegal(f"watchdog: a wave ran more than {limit} instructions")
        stats.wave_instructions += int(w.executed.sum())
        stats.lane_instructions += lane_count
        stats.waves += w.count

    def _pick_group(self):
        w = self.w
        ready = w.live & ~w.waiting
        candidates = np.flatnonzero(ready)
        if candidates.size == 0:
            if w.live.any():
                raise illegal_instruction("s_barrier deadlock: waves wait for waves that never arrive",
                                          kernel=self.d.name, pc=int(w.pc[w.live][0]))
            return None, 0, 0, False
        pcs = w.pc[candidates]
        lowest = pcs.min()
        group = candidates[pcs == lowest]
        return group, group.size, int(lowest), group.size == candidates.size

    def _still_together(self, idx):
        w = self.w
        pcs = w.pc[idx]
        return bool(w.live[idx].all() and not w.waiting[idx].any() and pcs.min() == pcs.max())

    def _active_lanes(self, idx):
        exec_lo = self.w.sgpr[idx, EXEC_LO]
        count = int(np.bitwise_count(exec_lo).sum())
        if self.w.lanes == 64:
            count += int(np.bitwise_count(self.w.sgpr[idx, EXEC_LO + 1]).sum())
        return count


def _dim3(value):
    if isinstance(value, int):
        value = (value,)
    value = tuple(int(v) for v in value)
    return value + (1,) * (3 - len(value))
