"""The one launch interface of the ISA engine: run one kernel dispatch on the software GPU.

Holds these invariants:
- a dispatch reads everything hardware reads from device memory: the kernel descriptor,
  the code, the kernarg segment and the AQL packet at `packet_address` (code object v4
  device libraries read grid and workgroup sizes through the dispatch pointer);
- a dispatch either completes or raises KernelFault with a report; it never raises any
  other exception for anything the kernel does, and never writes memory outside the
  faulting access;
- the packet's group_segment_size is the workgroup's whole LDS (core.isa.layout); one larger
  than the agent holds is refused before any wave runs (INVALID_ALLOCATION, reported at the
  kernel's entry); one smaller than the kernel's static use runs as on hardware, with a
  warning (trace event `launch_warning`, and one stderr line per kernel unless SOFTGPU_QUIET=1);
- waves and workgroups progress as on hardware: every resident wave runs, whatever the others
  wait for, and the workgroups a GPU of the profile holds at once are resident together, so
  kernels that wait on other waves or workgroups (flags, look-back scans, grid barriers) end;
- a grid or workgroup past the agent's limits (GRID_MAX_DIM, GRID_MAX_SIZE, WORKGROUP_MAX_DIM,
  WORKGROUP_MAX_SIZE) is refused before any wave runs (INVALID_ARGUMENT), never wrapped;
- every engine tier is reached through `run_dispatch` (or its two halves, `plan_launch` and
  `run_plan`, which the packet processor calls around a capture) and nothing else:
  SOFTGPU_ENGINE=auto (the default) runs tiered (core.isa.tiering: the interpreter until a
  kernel's translation is ready, unless waiting for it costs less); SOFTGPU_ENGINE=native
  runs the native tier (core.isa.native), waiting for each translation, which hands a
  kernel it cannot translate to the interpreter; SOFTGPU_ENGINE=interp runs the interpreter
  (core.isa.interp).
"""
import sys

from core import settings, trace
from core.isa.faults import illegal_instruction, launch_fault
from core.isa.layout import MAX_LDS_BYTES, layout
from core.isa.plan import dim3, kernel_name, plan_dispatch, size_problem, time_limit_setting
from core.isa.targets import UnknownTarget
from core.hsa_abi import Status

_warned = set()         # (kernel name, entry) pairs whose LDS shortfall was written to stderr


def run_dispatch(session, kernel, **launch):
    """Run `kernel` (a core.loader LoadedKernel) over `grid` work-items in `workgroup` groups.

    The keywords are plan_launch's: grid, workgroup, kernarg_address, packet_address (required),
    queue_address, dispatch_id, private_segment_size, group_segment_size, group_segment_limit,
    global_sync, watchdog_instructions, stop, notice_seconds.

    grid, workgroup: 3-tuples of work-item counts (grid need not be a multiple of workgroup:
    the last workgroups are partial, as in HSA). kernarg_address: device address of the
    kernarg segment. packet_address: device address of the kernel dispatch packet (the
    dispatch pointer user SGPR points there). private_segment_size: bytes per work-item the
    packet requests (at least the descriptor's static size is given). group_segment_size:
    the packet's LDS bytes per workgroup, static and dynamic together (HSA, as ROCr and HIP
    fill it); group_segment_limit: the most the agent holds (the profile's lds_bytes).
    global_sync: the queue's core.isa.global_sync.GlobalSync (GWS resources and GDS), None
    for a queue that has none. watchdog_instructions: fault after this many instructions per
    wave (None: no limit; tests of forward progress set one so a regression fails instead of
    hanging). stop: a StopFlag; once it is set, the dispatch ends before its next workgroups
    and raises DispatchStopped (its queue is going away: hsa_queue_destroy, inactivation; a
    hostile grid of billions of work-items must not hold the destroy for hours).
    notice_seconds: when a dispatch still running is first reported (core.isa.plan).
    SOFTGPU_TIME_LIMIT (seconds) stops a dispatch that runs longer with a fault.
    Returns DispatchStats. Raises KernelFault (status MEMORY_APERTURE_VIOLATION,
    ILLEGAL_INSTRUCTION, EXCEPTION, INVALID_ALLOCATION or INVALID_ARGUMENT, `.report` dict:
    kernel, pc, instruction, workgroup, wave, lane, address, reason).
    """
    return run_plan(session, plan_launch(session, kernel, **launch))


