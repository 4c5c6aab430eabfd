"""gfx12 (RDNA4) instructions clang-21 emits from C only in some kernels, reached through inline
assembly it assembles for gfx1201, on both engine tiers: the sub-dword and three-dword scalar
loads (a byte or half sign- or zero-extended, the last byte of a buffer read without a fault),
the SALU float operations and v_s_rcp_f32 as their VALU twins compute them (MODE's NaN rules,
saturating conversion), the SALU float compares (each condition's SCC, NaN and signed zeros
included) and s_fmaak/s_fmamk with their literal, the f16 forms (low halves read, the high
half written 0), the 64-bit SALU arithmetic modulo 2^64, the workgroup ids and wave
number gfx12's waves start with in ttmp7/ttmp8/ttmp9, the 64-bit cycle counter and the
reference clock s_sendmsg_rtn_b64 reads, the image atomics under their gfx12 names
(returning the old texel by th:TH_ATOMIC_RETURN), one without semantics faulting by name,
VBUFFER words on raw and
strided V#s (a negative instruction offset, the records' bound, indexed stores, atomics with
and without their return), the per-lane permutes v_permlane(x)16_var, v_permlane64 in wave64
and wave32, the packed float-to-16-bit-integer conversions, and the counter atomics
sub_clamp (gfx10's csub) and cond_sub, global and LDS, ds_bpermute_fi_b32 and s_sleep_var.
The builds come from the ROCm 6.4 root's clang-21 (skipped without it on a developer's
machine, failed in CI)."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from softgpu_shim.hsa_abi import (HsaExtImageChannelOrder as Order, HsaExtImageChannelType as Type,
                                  HsaExtImageGeometry as Geometry)
from tests.kernels.image_cases import atomic_chain
from tests.support import rocm64
from tests.support.differential import engine, launch
from tests.support.images import Image
from tests.support.launch import Local

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


# gfx12 image atomics by their gfx12 names, returning the old texel (th:TH_ATOMIC_RETURN, not
# glc), on a 2D R32UI image whose T# the kernel moves to s[40:47]; one add without the return
# (its data register keeps its value), and the float min/max on an R32F image.
IMAGE_ATOMICS = r"""
#define RFL(x) __builtin_amdgcn_readfirstlane(x)
#define OBJECT(x) __builtin_astype(x, __constant uint *)
#define T_WORDS(p) [t0] "s"(RFL((p)[0])), [t1] "s"(RFL((p)[1])), [t2] "s"(RFL((p)[2])), \
    [t3] "s"(RFL((p)[3])), [t4] "s"(RFL((p)[4])), [t5] "s"(RFL((p)[5])), [t6] "s"(RFL((p)[6])), \
    [t7] "s"(RFL((p)[7]))
#define SET_T "s_mov_b32 s40, %[t0]\n s_mov_b32 s41, %[t1]\n s_mov_b32 s42, %[t2]\n" \
    "s_mov_b32 s43, %[t3]\n s_mov_b32 s44, %[t4]\n s_mov_b32 s45, %[t5]\n" \
    "s_mov_b32 s46, %[t6]\n s_mov_b32 s47, %[t7]\n"
#define CLOBBERS "s40", "s41", "s42", "s43", "s44", "s45", "s46", "s47", "memory"
#define ATOMIC(img, op, k, type, value, as) do { type r = (value); \
    __asm__ volatile(SET_T "image_atomic_" op " %[r], [%[a], %[b]], s[40:47] dmask:0x1 " \
                     "dim:SQ_RSRC_IMG_2D th:TH_ATOMIC_RETURN\n s_wait_loadcnt 0" \
                     : [r] "+v"(r) : [a] "v"(x), [b] "v"(y), T_WORDS(OBJECT(img)) : CLOBBERS); \
    o[k] = as(r); } while (0)
