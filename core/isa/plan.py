"""A dispatch's plan, built once, and what a dispatch gives back: its stats, or that it stopped.

Holds these invariants:
- every engine tier takes one DispatchPlan (core.isa.launch builds it; the interpreter's
  Dispatch, the native runner's sg_dispatch and the native tier's callouts read it) and
  nothing recomputes what it holds: workgroup counts, waves per group, scratch and LDS sizes,
  the residency limit, the limits a dispatch runs under;
- a plan exists only for a dispatch that can run: every size is a positive int, grid sizes
  are counted in unbounded integers (a 2^32 - 1 grid never wraps to zero workgroups), and a
  grid larger than the agent's HSA_AGENT_INFO_GRID_MAX_DIM / GRID_MAX_SIZE, or a workgroup
  larger than WORKGROUP_MAX_DIM / WORKGROUP_MAX_SIZE, is refused with
  HSA_STATUS_ERROR_INVALID_ARGUMENT before any wave runs, as the packet processor refuses
  oversized workgroups;
- a dispatch has no instruction limit: it runs until it ends, unless the user set a time
  limit (SOFTGPU_TIME_LIMIT, seconds) or the caller an explicit instruction limit (tests of
  forward progress); a dispatch running longer than `notice_seconds` says so (stderr and the
  trace: kernel, elapsed time, the PCs its waves stand at), again each time its run doubles.
"""
import math
import numbers
import sys
from dataclasses import dataclass

from core import settings, trace

# A dispatch that has run this long is reported (then at twice, four times ... as long): a
# hang is visible without killing anything.
NOTICE_SECONDS = 10.0
DYNAMIC_STACK_BYTES = 16 << 10      # per work-item, when the kernel's stack size is not static


@dataclass
class DispatchStats:
    """What one dispatch cost: waves run, instructions issued (per wave and per lane)."""
    waves: int = 0
    workgroups: int = 0
    wave_instructions: int = 0      # instructions executed, counted once per wave
    lane_instructions: int = 0      # instructions executed x lanes whose EXEC bit was set at issue
    batches: int = 0                # workgroup-aligned chunks the grid was split into
    seconds: float = 0.0
    tier: str = "interp"            # the engine tier that ran it


class StopFlag:
    """run_dispatch's `stop`: one C int both tiers poll, the interpreter between admissions of
    workgroups and the native runner's threads between rounds of theirs."""

    def __init__(self):
        from core.native import ffi
        self.pointer = ffi.new("int *")

    def set(self):
        self.pointer[0] = 1

    def is_set(self):
        return self.pointer[0] != 0


class DispatchStopped(Exception):
    """run_dispatch's `stop` was set: the dispatch ended between chunks of workgroups, as the
    command processor drops the waves of a queue it takes off the hardware."""


def time_limit_setting(environ=None):
    """SOFTGPU_TIME_LIMIT (core.settings): seconds a dispatch may run before it is stopped with
    a fault report, or None (no limit); core.settings.InvalidSetting for anything but a
    positive number."""
    return settings.get("SOFTGPU_TIME_LIMIT", environ)


@dataclass(frozen=True)
class DispatchPlan:
    """Everything a tier needs to run one dispatch, worked out once."""
    kernel: object
    name: str
    desc: object                    # core.isa.layout.Layout of the kernel
    grid: tuple                     # work-items per dimension
    workgroup: tuple                # work-items per workgroup and dimension
    groups: tuple                   # workgroups per dimension (ceil(grid / workgroup))
    total_workgroups: int
    waves_per_group: int
    kernarg_address: int
    packet_address: int
    queue_address: int
    dispatch_id: int
    private_segment_size: int       # the packet's, bytes per work-item
    private_bytes: int              # scratch per work-item: static or packet, dword-multiple
    group_segment_size: int         # the packet's LDS bytes per workgroup
    lds_bytes: int                  # LDS a workgroup is allocated (granule-rounded)
    spec: dict                      # the agent's profile section
    resident_limit: int             # workgroups a GPU of the profile holds at once
    global_sync: object = None      # the queue's core.isa.global_sync.GlobalSync, or None
    stop: object = None             # a StopFlag, or None
    instruction_limit: int = None   # per wave; None: none (kernels run until they end)
    time_limit: float = None        # seconds; None: none
    notice_seconds: float = NOTICE_SECONDS

    def xcc_of(self, workgroup_ids):
        """The XCC each workgroup ([n, 3] ids) runs on: the command processor deals a grid's
        workgroups to a GPU's XCCs in turn, in dispatch order (x fastest); the profile says
        how many it has (one where it does not)."""
        gx, gy = self.groups[0], self.groups[1]
        linear = workgroup_ids[:, 0] + gx * (workgroup_ids[:, 1] + gy * workgroup_ids[:, 2])
        return linear % int(self.spec.get("xccs", 1))

    @property
    def lanes(self):
        return self.desc.lanes

    @property
    def clock_mhz(self):
        return self.spec["max_clock_mhz"]

    @property
    def wave_scratch_bytes(self):
        return self.private_bytes * self.desc.lanes

    def launch(self):
        """The launch as run_dispatch was given it (capture records it)."""
        return dict(grid=self.grid, workgroup=self.workgroup, kernarg_address=self.kernarg_address,
                    packet_address=self.packet_address, queue_address=self.queue_address,
                    dispatch_id=self.dispatch_id, private_segment_size=self.private_segment_size,
                    group_segment_size=self.group_segment_size)


