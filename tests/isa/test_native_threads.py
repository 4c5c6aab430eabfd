"""The native tier on several threads: results do not depend on how many threads run the
workgroups (kernel-suite cases with LDS and barriers, partial workgroups, scratch and atomics
give the interpreter's bytes with SOFTGPU_THREADS=1, 2 and 3), a 64-bit and a 128-bit access
is one access, as on the GPU, while another thread's wave stores the same address, and a
decoupled look-back scan whose workgroups publish 16-byte (value, flag) words sums exactly on
two threads.

The pool's size is fixed when it starts, so each thread count runs in a process of its own.
"""
import subprocess
import sys

import numpy as np
import pytest

from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import launch
from tests.support.paths import ROOT

# Cases whose results are fixed whatever order their workgroups run in: an LDS reduction and
# scan behind barriers, a partial last workgroup, -O0 calls with scratch, and global atomics
# (increments, a compare-and-swap loop, 64-bit add and max) whose final values are sums.
CASES = ("wg_reduce", "wg_prefix_scan", "big_partial_reduce", "noinline_calls", "histogram_inc",
         "cmpxchg_add", "atomic64")

RUN = """
import ctypes, sys
import numpy as np
from tests.support.paths import LIBRARY
assert ctypes.CDLL(LIBRARY).hsa_init() == 0
from core import runtime
from tests.kernels.suite import CASES
from tests.support.differential import run_on
session = runtime.require()
ran = []
for case in CASES:
    if case.name in sys.argv[1:]:
        path = case.compile("-O0", 32)
        native, _, fallback = run_on(session, case, path, 32, "native")
        assert fallback is None, fallback
        oracle, _, _ = run_on(session, case, path, 32, "interp")
        for index, (got, want) in enumerate(zip(native, oracle)):
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (case.name, index)
        ran.append(case.name)
print(" ".join(ran))
"""


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_results_do_not_depend_on_the_thread_count(threads):
    from tests.support.cprog import env
    done = subprocess.run([sys.executable, "-c", RUN, *CASES], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=env(SOFTGPU_THREADS=threads))
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(done.stdout.split()) == sorted(CASES)


# One workgroup stores (v, v) pairs with 64-bit stores while the others' every lane loads them
# with 64-bit loads; the address alternates between two allocations, so every access takes the
# checked out-of-line path as well as the inline one.
TORN_PAIRS = """
kernel void torn_pairs(global atomic_ulong *a, global atomic_ulong *b, global atomic_uint *torn,
                       uint rounds) {
  if (get_group_id(0) == 0) {
    if (get_local_id(0) == 0)
      for (uint v = 1; v <= rounds; v++)
        atomic_store_explicit((v & 1) ? a : b, (ulong)v << 32 | v, memory_order_relaxed,
                              memory_scope_device);
    return;
  }
  uint seen = 0;
  for (uint k = 0; k < rounds; k++) {
    ulong s = atomic_load_explicit((k & 1) ? a : b, memory_order_relaxed, memory_scope_device);
    seen += (uint)s != (uint)(s >> 32);
  }
  if (seen)
    atomic_fetch_add_explicit(torn, seen, memory_order_relaxed, memory_scope_device);
}
"""


# The same through V#s (buffer_load/store_dwordx2 move out of line, in C): the hardware's
# 64-bit buffer accesses are single-copy atomic too. Raw V#s, one per cell: base, stride 0,
# 8 bytes of records.
TORN_BUFFER_PAIRS = """
uint4 cell(global ulong *p) {    // in SGPRs, as a V# must be
  ulong base = (ulong)p;
  return (uint4)(__builtin_amdgcn_readfirstlane((uint)base),
                 __builtin_amdgcn_readfirstlane((uint)(base >> 32)), 8u, 0xFACu);
}

kernel void torn_buffer_pairs(global ulong *a, global ulong *b, global atomic_uint *torn,
                              uint rounds) {
  if (get_group_id(0) == 0) {
    if (get_local_id(0) == 0)
      for (uint v = 1; v <= rounds; v++) {
        uint2 pair = (uint2)(v, v);
        __asm__ volatile("buffer_store_dwordx2 %0, off, %1, 0\\n s_waitcnt_vscnt null, 0"
                         : : "v"(pair), "s"(cell((v & 1) ? a : b)) : "memory");
      }
    return;
  }
  uint seen = 0;
  for (uint k = 0; k < rounds; k++) {
    uint2 s;
    __asm__ volatile("buffer_load_dwordx2 %0, off, %1, 0 glc\\n s_waitcnt vmcnt(0)"
                     : "=v"(s) : "s"(cell((k & 1) ? a : b)) : "memory");
    seen += s.x != s.y;
  }
  if (seen)
    atomic_fetch_add_explicit(torn, seen, memory_order_relaxed, memory_scope_device);
}
"""


@pytest.mark.parametrize("source,kernel", [(TORN_PAIRS, "torn_pairs"),
                                           (TORN_BUFFER_PAIRS, "torn_buffer_pairs")])
def test_a_64_bit_load_never_sees_half_of_a_64_bit_store(session, source, kernel):
    co = compile_opencl(source, opt="-O2")
    with engine("native"):
        _, _, torn = launch(session, co, kernel,
                            [np.zeros(1, np.uint64), np.zeros(1, np.uint64), np.zeros(1, np.uint32),
                             np.uint32(200_000)], 4 * 64, 64)
    assert torn[0] == 0, f"{torn[0]} loads saw half of a store"


