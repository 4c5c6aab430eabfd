"""The packed 16-bit float atomics of the MI300X (gfx942) and RDNA4 (gfx1201): bf16 pairs added
into global memory (global_atomic_pk_add_bf16, what HIP's bf16 atomicAdd becomes) and f16 and
bf16 pairs added into LDS (ds_pk_add_rtn_f16/bf16), many lanes into few words, on both engine
tiers: each half rounds to nearest even, lanes apply in lane order and each returns the word
it found, against ml_dtypes' bf16 and numpy's f16 done serially. Through inline assembly
clang-21 assembles (skipped without the ROCm 6.4 root on a developer's machine, failed in
CI)."""
import ml_dtypes
import numpy as np
import pytest

from tests.support import rocm64
from tests.support.differential import engine, launch
from tests.support.launch import Local

PACKED = r"""
#if defined(__gfx1201__)
#define RETURN "th:TH_ATOMIC_RETURN\n s_wait_loadcnt 0"
#define LDS_WAIT "s_wait_dscnt 0"
#else
#define RETURN "sc0\n s_waitcnt vmcnt(0)"
#define LDS_WAIT "s_waitcnt lgkmcnt(0)"
#endif
kernel void packed(global uint *words, global const uint *values, global uint *old_global,
                   global const uint *start, global uint *lds_words, global uint *old_lds,
                   local uint *tile) {
  size_t i = get_global_id(0);
  uint l = get_local_id(0), v = values[i], old;
  if (l < 8) tile[l] = start[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  __asm__ volatile("global_atomic_pk_add_bf16 %0, %1, %2, off " RETURN
                   : "=v"(old) : "v"(words + i % 4), "v"(v) : "memory");
  old_global[i] = old;
  uint f16_at = (uint)(size_t)(tile + l % 4), bf16_at = (uint)(size_t)(tile + 4 + l % 4);
  __asm__ volatile("ds_pk_add_rtn_f16 %0, %1, %2\n " LDS_WAIT
                   : "=v"(old) : "v"(f16_at), "v"(v) : "memory");
  old_lds[2 * i] = old;
  __asm__ volatile("ds_pk_add_rtn_bf16 %0, %1, %2\n " LDS_WAIT
                   : "=v"(old) : "v"(bf16_at), "v"(v) : "memory");
  old_lds[2 * i + 1] = old;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 8) lds_words[l] = tile[l];
}
"""
LANES = 64


def serial(start, values, add):
    """Each lane in order adds its pair to word lane % 4: (old words seen, final words)."""
    words, seen = list(start), []
    for lane, v in enumerate(values):
        w = lane % 4
        seen.append(words[w])
        words[w] = add(words[w], int(v))
    return np.array(seen, np.uint32), np.array(words, np.uint32)


def pairwise(dtype):
    def add(a, b):
        halves = []
        for shift in (0, 16):
            x, y = (np.array([(n >> shift) & 0xFFFF], np.uint16).view(dtype) for n in (a, b))
            s = (x.astype(np.float32) + y.astype(np.float32)).astype(dtype)
            halves.append(int(s.view(np.uint16)[0]) << shift)
        return halves[0] | halves[1]
    return add


def pairs(rng, dtype, n):
    """n words of two finite values of `dtype` each, magnitudes 2^-10 to 2^10 (sums that round)."""
    values = (rng.uniform(-1, 1, 2 * n) * 2.0 ** rng.integers(-10, 10, 2 * n)).astype(dtype)
    return values.view(np.uint16).reshape(n, 2).astype(np.uint32) @ np.array([1, 1 << 16], np.uint32)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    return rocm64.opencl_builds(tmp_path_factory.mktemp("packed"), "packed", PACKED, ("gfx942", "gfx1201"))


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("target", ["gfx942", "gfx1201"])
def test_packed_adds_round_each_half_and_apply_in_lane_order(session, builds, target, tier):
    co = builds[target]
    rng = np.random.default_rng(7)
    bf16_values = pairs(rng, ml_dtypes.bfloat16, LANES)
    start_global = pairs(rng, ml_dtypes.bfloat16, 4)
    start_f16, start_bf16 = pairs(rng, np.float16, 4), pairs(rng, ml_dtypes.bfloat16, 4)
    # The LDS adds take the same words as f16 and as bf16 pairs; keep them finite as f16 too.
    values = np.where(np.arange(LANES) % 2 == 0, bf16_values, pairs(rng, np.float16, LANES))
    with engine(tier):
        words, _, old_global, _, lds_words, old_lds = launch(
            session, co, "packed",
            [start_global.copy(), values, np.zeros(LANES, np.uint32), np.concatenate([start_f16, start_bf16]),
             np.zeros(8, np.uint32), np.zeros(2 * LANES, np.uint32), Local(32)], LANES, LANES)
    bf16_add, f16_add = pairwise(ml_dtypes.bfloat16), pairwise(np.float16)
    seen, final = serial(start_global, values, bf16_add)
    np.testing.assert_array_equal(old_global, seen, err_msg="global bf16: old words")
    np.testing.assert_array_equal(words, final, err_msg="global bf16: final words")
    seen, final = serial(start_f16, values, f16_add)
    np.testing.assert_array_equal(old_lds[0::2], seen, err_msg="LDS f16: old words")
    np.testing.assert_array_equal(lds_words[:4], final, err_msg="LDS f16: final words")
    seen, final = serial(start_bf16, values, bf16_add)
    np.testing.assert_array_equal(old_lds[1::2], seen, err_msg="LDS bf16: old words")
    np.testing.assert_array_equal(lds_words[4:], final, err_msg="LDS bf16: final words")
