"""Instructions clang does not emit from C, reached through inline assembly that clang-15
assembles: swaps, M0-relative SGPR moves, addtid loads, two-address LDS exchanges."""
import numpy as np

from core.isa.launch import Local, launch
from tests.support.kernels import compile_opencl

SWAP = """
kernel void swap(global int *a, global int *b) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i];
  if (i & 1) __asm__ volatile("v_swap_b32 %0, %1" : "+v"(x), "+v"(y));
  a[i] = x;
  b[i] = y;
}
"""


def test_v_swap_exchanges_registers_in_active_lanes_only(session):
    co = compile_opencl(SWAP, opt="-O2")
    a, b = np.arange(64, dtype=np.int32), np.arange(64, dtype=np.int32) + 1000
    got_a, got_b = launch(session, co, "swap", [a, b], 64, 64)
    odd = np.arange(64) & 1 == 1
    np.testing.assert_array_equal(got_a, np.where(odd, b, a))
    np.testing.assert_array_equal(got_b, np.where(odd, a, b))


MOVRELS = """
kernel void movrels(global int *out, int k) {
  int r;
  __asm__ volatile(
    "s_mov_b32 s20, 11\\n s_mov_b32 s21, 22\\n s_mov_b32 s22, 33\\n"
    "s_mov_b32 m0, %1\\n s_movrels_b32 %0, s20"
    : "=s"(r) : "s"(k) : "s20", "s21", "s22", "m0");
  out[get_global_id(0)] = r;
}
"""


def test_s_movrels_reads_the_sgpr_m0_selects(session):
    co = compile_opencl(MOVRELS, opt="-O2")
    for k, want in ((0, 11), (2, 33)):
        out, = launch(session, co, "movrels", [np.zeros(32, np.int32), np.int32(k)], 32, 32)
        np.testing.assert_array_equal(out, want)


ADDTID = """
kernel void addtid(global const int *in, global int *out) {
  int r;
  __asm__ volatile("global_load_dword_addtid %0, %1\\n s_waitcnt vmcnt(0)" : "=v"(r) : "s"(in));
  out[get_global_id(0)] = r;
}
"""


def test_addtid_loads_address_one_dword_per_lane(session):
    co = compile_opencl(ADDTID, opt="-O2")
    data = np.arange(32, dtype=np.int32) * 7
    _, out = launch(session, co, "addtid", [data, np.zeros(32, np.int32)], 32, 32)
    np.testing.assert_array_equal(out, data)


EXCHANGE = """
kernel void exchange(global int *out, local int *tile) {
  size_t l = get_local_id(0);
  tile[l] = (int)l;
  tile[l + 64] = (int)l + 100;
  barrier(CLK_LOCAL_MEM_FENCE);
  int2 old;
  uint address = (uint)(size_t)(tile + l);
  __asm__ volatile("ds_wrxchg2_rtn_b32 %0, %1, %2, %3 offset1:64\\n s_waitcnt lgkmcnt(0)"
                   : "=v"(old) : "v"(address), "v"(-1), "v"(-2));
  barrier(CLK_LOCAL_MEM_FENCE);
  out[4 * l] = old.x;
  out[4 * l + 1] = old.y;
  out[4 * l + 2] = tile[l];
  out[4 * l + 3] = tile[l + 64];
}
"""


def test_ds_wrxchg2_swaps_two_elements_and_returns_both(session):
    co = compile_opencl(EXCHANGE, opt="-O2")
    out, = launch(session, co, "exchange", [np.zeros(4 * 64, np.int32), Local(128 * 4)], 64, 64)
    out = out.reshape(64, 4)
    np.testing.assert_array_equal(out[:, 0], np.arange(64))
    np.testing.assert_array_equal(out[:, 1], np.arange(64) + 100)
    np.testing.assert_array_equal(out[:, 2:], np.broadcast_to([-1, -2], (64, 2)))
