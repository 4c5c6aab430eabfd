"""One kernel dispatch: workgroups admitted in dispatch order into chunks of resident waves,
and the scheduler that runs them.

Holds these invariants:
- initial wave state follows ROCr's launch ABI for the kernel's target (core.isa.interp.chunk);
- a chunk's state (VGPRs, scratch, LDS) is bounded by CHUNK_STATE_BYTES, so a grid of any size
  runs in bounded memory, unless its waves wait on workgroups not yet admitted: a chunk whose
  waves stop making progress admits the next workgroups (finished ones leave), as a GPU
  dispatches more as slots free up, up to what a GPU of the profile holds at once
  (core.isa.occupancy) — and without that limit when every live wave is parked at a GWS
  barrier, which a cooperative launch sized to the GPU needs; scratch blocks are arena
  allocations freed when the dispatch ends (also on a fault);
- waves run in groups at one PC, lowest PC first, so waves that diverged on scalar branches
  reconverge; s_barrier holds a wave until every live wave of its workgroup reached a barrier;
- every ready wave runs: a group that branches backwards once its turn is used (POLL_STEPS
  if it stored nothing to device memory, SLICE_STEPS if it did), or sleeps (s_sleep), yields,
  and the waves that waited longest go next (lowest PC first among them; waves of any turn
  standing at that PC join the group), so a wave polling a flag never starves the wave that
  will set it;
- a dispatch that cannot progress at all (every live wave waits on a barrier no wave can
  complete) faults, naming the barrier, instead of hanging.
"""
import time

import numpy as np

from core.isa.disasm import format_instruction
from core.isa.faults import KernelFault, illegal_instruction, time_limit_fault
from core.isa.interp.code import code_for
from core.isa.interp.memory import DeviceMemory
from core.isa.interp.operands import Operands
from core.isa.interp.registry import YIELD
from core.isa.interp.state import EXEC_LO
from core.isa.plan import DispatchStats, DispatchStopped, long_dispatch

# 64 MiB of wave state (VGPRs, scratch, 1 KiB of SGPRs and bookkeeping, LDS) per chunk: a
# 2^22-work-item vector add (8 VGPRs, wave32, 2 KiB a wave) runs in 4 chunks of 32768 waves;
# numpy temporaries of one instruction add a few [waves, lanes] arrays on top (~4 MiB each).
CHUNK_STATE_BYTES = 64 << 20
# Turns: a group of waves that branches backwards gives waves at other PCs their turn after
# POLL_STEPS steps if it stored nothing to device memory (stores and atomics; LDS does not
# count) since its turn began (it polls), after SLICE_STEPS otherwise; at once at s_sleep. Straight-line code is never cut. A turn costs one
# scheduler pick (~20 us), a polling loop iteration a few steps.
POLL_STEPS = 16
SLICE_STEPS = 256
# Steps without a wave ending after which a chunk with workgroups still to come counts as
# waiting on them and admits more (a real loop that long only costs their memory).
STALL_STEPS = 2048
# Steps between looks at the clock (a step is a few microseconds at least).
CLOCK_STEPS = 1024


