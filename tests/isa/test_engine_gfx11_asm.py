"""gfx11 instructions clang-15 does not emit from C, reached through inline assembly it
assembles for gfx1100: the renamed f32 and clamped-subtract atomics and addtid load (gfx10's
operations under gfx11 names), and s_pack_hl_b32_b16, new in gfx11."""
import numpy as np

from tests.support.kernels import compile_opencl
from tests.support.launch import launch

RENAMED = """
kernel void renamed(global const int *in, global int *loaded, global float *m,
                    global float *swapped, global uint *counter, global uint *before,
                    global uint *packed) {
  size_t i = get_global_id(0);
  int r;
  __asm__ volatile("global_load_addtid_b32 %0, %1\\n s_waitcnt vmcnt(0)" : "=v"(r) : "s"(in));
  loaded[i] = r;
  float x = (float)in[i] * 0.25f - 3.0f;
  __asm__ volatile("global_atomic_min_f32 %0, %1, off" : : "v"(m), "v"(x) : "memory");
  __asm__ volatile("global_atomic_max_f32 %0, %1, off offset:4" : : "v"(m), "v"(x) : "memory");
  float2 data = (float2)(2.5f + (float)i, 1.5f);        // (new value, compare value)
  float old;
  __asm__ volatile("global_atomic_cmpswap_f32 %0, %1, %2, off glc\\n s_waitcnt vmcnt(0)"
                   : "=v"(old) : "v"(m + 2), "v"(data) : "memory");
  swapped[i] = old;
  uint was;
  __asm__ volatile("global_atomic_csub_u32 %0, %1, %2, off glc\\n s_waitcnt vmcnt(0)"
                   : "=v"(was) : "v"(counter), "v"((uint)i + 1u) : "memory");
  before[i] = was;
  uint p;
  __asm__ volatile("s_pack_hl_b32_b16 %0, %1, %2" : "=s"(p) : "s"(0xAAAABBBBu), "s"(0xCCCCDDDDu));
  packed[i] = p;
}
"""


def test_gfx11_renamed_atomics_and_addtid_run_as_gfx10s(session):
    co = compile_opencl(RENAMED, opt="-O2", mcpu="gfx1100")
    data = np.arange(32, dtype=np.int32) * 7
    m = np.array([100.0, -100.0, 1.5], np.float32)
    loaded, m, swapped, counter, before, packed = launch(
        session, co, "renamed", [data, np.zeros(32, np.int32), m, np.zeros(32, np.float32),
                                 np.array([10000], np.uint32), np.zeros(32, np.uint32),
                                 np.zeros(32, np.uint32)], 32, 32)[1:]
    np.testing.assert_array_equal(loaded, data)
    x = data.astype(np.float32) * np.float32(0.25) - np.float32(3.0)
    assert (m[0], m[1]) == (x.min(), x.max())
    winners = np.flatnonzero(swapped == 1.5)               # one lane swapped, the rest saw its value
    assert winners.size == 1 and m[2] == 2.5 + winners[0]
    assert np.all(np.delete(swapped, winners) == m[2])
    assert counter[0] == 10000 - sum(range(1, 33))           # no lane hit the clamp at 0
    # Each lane got the counter as it was before its own subtraction, in some serial order.
    order = np.argsort(-before.astype(np.int64), kind="stable")
    np.testing.assert_array_equal(before[order], 10000 - np.cumsum(np.r_[0, order[:-1] + 1]))
    np.testing.assert_array_equal(packed, 0xDDDDAAAA)        # S0's high half low, S1's low half high
