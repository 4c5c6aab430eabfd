"""Instructions of gfx90a and gfx1100 clang-15 does not emit from C, reached through inline
assembly it assembles for that target: gfx11's renamed f32 and clamped-subtract atomics and
addtid load (gfx10's operations under gfx11 names) and s_pack_hl_b32_b16; gfx9's 16-bit
adds, reversed subtract, accumulating dot products and AGPR-to-AGPR moves; a hardware
register's id meaning what that target's register of that id holds; an MTBUF word's format
by the target's own numbers; gfx9's scalar-cache operations."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from softgpu_shim.hsa_abi import Status
from tests.support.differential import engine
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


GFX9 = """
kernel void gfx9(global const int *a, global const int *b, global int *out) {
  size_t i = get_global_id(0);
  int x = a[i], y = b[i], add, sub, subrev, dot = 1000, moved;
  __asm__ volatile("v_add_i16 %0, %1, %2 clamp" : "=v"(add) : "v"(x), "v"(y));
  __asm__ volatile("v_sub_i16 %0, %1, %2" : "=v"(sub) : "v"(x), "v"(y));
  __asm__ volatile("v_subrev_u16 %0, %1, %2" : "=v"(subrev) : "v"(x), "v"(y));
  __asm__ volatile("v_dot2c_i32_i16 %0, %1, %2" : "+v"(dot) : "v"(x), "v"(y));
  __asm__ volatile("v_accvgpr_write_b32 a1, %1\\n v_accvgpr_mov_b32 a2, a1\\n"
                   "v_accvgpr_read_b32 %0, a2" : "=v"(moved) : "v"(x) : "a1", "a2");
  out[5 * i] = add;
  out[5 * i + 1] = sub;
  out[5 * i + 2] = subrev;
  out[5 * i + 3] = dot;
  out[5 * i + 4] = moved;
}
"""


def test_gfx9_16_bit_adds_reversed_subtract_dot_and_agpr_moves(session):
    co = compile_opencl(GFX9, opt="-O2", mcpu="gfx90a", wave64=True)
    rng = np.random.default_rng(5)
    a = rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    a[:2] = (0x7FF0, 0x1234_8000)             # saturating sums: 0x7FF0 + 0x7FF0, -32768 + -32768
    b[:2] = (0x7FF0, 0x0000_8000)
    out = launch(session, co, "gfx9", [a, b, np.zeros(5 * 64, np.int32)], 64, 64)[2].reshape(64, 5)
    lo = lambda v: (v.astype(np.int64) & 0xFFFF).astype(np.int16).astype(np.int64)  # noqa: E731
    hi = lambda v: (v.astype(np.int64) >> 16).astype(np.int16).astype(np.int64)     # noqa: E731
    # 16-bit results leave the destination's high half zero (gfx9 without op_sel).
    np.testing.assert_array_equal(out[:, 0], np.clip(lo(a) + lo(b), -32768, 32767) & 0xFFFF)
    np.testing.assert_array_equal(out[:, 1], (lo(a) - lo(b)) & 0xFFFF)
    np.testing.assert_array_equal(out[:, 2], (lo(b) - lo(a)) & 0xFFFF)
    np.testing.assert_array_equal(out[:, 3], (1000 + lo(a) * lo(b) + hi(a) * hi(b)).astype(np.int32))
    np.testing.assert_array_equal(out[:, 4], a)


# Hardware register 20 by number: FLAT_SCR_LO on gfx10 (a wave may write and read it back),
# no register at all on gfx9/gfx90a (whose flat scratch is an SGPR pair).
REGISTER_20 = """
kernel void register_20(global uint *out) {
  uint before, after;
  __asm__ volatile("s_getreg_b32 %0, hwreg(20, 0, 32)\\n"
                   "s_setreg_imm32_b32 hwreg(20, 4, 8), 0x5a\\n"
                   "s_getreg_b32 %1, hwreg(20, 0, 32)" : "=&s"(before), "=s"(after));
  out[get_global_id(0)] = after ^ before;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_register_20_is_the_scratch_base_on_gfx10(session, tier):
    co = compile_opencl(REGISTER_20, opt="-O2", mcpu="gfx1030")
    with engine(tier):
        out, = launch(session, co, "register_20", [np.zeros(32, np.uint32)], 32, 32)
    # Only the field written changed: bits [11:4] now hold 0x5a.
    assert (out & ~np.uint32(0xFF0)).max() == 0


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_register_20_is_no_register_of_gfx90a_and_faults(session, tier):
    """An id the target's table does not name faults naming it, where it used to read gfx10's
    FLAT_SCR_LO on every target."""
    co = compile_opencl(REGISTER_20, opt="-O2", mcpu="gfx90a", wave64=True)
    with engine(tier), pytest.raises(KernelFault) as caught:
        launch(session, co, "register_20", [np.zeros(64, np.uint32)], 64, 64)
    assert caught.value.status == Status.ERROR_ILLEGAL_INSTRUCTION
    assert caught.value.report["instruction"].startswith("s_getreg_b32")
    assert "hardware register 20 is not modelled" in caught.value.report["reason"]


# Formatted buffer access: an MTBUF word's format is the target's own number (gfx11 numbers
# its unified formats differently from gfx10 from 30 on: 32_32_32_32_FLOAT is 63 there,
# gfx10's 77; gfx9 names a data and a number format), a V#'s FORMAT gfx10's on every target,
# as the runtime's descriptors are.
FORMATS = """
kernel void formats(global float *data, global float *out, global uint *halves) {
  ulong base = (ulong)data;
  uint i = get_global_id(0);
  // A V#: stride 16 bytes (one element of four floats), 64 records, DST_SEL x, y, z, w.
  uint4 desc = (uint4)((uint)base, (uint)(base >> 32) | (16u << 16), 64u, WORD3 | 0xFACu);
  float4 v, t;
  __asm__ volatile("buffer_load_format_xyzw %0, %1, %2, 0 idxen\\n s_waitcnt vmcnt(0)"
                   : "=v"(v) : "v"(i), "s"(desc));
  __asm__ volatile("tbuffer_load_format_xyzw %0, %1, %2, 0 format:[FORMAT] idxen\\n"
                   "s_waitcnt vmcnt(0)" : "=v"(t) : "v"(i), "s"(desc));
  vstore4(v, 2 * i, out);
  vstore4(t, 2 * i + 1, out);
#ifdef D16_HI
  uint word = 0x1234abcdu;          /* x as a half into the high half, the low half kept */
  __asm__ volatile("buffer_load_format_d16_hi_x %0, %1, %2, 0 idxen\\n s_waitcnt vmcnt(0)"
                   : "+v"(word) : "v"(i), "s"(desc));
  halves[i] = word;
  uint one = 0x3c00ffffu;           /* the high half (1.0) stored as x; y, z, w kept */
  __asm__ volatile("buffer_store_format_d16_hi_x %0, %1, %2, 0 idxen\\n s_waitcnt vmcnt(0)"
                   : : "v"(one), "v"(i), "s"(desc) : "memory");
#endif
}
"""


@pytest.mark.parametrize("mcpu, word3, name, d16_hi", [
    ("gfx1100", 77 << 12, "BUF_FMT_32_32_32_32_FLOAT", False),
    ("gfx90a", 77 << 12, "BUF_DATA_FORMAT_32_32_32_32,BUF_NUM_FORMAT_FLOAT", True)])
def test_formatted_buffer_loads_read_the_targets_own_format_numbers(session, mcpu, word3, name, d16_hi):
    source = FORMATS.replace("WORD3", f"{word3}u").replace("FORMAT]", f"{name}]")
    if d16_hi:
        source = "#define D16_HI 1\n" + source
    lanes = 64 if mcpu == "gfx90a" else 32
    co = compile_opencl(source, opt="-O2", mcpu=mcpu, wave64=lanes == 64)
    data = np.random.default_rng(2).standard_normal(4 * 64).astype(np.float32)
    stored, out, halves = launch(session, co, "formats", [data.copy(), np.zeros(8 * lanes, np.float32),
                                                          np.zeros(lanes, np.uint32)], lanes, lanes)
    elements = data.reshape(64, 4)[:lanes]
    np.testing.assert_array_equal(out.reshape(lanes, 2, 4)[:, 0], elements)     # from the V#
    np.testing.assert_array_equal(out.reshape(lanes, 2, 4)[:, 1], elements)     # from the word
    if d16_hi:
        want = elements[:, 0].astype(np.float16).view(np.uint16).astype(np.uint32) << 16 | 0xABCD
        np.testing.assert_array_equal(halves, want)
        after = stored.reshape(64, 4)[:lanes]
        np.testing.assert_array_equal(after[:, 0], 1.0)
        np.testing.assert_array_equal(after[:, 1:], elements[:, 1:])


# gfx9's scalar-cache operations order nothing the engine caches: a kernel runs through them.
SCALAR_CACHE = """
kernel void scalar_cache(global uint *out) {
  __asm__ volatile("s_dcache_inv_vol\\n s_dcache_wb_vol\\n s_mov_b64 s[2:3], 0\\n"
                   "s_dcache_discard s[2:3], 0x0\\n s_dcache_discard_x2 s[2:3], 0x0" ::: "s2", "s3");
  out[get_global_id(0)] = 5;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_gfx9_scalar_cache_operations_run_through(session, tier):
    co = compile_opencl(SCALAR_CACHE, opt="-O2", mcpu="gfx90a", wave64=True)
    with engine(tier):
        out, = launch(session, co, "scalar_cache", [np.zeros(64, np.uint32)], 64, 64)
    np.testing.assert_array_equal(out, 5)
