// Tensile's long branch (rocisa SLongBranch): s_getpc_b64, a signed 32-bit label offset, a
// compare on its sign, then s_setpc_b64 on the side that adds or subtracts it. Forward to
// .Lfwd (+10), then backward to .Lback (+100); the skipped adds (+1, +1000) show a wrong jump.
kernel void long_branch(global int *out) {
  int r;
  __asm__ volatile(
    "s_mov_b32 %0, 0\n"
    "s_branch .Lstart%=\n"
    ".Lback%=:\n"
    "s_add_u32 %0, %0, 100\n"
    "s_branch .Ldone%=\n"
    ".Lstart%=:\n"
    "s_getpc_b64 s[58:59]\n"
    ".Lpc1%=:\n"
    "s_add_i32 s60, .Lfwd%= - .Lpc1%=, 0\n"
    "s_cmp_ge_i32 s60, 0\n"
    "s_cbranch_scc1 .Lpos1%=\n"
    "s_abs_i32 s60, s60\n"
    "s_sub_u32 s58, s58, s60\n"
    "s_subb_u32 s59, s59, 0\n"
    "s_setpc_b64 s[58:59]\n"
    ".Lpos1%=:\n"
    "s_add_u32 s58, s58, s60\n"
    "s_addc_u32 s59, s59, 0\n"
    "s_setpc_b64 s[58:59]\n"
    "s_add_u32 %0, %0, 1\n"
    ".Lfwd%=:\n"
    "s_add_u32 %0, %0, 10\n"
    "s_getpc_b64 s[58:59]\n"
    ".Lpc2%=:\n"
    "s_add_i32 s60, .Lback%= - .Lpc2%=, 0\n"
    "s_cmp_ge_i32 s60, 0\n"
    "s_cbranch_scc1 .Lpos2%=\n"
    "s_abs_i32 s60, s60\n"
    "s_sub_u32 s58, s58, s60\n"
    "s_subb_u32 s59, s59, 0\n"
    "s_setpc_b64 s[58:59]\n"
    ".Lpos2%=:\n"
    "s_add_u32 s58, s58, s60\n"
    "s_addc_u32 s59, s59, 0\n"
    "s_setpc_b64 s[58:59]\n"
    "s_add_u32 %0, %0, 1000\n"
    ".Ldone%=:\n"
    : "=s"(r) : : "s58", "s59", "s60", "scc");
  out[get_global_id(0)] = r;
}