def _whole_words(n):
    """Words make_word(0, EMPTY) of tests/kernels/lookback.cl: whole, value 0."""
    return np.tile(np.array([0, 0, 0, 0xFFFFFFFF], np.uint32), n)


@pytest.mark.parametrize("apart", [0, 1], ids=["one_allocation", "two_allocations"])
@pytest.mark.parametrize("wave", [32, 64])
def test_a_128_bit_load_never_sees_part_of_a_128_bit_store(session, wave, apart):
    # 96 workgroups, so that every thread claims some: each stores words while the others
    # read. Before 16-byte words moved as one access, a wave64 run saw tens to thousands of
    # loads with half of a store (one address and distinct addresses) in 10,000 rounds, a
    # wave32 run mostly tens: it reads 40,000. A lone lane's masked vector store was whole on
    # an Intel host; on an AMD EPYC one it tore (tens per run, shapes 1 and 2).
    co = compile_opencl("lookback.cl", opt="-O2", wave64=(wave == 64))
    with engine("native"):
        _, _, torn = launch(session, co, "torn_words",
                            [_whole_words(2), _whole_words(1), np.zeros(3, np.uint32),
                             np.uint32(40_000 if wave == 32 else 10_000), np.uint32(apart)],
                            96 * wave, wave, watchdog_instructions=1 << 40)
    assert torn.tolist() == [0, 0, 0], f"loads that saw part of a store, by shape: {torn}"


# The same through V#s (buffer_load/store_dwordx4 move out of line, in C): every workgroup's
# lane 0 stores whole words (x, sign of x, flag, ~x) into two cells while every lane loads them.
TORN_BUFFER_WORDS = """
uint4 cell(global uint4 *p) {    // in SGPRs, as a V# must be
  ulong base = (ulong)p;
  return (uint4)(__builtin_amdgcn_readfirstlane((uint)base),
                 __builtin_amdgcn_readfirstlane((uint)(base >> 32)), 16u, 0xFACu);
}

kernel void torn_buffer_words(global uint4 *a, global uint4 *b, global atomic_uint *torn,
                              uint rounds) {
  uint group = get_group_id(0);
  uint seen = 0;
  for (uint k = 0; k < rounds; k++) {
    uint x = (k * 8 + group) * 0x9E3779B9u;
    uint4 w = (uint4)(x, (uint)((int)x >> 31), k & 3, ~x);
    if (get_sub_group_local_id() == 0)
      __asm__ volatile("buffer_store_dwordx4 %0, off, %1, 0\\n s_waitcnt_vscnt null, 0"
                       : : "v"(w), "s"(cell(((k + group) & 1) ? a : b)) : "memory");
    __asm__ volatile("buffer_load_dwordx4 %0, off, %1, 0 glc\\n s_waitcnt vmcnt(0)"
                     : "=v"(w) : "s"(cell((k & 1) ? a : b)) : "memory");
    seen += w.w != ~w.x || w.y != (uint)((int)w.x >> 31);
  }
  if (seen)
    atomic_fetch_add_explicit(torn, seen, memory_order_relaxed, memory_scope_device);
}
"""


def test_a_128_bit_buffer_load_never_sees_part_of_a_128_bit_buffer_store(session):
    co = compile_opencl(TORN_BUFFER_WORDS, opt="-O2")
    with engine("native"):
        _, _, torn = launch(session, co, "torn_buffer_words",
                            [_whole_words(1), _whole_words(1), np.zeros(1, np.uint32),
                             np.uint32(5_000)], 96 * 32, 32, watchdog_instructions=1 << 40)
    assert torn[0] == 0, f"{torn[0]} loads saw part of a store"


# rocPRIM's scan_by_key on two threads summed -40181 where -53145 was right: its look-back
# read a tile's 16-byte (value, flag) word half before and half after the tile stored it.
LOOK_BACK = """
import ctypes, sys
import numpy as np
from tests.support.paths import LIBRARY
assert ctypes.CDLL(LIBRARY).hsa_init() == 0
from core import runtime
from tests.support.kernels import compile_opencl
from tests.support.launch import launch
session = runtime.require()
tiles, runs = 1024, int(sys.argv[1])
rng = np.random.default_rng(21)
for wave in (32, 64):
    co = compile_opencl("lookback.cl", opt="-O2", wave64=(wave == 64))
    for run in range(runs):
        x = rng.integers(-1000, 1000, tiles * wave).astype(np.int32)
        _, out, state, torn = launch(
            session, co, "lookback_scan",
            [x, np.zeros_like(x), np.zeros(4 * tiles, np.uint32), np.zeros(1, np.uint32)],
            tiles * wave, 64, watchdog_instructions=1 << 40)
        want = np.cumsum(x, dtype=np.int64).astype(np.int32)
        wrong = int(np.count_nonzero(out != want))
        assert wrong == 0 and torn[0] == 0, (wave, run, wrong, int(torn[0]))
        words = state.reshape(tiles, 4)
        assert (words[:, 2] == 2).all() and (words[:, 0].view(np.int32) == want[wave - 1::wave]).all()
print(runs)
"""


def test_a_decoupled_look_back_scan_sums_exactly_on_two_threads():
    from tests.support.cprog import env
    runs = 5
    done = subprocess.run([sys.executable, "-c", LOOK_BACK, str(runs)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600,
                          env=env(SOFTGPU_THREADS=2, SOFTGPU_ENGINE="native"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [str(runs)]
