"""The native tier of the ISA engine: gfx1030 code translated through LLVM into native code
that runs workgroups on every core without the GIL (DESIGN.md, "The ISA engine").

It is reached through core.isa.launch.run_dispatch (SOFTGPU_ENGINE=native, the default) and
gives memory bit-identical to the interpreter (core.isa.interp, the oracle); a kernel it
cannot translate runs on the interpreter, with a `native_fallback` trace event naming the
instruction. Inside:
  program    code discovery: reachable blocks, call and return targets, resume points, MODE
  translate  the LLVM function of a kernel: registers in allocas, resumable, counted
  families   mnemonic/encoding -> translator       operands  operand reads/writes per type
  scalar / vector      SALU/VALU wired to the ALU's LLVM emitters (core.isa.native.alu)
  control / lanes      branches, calls, barriers, hwregs; cross-lane ops, DPP, SDWA
  smem / vmem / lds    scalar, vector and LDS memory        memory   checked accesses, atomics
  compiler   LLVM -> native code, cached in memory and on disk
  dispatch   the Python side of a dispatch      runner.c/.h   the C side: threads, barriers
  layout     the runner's C layouts as Python sees them
"""

# The processor whose code the translator reads; other targets' kernels run on the interpreter.
TRANSLATED_TARGET = "gfx1030"