kernel void image_atomics(read_write image2d_t ints, read_write image2d_t counter,
                          read_write image2d_t floats, global const uint *v, global uint *out) {
  size_t i = get_global_id(0);
  uint x = i % 8, y = i / 8, d = v[i];
  global uint *o = out + 16 * i;
  ATOMIC(ints, "add_uint", 0, uint, d, );
  ATOMIC(ints, "sub_uint", 1, uint, 3u, );
  ATOMIC(ints, "max_uint", 2, uint, 1000u, );
  ATOMIC(ints, "min_uint", 3, uint, 5000u, );
  ATOMIC(ints, "max_int", 4, uint, (uint)-7, );
  ATOMIC(ints, "min_int", 5, uint, (i & 1) ? (uint)-5 : 4000u, );
  ATOMIC(ints, "and", 6, uint, 0xFF7u, );
  ATOMIC(ints, "or", 7, uint, 0x100u, );
  ATOMIC(ints, "xor", 8, uint, 0x55u, );
  ATOMIC(ints, "inc_uint", 9, uint, 3000u, );
  ATOMIC(ints, "dec_uint", 10, uint, 3000u, );
  ATOMIC(ints, "swap", 11, uint, 77u + (uint)i, );
  uint2 swap = (uint2)(42u, 77u + (uint)i);   // new value, compare: matches, so 42 is stored
  __asm__ volatile(SET_T "image_atomic_cmpswap %[r], [%[a], %[b]], s[40:47] dmask:0x3 "
                   "dim:SQ_RSRC_IMG_2D th:TH_ATOMIC_RETURN\n s_wait_loadcnt 0"
                   : [r] "+v"(swap) : [a] "v"(x), [b] "v"(y), T_WORDS(OBJECT(ints)) : CLOBBERS);
  o[12] = swap.x;
  uint one = 1u + (uint)i;                    // no return: the register keeps what it held
  __asm__ volatile(SET_T "image_atomic_add_uint %[r], [%[a], %[b]], s[40:47] dmask:0x1 "
                   "dim:SQ_RSRC_IMG_2D\n s_wait_loadcnt 0"
                   : [r] "+v"(one) : [a] "v"(0u), [b] "v"(0u), T_WORDS(OBJECT(counter)) : CLOBBERS);
  o[13] = one;
  ATOMIC(floats, "max_flt", 14, float, -0.5f, as_uint);
  ATOMIC(floats, "min_flt", 15, float, 0.75f, as_uint);
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_image_atomics_by_their_gfx12_names_return_the_old_texel(root, session, tmp_path, tier):
    co = build(tmp_path, "image_atomics", IMAGE_ATOMICS)
    rng = np.random.default_rng(12)
    k = 64
    initial = rng.integers(0, 4000, (1, 8, 8, 1)).astype(np.uint32)
    counter = rng.integers(0, 100, (1, 1, 4, 1)).astype(np.uint32)
    floats = rng.uniform(-2, 2, (1, 8, 8, 1)).astype(np.float32)
    v = rng.integers(0, 500, k).astype(np.uint32)
    args = [Image(Geometry.GEOMETRY_2D, Order.R, Type.UNSIGNED_INT32, initial),
            Image(Geometry.GEOMETRY_2D, Order.R, Type.UNSIGNED_INT32, counter),
            Image(Geometry.GEOMETRY_2D, Order.R, Type.FLOAT, floats), v,
            np.zeros(16 * k, np.uint32)]
    with engine(tier):
        ints, counted, floated, _, out = launch(session, co, "image_atomics", args, k, k)
    olds = atomic_chain(initial.ravel(), v.astype(np.int64), np.arange(k))
    raised = np.maximum(floats.ravel(), np.float32(-0.5))
    want = np.stack(olds + [1 + np.arange(k)] + [floats.ravel().view(np.uint32),
                                                 raised.view(np.uint32)], axis=1)
    np.testing.assert_array_equal(out.reshape(k, 16), want.astype(np.uint32))
    np.testing.assert_array_equal(ints, np.full((1, 8, 8, 1), 42, np.uint32))
    total = counter.copy()
    total[0, 0, 0, 0] += np.arange(1, k + 1).sum()
    np.testing.assert_array_equal(counted, total)
    np.testing.assert_array_equal(floated, np.minimum(raised, np.float32(0.75)).reshape(floats.shape))


IMAGE_ADD_FLT = r"""
kernel void image_add_flt(read_write image2d_t img, global float *out) {
  float r = 1.0f;
  __constant uint *t = __builtin_astype(img, __constant uint *);
  uint8 w = (uint8)(__builtin_amdgcn_readfirstlane(t[0]), __builtin_amdgcn_readfirstlane(t[1]),
                    __builtin_amdgcn_readfirstlane(t[2]), __builtin_amdgcn_readfirstlane(t[3]),
                    __builtin_amdgcn_readfirstlane(t[4]), __builtin_amdgcn_readfirstlane(t[5]),
                    __builtin_amdgcn_readfirstlane(t[6]), __builtin_amdgcn_readfirstlane(t[7]));
  __asm__ volatile("image_atomic_add_flt %0, [%1, %1], %2 dmask:0x1 dim:SQ_RSRC_IMG_2D "
                   "th:TH_ATOMIC_RETURN\n s_wait_loadcnt 0" : "+v"(r) : "v"(0u), "s"(w) : "memory");
  out[get_global_id(0)] = r;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_an_image_atomic_without_semantics_faults_by_name(root, session, tmp_path, tier):
    """gfx12's float image add has no gfx10 twin SoftGPU models: a fault naming it, never a
    wrong result."""
    co = build(tmp_path, "image_add_flt", IMAGE_ADD_FLT)
    image = Image(Geometry.GEOMETRY_2D, Order.R, Type.FLOAT, np.zeros((1, 2, 2, 1), np.float32))
    with engine(tier), pytest.raises(KernelFault) as fault:
        launch(session, co, "image_add_flt", [image, np.zeros(32, np.float32)], 32, 32)
    assert "image_atomic_add_flt" in str(fault.value)


# gfx12's float compares on the SALU, each condition's SCC as one bit of a mask (f32 and f16,
# the f16 operands the low halves of their SGPRs), and the scalar conversions and fmaak/fmamk.
_CONDITIONS = ("lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq",
               "nlt")
SCALAR_COMPARES = r"""
#define S(v) "s"(__builtin_amdgcn_readfirstlane(v))
#define BIT(cmp, k, x, y) __asm__ volatile("s_cmp_" cmp " %1, %2\n s_cselect_b32 %0, %3, 0" \
                                           : "=s"(bit) : S(x), S(y), "i"(1 << k)); mask |= bit;
