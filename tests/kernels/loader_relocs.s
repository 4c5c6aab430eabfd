// Loader tests: assembly whose relocations clang's own output never carries to the loader
// (absolute 32-bit and 64-bit data references, pc-relative lo/hi pairs). llvm-mc-15 writes
// them into an object file; ld.lld-15 resolves them in a static link; the loader's
// relocation formulas must produce the same bytes.
  .text
  .globl entry
entry:
  s_mov_b32 s0, table@abs32@lo
  s_mov_b32 s1, table@abs32@hi
  s_getpc_b64 s[2:3]
  s_add_u32 s2, s2, table@rel32@lo+4
  s_addc_u32 s3, s3, table@rel32@hi+12
  s_endpgm

  .data
  .p2align 3
  .globl table
table:
  .long 7
  .long table + 4
  .quad table + 16
  .quad entry
  .long table@rel32@lo
  .long table@rel32@hi
