"""gfx12 (RDNA4) instructions clang-21 emits from C only in some kernels, reached through inline
assembly it assembles for gfx1201, on both engine tiers: the sub-dword and three-dword scalar
loads (a byte or half sign- or zero-extended, the last byte of a buffer read without a fault),
the SALU float operations and v_s_rcp_f32 as their VALU twins compute them (MODE's NaN rules,
saturating conversion), the 64-bit SALU arithmetic modulo 2^64, the workgroup ids and wave
number gfx12's waves start with in ttmp7/ttmp8/ttmp9, the 64-bit cycle counter and the
reference clock s_sendmsg_rtn_b64 reads, and a WMMA form whose gfx12 layout is not modelled
faulting by name. The builds come from the ROCm 6.4 root's clang-21 (skipped without it on a
developer's machine, failed in CI)."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from tests.support import rocm64
from tests.support.differential import engine, launch

TARGET = "gfx1201"


@pytest.fixture(scope="module")
def root():
    return rocm64.require_tools()


def build(tmp_path, name, source):
    path = tmp_path / f"{name}.cl"
    path.write_text(source)
    return rocm64.clang21(str(path), TARGET, "-O2", "-mcode-object-version=5")


# The buffer's address in s[20:21] (clang-21 gives an "s" operand of a pointer a VGPR pair).
SCALAR_LOADS = r"""
#define BASE(p) "s_mov_b32 s20, %1\n s_mov_b32 s21, %2\n"
#define AT(p) "s"(__builtin_amdgcn_readfirstlane((uint)(ulong)(p))), \
              "s"(__builtin_amdgcn_readfirstlane((uint)((ulong)(p) >> 32)))