kernel void scalar_compares(global uint *out, uint a, uint b, uint ha, uint hb) {
  uint mask = 0, bit, r1, r2, r3, r4;
""" + "".join(f'  BIT("{c}_f32", {k}, a, b)\n  BIT("{c}_f16", {k + 16}, ha, hb)\n'
              for k, c in enumerate(_CONDITIONS)) + r"""
  __asm__ volatile("s_cvt_f32_f16 %0, %1" : "=s"(r1) : S(ha));
  __asm__ volatile("s_fmaak_f32 %0, %1, %2, 0x40400000" : "=s"(r2) : S(a), S(b));
  __asm__ volatile("s_fmamk_f32 %0, %1, 0x40400000, %2" : "=s"(r3) : S(a), S(b));
  __asm__ volatile("s_cvt_pk_rtz_f16_f32 %0, %1, %2" : "=s"(r4) : S(a), S(b));
  if (get_global_id(0) == 0) {
    out[0] = mask; out[1] = r1; out[2] = r2; out[3] = r3; out[4] = r4;
  }
}
"""


def _compare_mask(a, b, shift):
    nan = np.isnan(a) or np.isnan(b)
    truth = {"lt": a < b, "eq": a == b, "le": a <= b, "gt": a > b, "lg": a < b or a > b,
             "ge": a >= b, "o": not nan, "u": nan}
    for cond in ("ge", "lg", "gt", "le", "eq", "lt"):
        truth["n" + ("eq" if cond == "eq" else cond)] = not truth[cond]
    return sum(int(truth[c]) << (k + shift) for k, c in enumerate(_CONDITIONS))


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("a,b", [(1.5, 2.0), (2.0, 1.5), (-3.0, -3.0), (float("nan"), 1.0),
                                 (-0.0, 0.0)])
def test_scalar_float_compares_set_scc_and_conversions_round(root, session, tmp_path, tier, a, b):
    co = build(tmp_path, "scalar_compares", SCALAR_COMPARES)
    fa, fb, ha, hb = np.float32(a), np.float32(b), np.float16(a), np.float16(b)
    args = [np.zeros(5, np.uint32)] + [np.uint32(x.view(np.uint16 if x.dtype == np.float16 else np.uint32))
                                       for x in (fa, fb, ha, hb)]
    with engine(tier):
        (out,) = launch(session, co, "scalar_compares", args, 32, 32)
    assert hex(out[0]) == hex(_compare_mask(a, b, 0) | _compare_mask(a, b, 16))
    assert out[1] == np.float32(ha).view(np.uint32)
    fma = lambda x, y, z: np.float32(np.float64(x) * np.float64(y) + np.float64(z))  # noqa: E731
    if not np.isnan(a):
        assert out[2] == fma(fa, fb, 3.0).view(np.uint32)
        assert out[3] == fma(fa, 3.0, fb).view(np.uint32)
    halves = [np.float16(x).view(np.uint16) for x in (fa, fb)]     # exact in f16: no rounding
    assert out[4] == int(halves[0]) | int(halves[1]) << 16 or np.isnan(a)


# gfx12's VBUFFER words on a raw V# (stride 0, 4 * n bytes; word 3 as RDNA's raw buffers
# have it): a negative instruction offset added to the VGPR offset (a 32-bit sum), a load past
# the records reading 0, an indexed load of a strided V#, an indexed-and-offset store, and an
# add returning the old value (th:TH_ATOMIC_RETURN) next to one that returns nothing.
VBUFFER = r"""
#define RFL(x) __builtin_amdgcn_readfirstlane(x)
#define V_SHARP(p, stride, records) (uint4)(RFL((uint)(ulong)(p)), \
    RFL((uint)((ulong)(p) >> 32) | (stride) << 16), RFL(records), RFL(0x31004000u))
