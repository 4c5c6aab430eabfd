"""The ISA engine: wave-batch execution of gfx1030 machine code on numpy (see DESIGN.md).

The public entry is core.isa.launch (run_dispatch, launch). Inside:
  dispatch   grid -> workgroup-aligned chunks; the scheduler (lowest PC first, whole groups)
  chunk      a chunk's launch ABI state, LDS and scratch        state     register arrays
  code       decode cache per loaded code object                 registry  mnemonic -> handler
  operands   operand read/write with EXEC masking                descriptor  launch layout
  vector_ops / scalar_ops   VALU/SALU wired to core.isa.alu
  control    branches, calls, barriers, hardware registers, traps
  lanes      cross-lane ops, DPP/SDWA forms, M0-relative moves
  smem / vmem / lds         scalar, vector (global/flat/scratch/buffer) and LDS memory
  access / memory / atomics / formats   address resolution, checked bytes, serial-order atomics,
                                        buffer data formats
  faults     KernelFault and its report                          testlaunch  launch()'s body
"""