def plan_launch(session, kernel, *, grid, workgroup, group_segment_limit=MAX_LDS_BYTES,
                watchdog_instructions=None, **launch):
    """The DispatchPlan of a launch (run_dispatch's arguments; `launch`: the ones the plan
    takes as given, core.isa.plan.plan_dispatch's), once the launch is one the agent runs;
    raises the KernelFault run_dispatch raises for one it refuses."""
    name = kernel_name(kernel)
    try:
        desc = layout(kernel)
    except UnknownTarget as exc:
        raise illegal_instruction(str(exc), kernel=name) from None
    grid, workgroup = dim3(grid), dim3(workgroup)
    if min(grid + workgroup) < 1:
        # Refused before the plan, which divides by these sizes.
        raise _refusal(session, name, desc, f"grid {grid} and workgroup {workgroup} must be positive")
    plan = plan_dispatch(session, kernel, desc, grid=grid, workgroup=workgroup,
                         instruction_limit=watchdog_instructions, time_limit=time_limit_setting(),
                         **launch)
    _check_plan(session, plan, group_segment_limit)
    return plan


def run_plan(session, plan):
    """Run a planned dispatch on the engine tier SOFTGPU_ENGINE selects: DispatchStats, or
    KernelFault / DispatchStopped as run_dispatch."""
    from core import progress
    stats = None
    engine = settings.get("SOFTGPU_ENGINE")
    if engine == "auto":
        from core.isa.tiering import run_tiered
        return run_tiered(session, plan)
    if engine == "native":
        from core.isa.native.dispatch import run_native
        stats = run_native(session, plan)
    if stats is None:
        from core.isa.interp.dispatch import Dispatch
        dispatch = Dispatch(session, plan)
        # Every tier's dispatch counts `workgroups_done` of `total_workgroups` as it goes.
        with progress.shown(plan.name, plan.total_workgroups, lambda: dispatch.workgroups_done):
            stats = dispatch.run()
    return stats


def _refusal(session, name, desc, reason, status=Status.ERROR_ILLEGAL_INSTRUCTION):
    """The KernelFault of a launch refused before any wave runs, reported at the kernel's entry."""
    return launch_fault(reason, name, desc.entry, _first_instruction(session, desc), status)


def _check_plan(session, plan, group_segment_limit):
    """Refuse (KernelFault) a plan the agent cannot run; warn of an LDS request short of the
    kernel's static use, which runs as on hardware."""
    name, desc, group_segment_size = plan.name, plan.desc, plan.group_segment_size
    problem = size_problem(plan.spec, plan.grid, plan.workgroup)
    if problem is not None:
        raise _refusal(session, name, desc, problem, Status.ERROR_INVALID_ARGUMENT)
    if group_segment_size > group_segment_limit:
        raise _refusal(session, name, desc,
                       f"the dispatch asks for {group_segment_size} bytes of group segment (LDS) "
                       f"a workgroup; the agent holds {group_segment_limit}",
                       Status.ERROR_INVALID_ALLOCATION)
    static = desc.group_segment_size
    if group_segment_size < static:
        message = (f"{name} uses {static} bytes of LDS but its dispatch packet's "
                   f"group_segment_size is {group_segment_size}: as on a GPU, each workgroup "
                   f"gets {group_segment_size} (LDS accesses past it read 0 and drop writes)")
        trace.event("launch_warning", kernel=name, group_segment_size=group_segment_size,
                    static_group_segment_size=static, message=message)
        if (name, desc.entry) not in _warned and not settings.get("SOFTGPU_QUIET"):
            _warned.add((name, desc.entry))
            sys.stderr.write(f"softgpu: warning: {message}\n")


def _first_instruction(session, desc):
    """The text of the kernel's first instruction, or None if its entry does not decode."""
    from core.isa.decoder import DecodeError, decode
    from core.isa.disasm import format_instruction
    arena = session.arena
    alloc = arena.find(desc.entry)
    if alloc is None or desc.entry + 4 > alloc.end:
        return None
    try:
        return format_instruction(decode(arena.bytes, desc.entry - arena.base, desc.entry, desc.wave64, desc.target))
    except DecodeError:
        return None
