"""The interpreter tier of the ISA engine: wave-batch execution on numpy.

It is exact and complete, and it is the oracle every other tier is checked against.
It is reached through core.isa.launch.run_dispatch. Inside:
  dispatch   grid -> chunks of resident workgroups, admitted in order; the scheduler (lowest
             PC first, whole groups, turns for every ready wave)
  chunk      a chunk's launch ABI state, LDS and scratch        state     register arrays
  code       decode cache per loaded code object                 registry  mnemonic -> handler
  handlers   every handler module loaded: the handler of an instruction, the implemented set
  operands   operand read/write with EXEC masking
  vector_ops / scalar_ops   VALU/SALU wired to core.isa.alu (and gfx11's VOPD pairs)
  packed32   gfx90a's packed f32 ops         matrix    MFMA (gfx90a) and WMMA (gfx11)
  control    branches, calls, barriers, hardware registers, traps
  lanes      cross-lane ops, DPP/SDWA forms, M0-relative moves   gpr_index  gfx9's index mode
  smem / vmem / lds         scalar, vector (global/flat/scratch/buffer) and LDS memory
  gws        global wave sync: ds_gws_* barriers and semaphores across the grid
  images                    image instructions (MIMG): loads, stores, atomics, samples, queries
  image_resources / sampling   T#/S# decoding and texel layout; LOD, addressing, filtering
  access / memory / atomics / formats   address resolution, checked bytes, serial-order atomics,
                                        buffer and image data formats
  (KernelFault lives in core.isa.faults, the launch layout in core.isa.layout; the facts
  about instructions it shares with the native tier, operand and lane plans, hardware
  registers and memory-operation tables, in core.isa.semantics)
"""