class Dispatch:
    """The interpreter's run of one DispatchPlan (core.isa.plan)."""

    def __init__(self, session, plan):
        self.session = session
        self.arena = session.arena
        self.plan = plan                # read for every fact of the dispatch, never copied here
        self.started_ns = time.monotonic_ns()
        self.stats = DispatchStats()
        self.code = code_for(self.arena, plan.kernel, plan.desc)
        self.memory = DeviceMemory(session, getattr(plan.kernel, "agent", None))
        # None while the interpreter runs the dispatch alone; the native tier's callouts set a
        # host compare-and-swap (core.isa.interp.atomics.apply_shared's), for device memory
        # other threads' translated atomics change meanwhile.
        self.compare_exchange = None
        self.workgroups_done = 0        # read by the progress display while run() goes on
        lanes = plan.desc.lanes
        wave_bytes = plan.desc.nvgpr * lanes * 4 + plan.private_bytes * lanes + 1024
        group_bytes = wave_bytes * plan.waves_per_group + plan.lds_bytes
        self.per_chunk = max(1, CHUNK_STATE_BYTES // group_bytes)      # workgroups a chunk holds
        self.next_group = 0             # workgroups are admitted in dispatch order, as CP does
        self.stores = 0                 # device memory stores and atomics (turn accounting)
        self.last_waves = None          # the previous chunk's state, recycled by the next
        self.scratch = ScratchBlocks(self.arena, plan.name)
        self.clock = Clock(plan, self.started_ns)

    def take(self, count):
        """The next `count` workgroup ids not yet admitted (fewer at the end of the grid)."""
        first = self.next_group
        self.next_group = min(self.plan.total_workgroups, first + max(0, count))
        return np.arange(first, self.next_group, dtype=np.int64)

    # ---- chunking ----------------------------------------------------------------------
    def run(self, switch_points=(), hand_over=None):
        """Run the dispatch: its DispatchStats. A tier switch (core/isa/tiering.py): chunks
        end at each of `switch_points` (workgroup indices), and `hand_over(workgroups run)`,
        asked before each chunk, may end the run there (True), leaving the workgroups from
        `next_group` on to the caller; every admitted workgroup has ended by then."""
        from core.isa.interp.chunk import Chunk
        start = time.perf_counter()
        total = self.plan.total_workgroups
        ends = sorted(set(switch_points))
        try:
            while self.next_group < total:
                if self.plan.stop is not None and self.plan.stop.is_set():
                    raise DispatchStopped(f"{self.plan.name}: stopped after {self.next_group} of "
                                          f"{total} workgroups")
                if hand_over is not None and hand_over(self.next_group):
                    break
                end = next((point for point in ends if point > self.next_group), total)
                Scheduler(self, Chunk(self, self.take(min(self.per_chunk, end - self.next_group)))).run()
                self.stats.batches += 1
                self.workgroups_done = self.next_group
        finally:
            self.scratch.close()
        self.stats.workgroups = self.next_group
        self.stats.seconds = time.perf_counter() - start
        return self.stats


class Clock:
    """The time a dispatch has run, looked at every CLOCK_STEPS steps: a long run is reported
    with where its waves stand (core.isa.plan.long_dispatch), a run past the plan's time
    limit stops with a fault at the wave that was running."""

    def __init__(self, plan, started_ns):
        self.plan = plan
        self.started_ns = started_ns
        self.next_step = CLOCK_STEPS
        self.notice_ns = int(plan.notice_seconds * 1e9)

    def check(self, steps, chunk, step):
        self.next_step = steps + CLOCK_STEPS
        elapsed = time.monotonic_ns() - self.started_ns
        if elapsed >= self.notice_ns:
            self.notice_ns = max(2 * elapsed, self.notice_ns + 1)    # then at twice the run
            w = chunk.waves
            pcs, counts = np.unique(w.pc[w.live], return_counts=True)
            long_dispatch(self.plan.name, elapsed / 1e9,
                          {int(pc): int(n) for pc, n in zip(pcs, counts)})
        limit = self.plan.time_limit
        if limit is not None and elapsed >= limit * 1e9:
            raise time_limit_fault(limit, step.report())


class ScratchBlocks:
    """Arena blocks backing scratch: each admission of waves takes a block no resident wave
    uses (reused across chunks), all freed when the dispatch ends."""

    def __init__(self, arena, name):
        self.arena = arena
        self.name = name
        self.blocks = []

    def acquire(self, nbytes, busy):
        """(block index, device address) of a block of at least `nbytes` not in `busy`."""
        for index, block in enumerate(self.blocks):
            if index not in busy and block.size >= nbytes:
                return index, block.address
        block = self.arena.allocate(nbytes, info={"what": f"scratch of {self.name}"})
        self.blocks.append(block)
        return len(self.blocks) - 1, block.address

    def close(self):
        for block in self.blocks:
            self.arena.free(block.address)
        self.blocks = []


def _place(chunk, wave):
    """Where wave `wave` of `chunk` (a Chunk, or the native handover's batch) stands, as every
    fault report names it: its workgroup's id (x, y, z) and its index in that workgroup."""
    w = chunk.waves
    return dict(workgroup=tuple(int(x) for x in chunk.workgroup_ids[w.workgroup[wave]]),
                wave=int(w.wave_in_group[wave]))


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
        return dict(kernel=self.dispatch.plan.name, pc=self.pc,
                    instruction=format_instruction(self.dispatch.code.printed(self.pc)),
                    **_place(self.chunk, wave), lane=lane, address=address)

    def illegal(self, reason, wave=None, lane=None):
        return illegal_instruction(reason, **self.report(wave, lane))

    def memory_fault(self, reason, wave, lane, address):
        from core.isa.faults import memory_fault
        return memory_fault(reason, **self.report(wave, int(lane), int(address)))


class Scheduler:
    """Runs a chunk's waves: lowest PC first, a whole group of waves per instruction, turns
    for every ready wave, more workgroups admitted when the resident ones wait on them."""

    def __init__(self, dispatch, chunk):
        self.d = dispatch
        self.chunk = chunk
        self.turns = 0              # turns handed over so far: a yielding group's epoch
        self.turn_epoch = 0         # the epoch of the waves whose turn it is
        self.turn_start = 0         # the step at which the running turn began
        self.stores_at_turn = 0     # dispatch.stores when it began
        self.progress_step = 0      # the step at which a wave last ended (or waves were admitted)
        self.live_seen = -1

    def run(self):
        code = self.d.code
        stats = self.d.stats
        limit = self.d.plan.instruction_limit or 0
        clock = self.d.clock
        clock.next_step = CLOCK_STEPS       # `steps` counts this chunk's
        name = self.d.plan.name
        all_waves = slice(None)
        idx, n, pc, uniform = None, 0, 0, False
        steps = wave_steps = lane_count = 0
        w = self.chunk.waves
        while True:
            if not uniform:
                idx, n, pc, uniform = self._pick_group(steps)
                if idx is None:
                    break
                w = self.chunk.waves        # a pick may have admitted workgroups
                if uniform and n == w.count:
                    idx = all_waves
            try:
                inst, handler = code.at(pc, name)
            except KernelFault as fault:        # the code cache knows no wave: name the first here
                raise self._at_wave(fault, w, idx) from None
            step = Step(self.d, self.chunk, idx, n, inst, pc)
            redirected = handler(step, inst)
            steps += 1
            wave_steps += n
            w.executed[idx] += 1
            lane_count += self._active_lanes(w, idx)
            if redirected:
                if ((redirected is YIELD or steps - self.turn_start >= POLL_STEPS)
                        and self._turn_over(w, idx, inst, uniform, steps, redirected is YIELD)):
                    uniform = False
                    continue
                # A branch every wave of a whole-chunk group took alike keeps the group whole.
                uniform = uniform and self._still_together(w, idx)
                if uniform:
                    pc = int(w.pc[idx][0]) if n else pc
            else:
                pc = inst.address + inst.size
                w.pc[idx] = pc
            if limit and steps >= limit and int(w.executed.max()) > limit:
                raise step.illegal(f"watchdog: a wave ran more than {limit} instructions")
            if steps >= clock.next_step:
                clock.check(steps, self.chunk, step)
        stats.wave_instructions += wave_steps
        stats.lane_instructions += lane_count

    def _pick_group(self, steps):
        w = self.chunk.waves
        candidates = np.flatnonzero(w.live & ~w.waiting)
        if candidates.size == 0:
            if not w.live.any():
                return None, 0, 0, False
            # Every live wave waits. At GWS, the rest of the grid may not be resident yet.
            if w.parked[w.live].any() and self._admit(self.d.plan.total_workgroups):
                return self._pick_group(steps)
            raise self._deadlock()
        pcs = w.pc[candidates]
        if self.turns:
            # Someone yielded: the waves whose turn is oldest go first.
            epochs = w.epoch[candidates]
            first = epochs.min()
            lowest = pcs[epochs == first].min()
            group = candidates[pcs == lowest]
            w.epoch[group] = first
            if first != self.turn_epoch:        # another turn's waves: their turn begins
                self.turn_epoch, self.turn_start, self.stores_at_turn = first, steps, self.d.stores
        else:
            lowest = pcs.min()
            group = candidates[pcs == lowest]
        return group, group.size, int(lowest), group.size == candidates.size

    def _turn_over(self, w, idx, inst, uniform, steps, sleeping):
        """After a redirect: end the running group's turn (True: pick again) when it slept, or
        branched backwards having used its turn; account for chunks waiting on workgroups."""
        if uniform and self.d.next_group >= self.d.plan.total_workgroups:
            self.turn_start = steps     # alone, and nothing left to admit: nothing to decide
            return False
        if not sleeping:
            wrote = self.d.stores != self.stores_at_turn
            if wrote and steps - self.turn_start < SLICE_STEPS:
                return False
            if not (w.pc[idx] <= inst.address).any():
                return False
        self.turn_start, self.stores_at_turn = steps, self.d.stores
        live = int(np.count_nonzero(w.live))
        if live != self.live_seen:
            self.live_seen, self.progress_step = live, steps
        if steps - self.progress_step >= STALL_STEPS:
            self.progress_step = steps          # admitted or not, look again STALL_STEPS later
            if self._admit_waited_for():
                return True
        if uniform:
            return False                # nobody else to hand the turn to
        self.turns += 1
        w.epoch[idx] = self.turns
        return True

    def _admit_waited_for(self):
        """The chunk made no progress for STALL_STEPS: admit another chunk's worth of
        workgroups, or as many as are resident if more (doubling), within what the GPU holds
        at once; as on a GPU, the ones that finished no longer count."""
        w = self.chunk.waves
        resident = np.unique(w.workgroup[w.live]).size
        return self._admit(min(max(resident, self.d.per_chunk), self.d.plan.resident_limit - resident))

    def _admit(self, count):
        """Admit up to `count` more workgroups; False if none was left to admit."""
        ids = self.d.take(count)
        if ids.size == 0:
            return False
        self.chunk.admit(ids)
        return True

    def _deadlock(self):
        w = self.chunk.waves
        stuck = np.flatnonzero(w.live)
        parked = w.parked[stuck]
        wave = int(stuck[np.argmax(parked)] if parked.any() else stuck[0])
        if parked.any():
            reason = (f"GWS deadlock: {int(parked.sum())} waves wait at GWS resource "
                      f"{int(w.gws_resource[wave])} for waves that never arrive")
        else:
            reason = "s_barrier deadlock: waves wait for waves that never arrive"
        return illegal_instruction(reason, kernel=self.d.plan.name, pc=int(w.pc[wave]),
                                   **_place(self.chunk, wave))

    def _at_wave(self, fault, w, idx):
        """`fault` with the workgroup and wave of the first wave of the group at its PC, as
        every other fault report names them."""
        wave = int(np.arange(w.count)[idx][0])
        report = dict(fault.report, **_place(self.chunk, wave))
        return KernelFault(report.pop("reason"), fault.status, **report)

    @staticmethod
    def _still_together(w, idx):
        pcs = w.pc[idx]
        return bool(w.live[idx].all() and not w.waiting[idx].any() and pcs.min() == pcs.max())

    @staticmethod
    def _active_lanes(w, idx):
        exec_lo = w.sgpr[idx, EXEC_LO]
        count = int(np.bitwise_count(exec_lo).sum())
        if w.lanes == 64:
            count += int(np.bitwise_count(w.sgpr[idx, EXEC_LO + 1]).sum())
        return count