kernel void scalar_loads(global const uchar *bytes, global uint *out) {
  uint i8v, u8v, i16v, u16v, last, mid;
  __asm__ volatile(BASE(bytes) "s_load_i8 %0, s[20:21], 0x1\n s_wait_kmcnt 0"
                   : "=s"(i8v) : AT(bytes) : "s20", "s21");
  __asm__ volatile(BASE(bytes) "s_load_u8 %0, s[20:21], 0x1\n s_wait_kmcnt 0"
                   : "=s"(u8v) : AT(bytes) : "s20", "s21");
  __asm__ volatile(BASE(bytes) "s_load_i16 %0, s[20:21], 0x2\n s_wait_kmcnt 0"
                   : "=s"(i16v) : AT(bytes) : "s20", "s21");
  __asm__ volatile(BASE(bytes) "s_load_u16 %0, s[20:21], 0x2\n s_wait_kmcnt 0"
                   : "=s"(u16v) : AT(bytes) : "s20", "s21");
  __asm__ volatile(BASE(bytes) "s_load_u8 %0, s[20:21], 0xc\n s_wait_kmcnt 0"
                   : "=s"(last) : AT(bytes) : "s20", "s21");
  __asm__ volatile(BASE(bytes) "s_load_b96 s[24:26], s[20:21], 0x0\n s_wait_kmcnt 0\n"
                   "s_mov_b32 %0, s26" : "=s"(mid) : AT(bytes) : "s20", "s21", "s24", "s25", "s26");
  size_t i = get_global_id(0);
  out[6 * i] = i8v; out[6 * i + 1] = u8v; out[6 * i + 2] = i16v; out[6 * i + 3] = u16v;
  out[6 * i + 4] = last; out[6 * i + 5] = mid;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_scalar_loads_extend_bytes_and_halves_and_read_three_dwords(root, session, tmp_path, tier):
    co = build(tmp_path, "scalar_loads", SCALAR_LOADS)
    data = np.array([0x11, 0x85, 0x34, 0xF2, 1, 2, 3, 4, 5, 6, 7, 8, 0xFE], np.uint8)   # 13 bytes
    with engine(tier):
        out = launch(session, co, "scalar_loads", [data, np.zeros(6 * 32, np.uint32)], 32, 32)[1]
    want = [0xFFFFFF85, 0x85, 0xFFFFF234, 0xF234, 0xFE, 0x08070605]
    np.testing.assert_array_equal(out.reshape(32, 6), np.tile(np.array(want, np.uint32), (32, 1)))


# Scalar operands through readfirstlane, 64-bit ones set up in s[20:23] (see SCALAR_LOADS).
SCALAR_ARITHMETIC = r"""
#define S(v) "s"(__builtin_amdgcn_readfirstlane(as_uint(v)))
#define PAIRS "s_mov_b32 s20, %2\n s_mov_b32 s21, %3\n s_mov_b32 s22, %4\n s_mov_b32 s23, %5\n"
#define WIDE(op) __asm__ volatile(PAIRS op " s[24:25], s[20:21], s[22:23]\n" \
    "s_mov_b32 %0, s24\n s_mov_b32 %1, s25" : "=s"(lo), "=s"(hi) \
    : S((uint)a), S((uint)(a >> 32)), S((uint)b), S((uint)(b >> 32)) \
    : "s20", "s21", "s22", "s23", "s24", "s25")
kernel void scalar_arithmetic(global uint *f, global int *n, global uint *w, float x, float y,
                              float big, ulong a, ulong b) {
  uint sum, prod, acc = as_uint(1.5f), trunc, rcp, picked, lo, hi;
  int small, saturated;
  __asm__ volatile("s_add_f32 %0, %1, %2" : "=s"(sum) : S(x), S(y));
  __asm__ volatile("s_mul_f32 %0, %1, %2" : "=s"(prod) : S(x), S(y));
  __asm__ volatile("s_fmac_f32 %0, %1, %2" : "+s"(acc) : S(x), S(y));
  __asm__ volatile("s_trunc_f32 %0, %1" : "=s"(trunc) : S(x));
  __asm__ volatile("v_s_rcp_f32 %0, %1" : "=s"(rcp) : S(y));
  __asm__ volatile("s_max_num_f32 %0, %1, %2" : "=s"(picked) : S(0x7fc00000u), S(x));
  __asm__ volatile("s_cvt_i32_f32 %0, %1" : "=s"(small) : S(y));
  __asm__ volatile("s_cvt_i32_f32 %0, %1" : "=s"(saturated) : S(big));
  bool first = get_global_id(0) == 0;
  if (first) {
    f[0] = sum; f[1] = prod; f[2] = acc; f[3] = trunc; f[4] = rcp; f[5] = picked;
    n[0] = small; n[1] = saturated;
  }
  WIDE("s_add_nc_u64");
  if (first) { w[0] = lo; w[1] = hi; }
  WIDE("s_sub_nc_u64");
  if (first) { w[2] = lo; w[3] = hi; }
  WIDE("s_mul_u64");
  if (first) { w[4] = lo; w[5] = hi; }
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_salu_float_and_64_bit_arithmetic(root, session, tmp_path, tier):
    co = build(tmp_path, "scalar_arithmetic", SCALAR_ARITHMETIC)
    a, b = 0xFFFFFFFF00000005, 0x0000000100000007
    x, y = np.float32(3.75), np.float32(-2.5)
    with engine(tier):
        f, n, w = launch(session, co, "scalar_arithmetic",
                         [np.zeros(6, np.float32), np.zeros(2, np.int32), np.zeros(3, np.uint64),
                          x, y, np.float32(3e9), np.uint64(a), np.uint64(b)], 32, 32)
    np.testing.assert_array_equal(f, np.array([x + y, x * y, np.float32(1.5) + x * y, 3.0,
                                               np.float32(1) / y, x], np.float32))
    np.testing.assert_array_equal(n, [-2, 2**31 - 1])      # toward zero; saturated
    mask = (1 << 64) - 1
    np.testing.assert_array_equal(w, np.array([(a + b) & mask, (a - b) & mask, (a * b) & mask],
                                              np.uint64))


WAVE_STATE = r"""
#define S(v) "s"(__builtin_amdgcn_readfirstlane(v))
kernel void wave_state(global uint *ids, global ulong *clocks) {
  uint t7, t8, t9;
  __asm__ volatile("s_mov_b32 %0, ttmp7\n s_mov_b32 %1, ttmp8\n s_mov_b32 %2, ttmp9"
                   : "=s"(t7), "=s"(t8), "=s"(t9));
  size_t i = get_global_linear_id();
  ids[3 * i] = t7; ids[3 * i + 1] = t8; ids[3 * i + 2] = t9;
  ulong real0, real1;
  uint lo, hi;
  __asm__ volatile("s_sendmsg_rtn_b64 %0, sendmsg(MSG_RTN_GET_REALTIME)\n s_wait_kmcnt 0"
                   : "=s"(real0));
  __asm__ volatile("s_getreg_b32 %0, hwreg(HW_REG_SHADER_CYCLES_LO)\n"
                   "s_getreg_b32 %1, hwreg(HW_REG_SHADER_CYCLES_HI)" : "=s"(lo), "=s"(hi));
  __asm__ volatile("s_sendmsg_rtn_b64 %0, sendmsg(MSG_RTN_GET_REALTIME)\n s_wait_kmcnt 0"
                   : "=s"(real1));
  if (i == 0) {
    clocks[0] = real0; clocks[1] = real1; clocks[2] = (ulong)hi << 32 | lo;
  }
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_waves_start_with_their_ids_in_ttmps_and_read_the_clocks(root, session, tmp_path, tier):
    co = build(tmp_path, "wave_state", WAVE_STATE)
    grid, group = (128, 3, 2), (64, 1, 1)
    with engine(tier):
        ids, clocks = launch(session, co, "wave_state", [np.zeros(3 * 128 * 6, np.uint32),
                                                         np.zeros(3, np.uint64)], grid, group)
    x, y, z = np.meshgrid(np.arange(128), np.arange(3), np.arange(2), indexing="ij")
    x, y, z = (v.transpose(2, 1, 0).ravel() for v in (x, y, z))   # linear id: x fastest
    t7, t8, t9 = ids.reshape(-1, 3).T
    np.testing.assert_array_equal(t9, x // 64)
    np.testing.assert_array_equal(t7, y | z << 16)
    np.testing.assert_array_equal(t8 >> 25 & 0x1F, x % 64 // 32)      # wave32: two waves a group
    assert 0 < clocks[0] <= clocks[1]
    assert clocks[2] > 0


WMMA_F16 = r"""
typedef half v8h __attribute__((ext_vector_type(8)));
kernel void wmma_f16(global v8h *ab, global v8h *c) {
  size_t i = get_global_id(0);
  c[i] = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32_gfx12(ab[i], ab[i], c[i]);
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_a_wmma_form_whose_gfx12_layout_is_not_modelled_faults_by_name(root, session, tmp_path,
                                                                        tier):
    co = build(tmp_path, "wmma_f16", WMMA_F16)
    with engine(tier), pytest.raises(KernelFault) as fault:
        launch(session, co, "wmma_f16", [np.ones(32 * 8, np.float16), np.zeros(32 * 8, np.float16)],
               32, 32)
    assert "v_wmma_f16_16x16x16_f16" in str(fault.value) and "not modelled" in str(fault.value)
