"""Public entry of the ISA engine: run one kernel dispatch on the software GPU.

Holds three invariants:
- a dispatch reads everything hardware reads from device memory: the kernel descriptor,
  the code, the kernarg segment and the AQL packet at `packet_address` (code object v4
  device libraries read grid and workgroup sizes through the dispatch pointer);
- a dispatch either completes or raises KernelFault with a report; it never raises any
  other exception for anything the kernel does, and never writes memory outside the
  faulting access;
- `launch` is a test convenience only: it allocates in the arena and frees what it
  allocated, also when the kernel faults.
"""
from dataclasses import dataclass

from core.isa.engine.faults import KernelFault  # noqa: F401  (part of this module's API)


@dataclass
class DispatchStats:
    """What one dispatch cost: waves run, instructions issued (per wave and per lane)."""
    waves: int = 0
    workgroups: int = 0
    wave_instructions: int = 0      # instructions executed, counted once per wave
    lane_instructions: int = 0      # instructions executed x lanes whose EXEC bit was set at issue
    batches: int = 0                # workgroup-aligned chunks the grid was split into
    seconds: float = 0.0


def run_dispatch(session, kernel, *, grid, workgroup, kernarg_address, packet_address,
                 queue_address=0, dispatch_id=0, private_segment_size=0, group_segment_size=0,
                 watchdog_instructions=None):
    """Run `kernel` (a core.loader LoadedKernel) over `grid` work-items in `workgroup` groups.

    grid, workgroup: 3-tuples of work-item counts (grid need not be a multiple of workgroup:
    the last workgroups are partial, as in HSA). kernarg_address: device address of the
    kernarg segment. packet_address: device address of the kernel dispatch packet (the
    dispatch pointer user SGPR points there). private_segment_size / group_segment_size:
    bytes per work-item / per workgroup requested by the packet (the descriptor's static
    sizes are added). watchdog_instructions: fault after this many instructions per wave
    (None: the engine's default).
    Returns DispatchStats. Raises KernelFault (status MEMORY_APERTURE_VIOLATION or
    ILLEGAL_INSTRUCTION, `.report` dict: kernel, pc, instruction, workgroup, wave, lane,
    address, reason).
    """
    from core.isa.engine.dispatch import Dispatch
    return Dispatch(session, kernel, grid=grid, workgroup=workgroup,
                    kernarg_address=kernarg_address, packet_address=packet_address,
                    queue_address=queue_address, dispatch_id=dispatch_id,
                    private_segment_size=private_segment_size,
                    group_segment_size=group_segment_size,
                    watchdog_instructions=watchdog_instructions).run()


def launch(session, code_object_path, kernel_name, args, grid, workgroup, *,
           private_segment_size=0, group_segment_size=0, watchdog_instructions=None,
           with_stats=False, global_offset=()):
    """Test convenience: load a code object, run one kernel on numpy arguments, return outputs.

    args: one entry per kernel argument in the kernel's metadata order: a numpy array for a
    global (or constant) pointer argument — copied into a fresh arena buffer —, None for a
    NULL pointer, a Python or numpy scalar for a by-value argument, or `Local(nbytes)` for a
    dynamic __local pointer.
    Hidden arguments (v4 hidden_global_offset_*, v5 block counts, group sizes, remainders,
    ...) are filled from grid/workgroup; global_offset (up to 3 ints, OpenCL's global work
    offset) goes to hidden_global_offset_*. grid/workgroup: int or tuple of up to 3 ints.
    Returns one numpy array per array argument (same dtype and shape), read back after the
    dispatch; with_stats=True returns (outputs, DispatchStats). Raises KernelFault like
    run_dispatch.
    """
    from core.isa.engine.testlaunch import launch_code_object
    return launch_code_object(session, code_object_path, kernel_name, args, grid, workgroup,
                              private_segment_size=private_segment_size,
                              group_segment_size=group_segment_size,
                              watchdog_instructions=watchdog_instructions, with_stats=with_stats,
                              global_offset=global_offset)


@dataclass(frozen=True)
class Local:
    """A dynamically sized __local pointer argument of `nbytes` bytes, for `launch`."""
    nbytes: int