kernel void vbuffer(global uint *data, global uint *out, uint n) {
  uint i = get_global_id(0);
  uint4 raw = V_SHARP(data, 0u, 4 * n), pairs = V_SHARP(data, 8u, n / 2);
  uint back, past, odd, old = i + 1, kept = 1;
  __asm__ volatile("buffer_load_b32 %0, %1, %2, null offen offset:-4\n s_wait_loadcnt 0"
                   : "=v"(back) : "v"(4 * i + 4), "s"(raw));
  __asm__ volatile("buffer_load_b32 %0, %1, %2, null offen offset:4\n s_wait_loadcnt 0"
                   : "=v"(past) : "v"(4 * n - 4), "s"(raw));
  __asm__ volatile("buffer_load_b32 %0, %1, %2, null idxen offset:4\n s_wait_loadcnt 0"
                   : "=v"(odd) : "v"(i / 2), "s"(pairs));
  __asm__ volatile("buffer_atomic_add_u32 %0, %1, %2, null offen th:TH_ATOMIC_RETURN\n"
                   " s_wait_loadcnt 0" : "+v"(old) : "v"(4 * (n - 1)), "s"(raw) : "memory");
  __asm__ volatile("buffer_atomic_add_u32 %0, %1, %2, null offen\n s_wait_storecnt 0"
                   : "+v"(kept) : "v"(4 * (n - 2)), "s"(raw) : "memory");
  uint2 at = (uint2)(i / 2, 4 * (i % 2));
  __asm__ volatile("buffer_store_b32 %0, %1, %2, null idxen offen offset:0\n s_wait_storecnt 0"
                   : : "v"(~back), "v"(at), "s"(pairs) : "memory");
  out[5 * i] = back; out[5 * i + 1] = past; out[5 * i + 2] = odd; out[5 * i + 3] = old;
  out[5 * i + 4] = kept;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_vbuffer_words_address_a_raw_and_a_strided_buffer(root, session, tmp_path, tier):
    co = build(tmp_path, "vbuffer", VBUFFER)
    lanes, n = 32, 64
    data = np.arange(1000, 1000 + n, dtype=np.uint32)
    with engine(tier):
        stored, out = launch(session, co, "vbuffer", [data.copy(), np.zeros(5 * lanes, np.uint32),
                                                      np.uint32(n)], lanes, lanes)
    back, past, odd, old, kept = out.reshape(lanes, 5).T
    i = np.arange(lanes)
    np.testing.assert_array_equal(back, data[i])                 # (4i + 4) - 4
    np.testing.assert_array_equal(past, np.zeros(lanes))         # 4n: past the records
    np.testing.assert_array_equal(odd, data[2 * (i // 2) + 1])   # pair i/2, its second dword
    assert sorted(old - data[n - 1]) == sorted(np.cumsum(i + 1) - (i + 1))   # every old value once
    np.testing.assert_array_equal(kept, np.ones(lanes))
    want = data.copy()
    want[:lanes] = ~data[:lanes]                                 # each lane's own dword
    want[n - 1] += (i + 1).sum()
    want[n - 2] += lanes
    np.testing.assert_array_equal(stored, want)


# gfx12's f16 SALU forms: each reads its SGPRs' low halves (the high halves here hold
# garbage) and writes the high half of its destination 0; s_cvt_hi_f32_f16 reads the high half.
SCALAR_HALVES = r"""
#define S(v) "s"(__builtin_amdgcn_readfirstlane(v))
#define OP2(name, k) __asm__ volatile(name " %0, %1, %2" : "=s"(r[k]) : S(a), S(b));
#define OP1(name, k) __asm__ volatile(name " %0, %1" : "=s"(r[k]) : S(a));
kernel void scalar_halves(global uint *out, uint a, uint b, float f) {
  uint r[13];
  OP2("s_add_f16", 0) OP2("s_sub_f16", 1) OP2("s_mul_f16", 2)
  OP2("s_min_num_f16", 3) OP2("s_max_num_f16", 4)
  OP1("s_ceil_f16", 5) OP1("s_floor_f16", 6) OP1("s_trunc_f16", 7) OP1("s_rndne_f16", 8)
  __asm__ volatile("s_cvt_f16_f32 %0, %1" : "=s"(r[9]) : S(as_uint(f)));
  uint acc = 0xdead3c00u;                     /* 1.0 below garbage */
  __asm__ volatile("s_fmac_f16 %0, %1, %2" : "+s"(acc) : S(a), S(b));
  r[10] = acc;
  __asm__ volatile("s_cvt_hi_f32_f16 %0, %1" : "=s"(r[11]) : S(a));   /* the high halves */
  __asm__ volatile("s_cvt_hi_f32_f16 %0, %1" : "=s"(r[12]) : S(b));
  if (get_global_id(0) == 0)
    for (int k = 0; k < 13; k++) out[k] = r[k];
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_scalar_f16_forms_read_low_halves_and_clear_the_high_half(root, session, tmp_path, tier):
    co = build(tmp_path, "scalar_halves", SCALAR_HALVES)
    x, y, f = np.float16(2.75), np.float16(-1.5), np.float32(0.1)
    a = 0xABCD0000 | int(x.view(np.uint16))
    b = 0x12340000 | int(y.view(np.uint16))
    with engine(tier):
        (out,) = launch(session, co, "scalar_halves",
                        [np.zeros(13, np.uint32), np.uint32(a), np.uint32(b), f], 32, 32)
    h = lambda v: int(np.float16(v).view(np.uint16))     # noqa: E731
    want = [h(x + y), h(x - y), h(x * y), h(min(x, y)), h(max(x, y)), h(np.ceil(x)),
            h(np.floor(x)), h(np.trunc(x)), h(np.rint(x)), h(f), h(np.float16(x * y + 1.0))]
    # s_cvt_hi_f32_f16 widens the high half (0xabcd, 0x1234 as f16) to f32, exactly.
    want += [int(np.uint16(v).view(np.float16).astype(np.float32).view(np.uint32)) for v in (0xABCD, 0x1234)]
    assert [hex(v) for v in out] == [hex(v) for v in want]


# gfx12's per-lane permutes, as clang-21 emits them for its builtins: lane i of the result
# takes src0 from lane (S1[i] & 15) of its own row of 16 lanes (x16: of the other row). The
# selects are the ones RDNA4 hardware was seen to answer (tinygrad's test_permlane_var).
PERMLANE_VAR = r"""
kernel void permlane_var(global const uint *value, global const uint *select, global uint *out) {
  uint i = get_global_id(0);
  out[2 * i] = __builtin_amdgcn_permlane16_var(0u, value[i], select[i], false, false);
  out[2 * i + 1] = __builtin_amdgcn_permlanex16_var(0u, value[i], select[i], false, false);
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_permlane_var_gathers_within_and_across_rows_by_each_lanes_select(root, session, tmp_path,
                                                                          tier):
    co = build(tmp_path, "permlane_var", PERMLANE_VAR)
    lane = np.arange(32)
    value = (lane * 3 + 100).astype(np.uint32)
    select = ((lane ^ 15) | 0xABC0).astype(np.uint32)        # bits above the low four: ignored
    with engine(tier):
        (out,) = launch(session, co, "permlane_var", [value, select, np.zeros(64, np.uint32)], 32, 32)[2:]
    same, other = out.reshape(32, 2).T
    np.testing.assert_array_equal(same, value[lane // 16 * 16 + (lane ^ 15) % 16])
    np.testing.assert_array_equal(other, value[(lane // 16 ^ 1) * 16 + (lane ^ 15) % 16])
    assert same[0] == value[15] and same[16] == value[31] and other[0] == value[31]


# v_permlane64_b32 (gfx11+): a wave64's halves trade places, each active lane reading the
# lane 32 away whether that lane is active or not; in wave32 it writes nothing.
PERMLANE64 = r"""
kernel void permlane64(global const uint *value, global uint *out) {
  uint i = get_global_id(0), r = 7, v = value[i];
  __asm__ volatile("" : "+v"(v));             /* every lane's v, loaded before the branch */
  if (i % 4 != 3 || i >= 32)                  /* lanes 35, 39, ... read inactive 3, 7, ... */
    __asm__ volatile("v_permlane64_b32 %0, %1" : "+v"(r) : "v"(v));
  out[i] = r;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("wave", [64, 32])
def test_permlane64_swaps_the_halves_of_a_wave64_and_is_a_nop_in_wave32(root, session, tmp_path,
                                                                        tier, wave):
    path = tmp_path / "permlane64.cl"
    path.write_text(PERMLANE64)
    co = rocm64.clang21(str(path), TARGET, "-O2", "-mcode-object-version=5",
                        *(["-mwavefrontsize64"] if wave == 64 else []))
    lane = np.arange(64)
    value = (lane * 5 + 1000).astype(np.uint32)
    with engine(tier):
        (out,) = launch(session, co, "permlane64", [value, np.zeros(64, np.uint32)], 64, 64)[1:]
    inactive = (lane % 4 == 3) & (lane < 32)
    want = np.where(inactive, 7, value[lane ^ 32]) if wave == 64 else np.full(64, 7)
    np.testing.assert_array_equal(out, want)


PACK_INTEGERS = r"""
kernel void pack_integers(global const float *a, global uint *out) {
  size_t i = get_global_id(0);
  float x = a[2 * i], y = a[2 * i + 1];
  uint s, u;
  __asm__("v_cvt_pk_i16_f32 %0, %1, %2" : "=v"(s) : "v"(x), "v"(y));
  __asm__("v_cvt_pk_u16_f32 %0, %1, %2" : "=v"(u) : "v"(x), "v"(y));
  out[2 * i] = s;
  out[2 * i + 1] = u;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_pack_conversions_truncate_and_saturate_to_16_bits(root, session, tmp_path, tier):
    """v_cvt_pk_i16_f32/v_cvt_pk_u16_f32 convert as every float-to-integer conversion does:
    toward zero, saturated to the type (infinities too), NaN to 0; S0 into the low half."""
    values = np.array([1.9, -1.9, 32767.5, 32768.0, -32768.9, -32769.0, 70000.0, -1.0, np.nan,
                       -np.nan, np.inf, -np.inf, 0.5, -0.0, 65535.9, 65536.0, 1e10, -1e10, 2.0, 3.0],
                      np.float32)
    # Each value in the low (S0) and in the high (S1) half.
    values = np.resize(np.stack([values, np.roll(values, 1)], axis=1).reshape(-1), 64)
    co = build(tmp_path, "pack_integers", PACK_INTEGERS)
    with engine(tier):
        _, out = launch(session, co, "pack_integers", [values, np.zeros(64, np.uint32)], 32, 32)
    v = values.astype(np.float64)
    for column, (lo, hi) in enumerate(((-2**15, 2**15 - 1), (0, 2**16 - 1))):
        each = np.where(np.isnan(v), 0, np.clip(np.trunc(v), lo, hi)).astype(np.int64) & 0xFFFF
        want = each[0::2] | each[1::2] << 16
        np.testing.assert_array_equal(out.reshape(32, 2)[:, column], want, err_msg=("i16", "u16")[column])


# gfx12's counter atomics, many lanes on four words: sub_clamp (gfx10's csub) stops at 0,
# cond_sub subtracts only when the word holds at least the operand.
COUNTERS = r"""
kernel void counters(global uint *words, global const uint *values, global uint *old,
                     local uint *tile, global uint *lds_words) {
  size_t i = get_global_id(0);
  uint l = get_local_id(0), v = values[i], was;
  if (l < 8) tile[l] = words[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  __asm__ volatile("global_atomic_sub_clamp_u32 %0, %1, %2, off th:TH_ATOMIC_RETURN\n s_wait_loadcnt 0"
                   : "=v"(was) : "v"(words + i % 4), "v"(v) : "memory");
  old[4 * i] = was;
  __asm__ volatile("global_atomic_cond_sub_u32 %0, %1, %2, off th:TH_ATOMIC_RETURN\n s_wait_loadcnt 0"
                   : "=v"(was) : "v"(words + 4 + i % 4), "v"(v) : "memory");
  old[4 * i + 1] = was;
  __asm__ volatile("ds_sub_clamp_rtn_u32 %0, %1, %2\n s_wait_dscnt 0"
                   : "=v"(was) : "v"((uint)(size_t)(tile + l % 4)), "v"(v) : "memory");
  old[4 * i + 2] = was;
  __asm__ volatile("ds_cond_sub_rtn_u32 %0, %1, %2\n s_wait_dscnt 0"
                   : "=v"(was) : "v"((uint)(size_t)(tile + 4 + l % 4)), "v"(v) : "memory");
  old[4 * i + 3] = was;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 8) lds_words[l] = tile[l];
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_counter_atomics_clamp_or_skip_a_subtraction_that_would_wrap(root, session, tmp_path, tier):
    co = build(tmp_path, "counters", COUNTERS)
    rng = np.random.default_rng(9)
    start = rng.integers(100, 400, 8).astype(np.uint32)
    values = rng.integers(0, 40, 64).astype(np.uint32)
    with engine(tier):
        words, _, old, lds_words = launch(session, co, "counters",
                                             [start.copy(), values, np.zeros(4 * 64, np.uint32), Local(32),
                                              np.zeros(8, np.uint32)], 64, 64)

    def serial(first, rule):
        current, seen = list(first), []
        for lane, v in enumerate(values):
            seen.append(current[lane % 4])
            current[lane % 4] = rule(current[lane % 4], int(v))
        return seen, current

    clamp = lambda o, v: o - v if o >= v else 0               # noqa: E731
    skip = lambda o, v: o - v if o >= v else o                # noqa: E731
    old = old.reshape(64, 4)
    checks = ((0, start[:4], clamp, words[:4]), (1, start[4:], skip, words[4:]),
              (2, start[:4], clamp, lds_words[:4]), (3, start[4:], skip, lds_words[4:]))
    for column, first, rule, final in checks:
        seen, current = serial(first, rule)
        assert old[:, column].tolist() == seen, column
        assert final.tolist() == current, column
    assert (np.array(serial(start[:4], clamp)[1]) == 0).any()      # a word reached the clamp


# ds_bpermute_fi_b32 ("fetch inactive"): odd lanes read their even neighbours, which the branch
# left inactive; ds_bpermute_b32 gives 0 from an inactive lane, the _fi form its value.
BPERMUTE_FI = r"""
kernel void bpermute_fi(global const uint *value, global uint *out) {
  uint i = get_global_id(0), v, plain = 7, fetched = 7;
  uint from = (i ^ 1) * 4;
  // Every lane's value in its register before the branch (clang would sink a plain load).
  __asm__ volatile("v_mov_b32 %0, %1" : "=v"(v) : "v"(value[i]));
  if (i & 1) {
    __asm__ volatile("ds_bpermute_b32 %0, %1, %2\n s_wait_dscnt 0" : "=v"(plain) : "v"(from), "v"(v));
    __asm__ volatile("ds_bpermute_fi_b32 %0, %1, %2\n s_wait_dscnt 0" : "=v"(fetched) : "v"(from), "v"(v));
  }
  out[2 * i] = plain;
  out[2 * i + 1] = fetched;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_bpermute_fi_fetches_from_inactive_lanes(root, session, tmp_path, tier):
    co = build(tmp_path, "bpermute_fi", BPERMUTE_FI)
    value = np.arange(32, dtype=np.uint32) * 3 + 100
    with engine(tier):
        _, out = launch(session, co, "bpermute_fi", [value, np.zeros(64, np.uint32)], 32, 32)
    out = out.reshape(32, 2)
    odd = np.arange(32) % 2 == 1
    np.testing.assert_array_equal(out[odd, 0], 0)
    np.testing.assert_array_equal(out[odd, 1], value[~odd])
    np.testing.assert_array_equal(out[~odd], 7)


SLEEP_VAR = r"""
kernel void sleep_var(global uint *out, uint ticks) {
  __asm__ volatile("s_sleep_var %0" : : "s"(__builtin_amdgcn_readfirstlane(ticks)));
  out[get_global_id(0)] = 9;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_s_sleep_var_lets_the_wave_go_on(root, session, tmp_path, tier):
    co = build(tmp_path, "sleep_var", SLEEP_VAR)
    with engine(tier):
        out, = launch(session, co, "sleep_var", [np.zeros(32, np.uint32), np.uint32(3)], 32, 32)
    np.testing.assert_array_equal(out, 9)
