"""The native tier of the ISA engine: kernels of every target (gfx1030, gfx1100, gfx90a)
translated through LLVM into native code that runs workgroups on every core without the GIL
(the README's "How it is built").

It is reached through core.isa.launch.run_dispatch (SOFTGPU_ENGINE=native, or auto through
core.isa.tiering once a translation is ready) and
gives memory bit-identical to the interpreter (core.isa.interp, the oracle); a kernel it
cannot translate runs on the interpreter, with a `native_fallback` trace event naming the
instruction. Targets differ only where the decoder's records and the target's row
(core/isa/targets.py) say so: the records are the engine's on every target (gfx10 operand
ids, gfx1030 mnemonics, AGPRs as VGPRs), so the translator asks the target only for its
launch layout, FLAT_SCRATCH, DPP controls, 16-bit writes and messages. The facts about an
instruction (operand plans, lane plans, hardware registers, memory-operation tables) are
core/isa/semantics/, shared with the interpreter; the interpreter itself is imported only to
hand instructions over to it (callouts) and for its dispatch state. Inside:
  program    code discovery: reachable blocks, call and return targets, resume points, MODE
  translate  the LLVM function of a kernel: registers in allocas, resumable, counted
  families   mnemonic/encoding -> translator table  operands  operand reads/writes per type
  routing    which translator takes an instruction, or a hand-over to the interpreter
  scalar / valu        SALU/VALU wired to the ALU's LLVM emitters (core.isa.native.alu)
  packed32   gfx90a's packed f32 ops on register pairs
  control / lanes      branches, calls, barriers, hwregs; cross-lane ops, DPP, SDWA
  smem / vmem / lds    scalar, vector and LDS memory        memory   checked accesses, atomics
  compiler   LLVM -> a shared object per translation, cached in memory and on disk
  identity / cache_entry / shared_object  what a cached translation depends on (read
             without LLVM); its sealed cache file; its dlopen and helper table
  cache_files  the disk cache as files: entries, pruning (softgpu cache)
  translator the background thread that makes translations for the tiered engine
  dispatch   the Python side of a dispatch      runner.c/.h   the C side: threads, barriers
  runner_layout  the runner's C layouts as Python sees them
  ir_types / ir_vector  the IR's integer types and constants; its vector type, printing
             splat constants short
"""
