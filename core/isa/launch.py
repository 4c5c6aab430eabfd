"""The one launch interface of the ISA engine: run one kernel dispatch on the software GPU.

Holds four invariants:
- a dispatch reads everything hardware reads from device memory: the kernel descriptor,
  the code, the kernarg segment and the AQL packet at `packet_address` (code object v4
  device libraries read grid and workgroup sizes through the dispatch pointer);
- a dispatch either completes or raises KernelFault with a report; it never raises any
  other exception for anything the kernel does, and never writes memory outside the
  faulting access;
- every engine tier is reached through `run_dispatch` and nothing else (the packet
  processors, the tests and the benchmarks all call it): SOFTGPU_ENGINE=native (the
  default) runs the native tier (core.isa.native), which hands a kernel it cannot translate
  to the interpreter; SOFTGPU_ENGINE=interp runs the interpreter (core.isa.interp).
"""
from dataclasses import dataclass

from core.isa.faults import KernelFault  # noqa: F401  (part of this module's API)


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
    import os
    if os.environ.get("SOFTGPU_ENGINE", "native") != "interp":
        from core.isa.native.dispatch import run_native
        stats = run_native(session, kernel, grid=grid, workgroup=workgroup,
                           kernarg_address=kernarg_address, packet_address=packet_address,
                           queue_address=queue_address, dispatch_id=dispatch_id,
                           private_segment_size=private_segment_size,
                           group_segment_size=group_segment_size,
                           watchdog_instructions=watchdog_instructions)
        if stats is not None:
            return stats
    from core.isa.interp.dispatch import Dispatch
    return Dispatch(session, kernel, grid=grid, workgroup=workgroup,
                    kernarg_address=kernarg_address, packet_address=packet_address,
                    queue_address=queue_address, dispatch_id=dispatch_id,
                    private_segment_size=private_segment_size,
                    group_segment_size=group_segment_size,
                    watchdog_instructions=watchdog_instructions).run()
