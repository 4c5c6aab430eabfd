"""Facts about instructions that both engine tiers read: which operands an instruction
reads and writes, which lane each lane reads from under DPP/SDWA, which hardware register an
s_getreg/s_setreg names, and what a memory instruction moves where.

Guarantees:
- every module here describes an instruction and never executes one: no wave state, no
  numpy handler, no LLVM IR. The interpreter (core/isa/interp/) turns these records into
  numpy handlers, the native tier (core/isa/native/) into IR emitters, so a fact fixed here
  is fixed for both tiers while the oracle's execution stays its own;
- nothing here imports either tier.
"""