def dim3(value):
    """A size (an integer, numpy's too, or up to three) as a 3-tuple of ints (missing
    dimensions are 1)."""
    if isinstance(value, numbers.Integral):
        value = (value,)
    value = tuple(int(v) for v in value)
    return value + (1,) * (3 - len(value))


def kernel_name(kernel):
    """The name a dispatch of `kernel` reports (a kernel without one is "kernel")."""
    return getattr(kernel, "name", None) or "kernel"


def plan_dispatch(session, kernel, desc, *, grid, workgroup, kernarg_address, packet_address,
                  queue_address=0, dispatch_id=0, private_segment_size=0, group_segment_size=0,
                  global_sync=None, stop=None, instruction_limit=None, time_limit=None,
                  notice_seconds=NOTICE_SECONDS):
    """The DispatchPlan of a launch of positive sizes (core.isa.launch checks the plan against
    the agent's limits before any tier takes it)."""
    from core.isa.layout import lds_allocation
    from core.isa.occupancy import resident_workgroups
    grid, workgroup = dim3(grid), dim3(workgroup)
    groups = tuple(-(-g // w) for g, w in zip(grid, workgroup))
    waves_per_group = -(-math.prod(workgroup) // desc.lanes)
    private = max(desc.private_segment_size, private_segment_size)
    if desc.uses_dynamic_stack:
        private += DYNAMIC_STACK_BYTES
    lds_bytes = lds_allocation(group_segment_size)
    spec = agent_spec(session, kernel)
    return DispatchPlan(
        kernel=kernel, name=kernel_name(kernel), desc=desc, grid=grid,
        workgroup=workgroup, groups=groups, total_workgroups=math.prod(groups),
        waves_per_group=waves_per_group, kernarg_address=kernarg_address,
        packet_address=packet_address, queue_address=queue_address, dispatch_id=dispatch_id,
        private_segment_size=private_segment_size, private_bytes=-(-private // 16) * 16,
        group_segment_size=group_segment_size, lds_bytes=lds_bytes, spec=spec,
        resident_limit=resident_workgroups(spec, desc, waves_per_group, lds_bytes),
        global_sync=global_sync, stop=stop, instruction_limit=instruction_limit,
        time_limit=time_limit, notice_seconds=notice_seconds)


def agent_spec(session, kernel):
    agent = getattr(kernel, "agent", None)
    return agent.spec if agent is not None else session.profile.gpu


def size_problem(spec, grid, workgroup):
    """Why the agent cannot run this grid and workgroup (None when it can): the limits
    ROCr's agent answers (GRID_MAX_DIM, GRID_MAX_SIZE, WORKGROUP_MAX_DIM, WORKGROUP_MAX_SIZE)."""
    if min(grid + workgroup) < 1:
        return None         # the caller refuses these with its own status
    checks = (("grid", grid, spec.get("grid_max_dim"), spec.get("grid_max_size")),
              ("workgroup", workgroup, spec.get("workgroup_max_dim"), spec.get("workgroup_max_size")))
    for what, sizes, max_dim, max_size in checks:
        if max_dim is not None and any(s > m for s, m in zip(sizes, max_dim)):
            return f"{what} {sizes} exceeds the agent's {what} dimensions {tuple(max_dim)}"
        if max_size is not None and math.prod(sizes) > max_size:
            return (f"{what} {sizes} of {math.prod(sizes)} work-items exceeds the agent's "
                    f"{what} size {max_size}")
    return None


def long_dispatch(name, seconds, where):
    """Report a dispatch that has run `seconds` so far; where: {pc: waves standing there}."""
    places = ", ".join(f"{count} at {pc:#x}" for pc, count in sorted(where.items())[:8])
    more = f" and {len(where) - 8} more PCs" if len(where) > 8 else ""
    trace.event("long_dispatch", kernel=name, seconds=round(seconds, 3),
                pcs={f"{pc:#x}": count for pc, count in where.items()})
    if not settings.get("SOFTGPU_QUIET"):
        sys.stderr.write(f"softgpu: {name} has run {seconds:.1f} s; its waves stand at "
                         f"{places or 'no PC'}{more} (SOFTGPU_TIME_LIMIT stops it)\n")
