"""Instructions clang does not emit from C, reached through inline assembly that clang-15
assembles: swaps, M0-relative SGPR moves, addtid loads, two-address LDS exchanges, messages."""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from softgpu_shim.hsa_abi import Status
from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import Local, launch

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


FORMATTED = """
kernel void formatted(global ushort *pixels, global float *out, global uint *raw_out) {
  // A V#: base = pixels, stride 4 bytes (one 16_16 element), 64 records, format 16_16_UNORM,
  // DST_SEL x, y, z, w (0xFAC).
  ulong base = (ulong)pixels;
  uint4 desc = (uint4)((uint)base, (uint)(base >> 32) | (4u << 16), 64u, 23u << 12 | 0xFACu);
  uint i = get_global_id(0);
  float2 v;
  __asm__ volatile("buffer_load_format_xy %0, %1, %2, 0 idxen\\n s_waitcnt vmcnt(0)"
                   : "=v"(v) : "v"(i), "s"(desc));
  out[2 * i] = v.x;
  out[2 * i + 1] = v.y;
  float2 back = (float2)(v.y, 0.5f);
  __asm__ volatile("tbuffer_store_format_xy %0, %1, %2, 0 format:[BUF_FMT_16_16_UNORM] idxen\\n"
                   "s_waitcnt_vscnt null, 0"
                   : : "v"(back), "v"(i), "s"(desc) : "memory");
  uint r;
  __asm__ volatile("buffer_load_dword %0, %1, %2, 0 idxen\\n s_waitcnt vmcnt(0)"
                   : "=v"(r) : "v"(i), "s"(desc));
  raw_out[i] = r;
}
"""


def test_formatted_buffer_access_converts_unorm_components(session):
    co = compile_opencl(FORMATTED, opt="-O2")
    pixels = np.random.default_rng(5).integers(0, 65536, 128).astype(np.uint16)
    pixels[:2] = (0, 65535)
    got_pixels, out, raw = launch(session, co, "formatted",
                                  [pixels, np.zeros(128, np.float32), np.zeros(64, np.uint32)], 64, 64)
    np.testing.assert_array_equal(out, (pixels / 65535.0).astype(np.float32))
    stored = got_pixels.reshape(64, 2)
    np.testing.assert_array_equal(stored[:, 0], pixels.reshape(64, 2)[:, 1])    # y written back as x
    np.testing.assert_array_equal(stored[:, 1], 32768)                          # 0.5 -> rint(32767.5)
    np.testing.assert_array_equal(raw, stored[:, 0].astype(np.uint32) | (stored[:, 1].astype(np.uint32) << 16))


WRAP = """
kernel void wrap(global uint *out, local uint *counter) {
  if (get_local_id(0) == 0) *counter = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint address = (uint)(size_t)counter, old;
  // Every lane adds 3 to a counter that wraps by subtracting 10 once it reaches 10.
  __asm__ volatile("ds_wrap_rtn_b32 %0, %1, %2, %3\\n s_waitcnt lgkmcnt(0)"
                   : "=v"(old) : "v"(address), "v"(10u), "v"(3u) : "memory");
  out[get_global_id(0)] = old;
}
"""


def test_ds_wrap_applies_lanes_in_order_on_one_counter(session):
    co = compile_opencl(WRAP, opt="-O2")
    out, = launch(session, co, "wrap", [np.zeros(32, np.uint32), Local(4)], 32, 32)
    want, value = [], 0
    for _ in range(32):
        want.append(value)
        value = value - 10 if value >= 10 else value + 3
    np.testing.assert_array_equal(out, want)


REGISTERS = """
kernel void registers(global ulong *out) {
  uint mode, changed;
  ulong pc;
  __asm__ volatile("s_getreg_b32 %0, hwreg(HW_REG_MODE)" : "=s"(mode));
  __asm__ volatile("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xa\\n"
                   "s_getreg_b32 %0, hwreg(HW_REG_MODE)\\n"
                   "s_setreg_b32 hwreg(HW_REG_MODE), %1" : "=&s"(changed) : "s"(mode));
  __asm__ volatile("s_getpc_b64 %0" : "=s"(pc));
  out[0] = mode;
  out[1] = changed;
  out[2] = pc;
}
"""


def test_mode_starts_from_the_descriptor_and_getpc_is_a_device_address(session):
    from tests.support.launch import loaded_kernel
    co = compile_opencl(REGISTERS, opt="-O2")
    kernel = loaded_kernel(session, co, "registers")
    out, = launch(session, co, "registers", [np.zeros(3, np.uint64)], 1, 1)
    kd = kernel.descriptor
    want = (kd.float_round_mode_32 | kd.float_round_mode_16_64 << 2 | kd.float_denorm_mode_32 << 4
            | kd.float_denorm_mode_16_64 << 6 | kd.enable_dx10_clamp << 8 | kd.enable_ieee_mode << 9)
    assert out[0] == want
    assert out[1] == (want & ~0xF) | 0xA                     # FP_ROUND field rewritten alone
    alloc = session.arena.find(kernel.entry)
    assert kernel.entry < int(out[2]) < alloc.end            # inside the loaded code, past entry


MESSAGE = """
kernel void message(global int *out) {
  __asm__ volatile("s_mov_b32 m0, 5\\n %s" ::: "m0");
  out[get_global_id(0)] = 7;
}
"""


@pytest.mark.parametrize("message", ["s_sendmsg sendmsg(MSG_INTERRUPT)", "s_sendmsg sendmsg(MSG_SAVEWAVE)",
                                     "s_sendmsg sendmsg(MSG_STALL_WAVE_GEN)",
                                     "s_sendmsg sendmsg(MSG_GS_ALLOC_REQ)"])
def test_messages_a_compute_wave_sends_let_it_go_on(session, message):
    """An interrupt nobody's mailbox asked for wakes no one; graphics and context-switch
    messages have nothing to do for a compute wave."""
    out, = launch(session, compile_opencl(MESSAGE % message, opt="-O2"), "message",
                  [np.zeros(32, np.int32)], 32, 32)
    np.testing.assert_array_equal(out, 7)


@pytest.mark.parametrize("message, reason", [
    ("s_sendmsghalt sendmsg(MSG_INTERRUPT)", "halted its wave"),
    ("s_sendmsg sendmsg(MSG_HALT_WAVES)", "halted its wave"),
    ("s_sendmsg sendmsg(MSG_GET_DOORBELL)", "not modelled"),
])
def test_a_halting_or_unanswerable_message_faults_naming_itself(session, message, reason):
    with pytest.raises(KernelFault) as caught:
        launch(session, compile_opencl(MESSAGE % message, opt="-O2"), "message", [np.zeros(32, np.int32)], 32, 32)
    assert caught.value.status == Status.ERROR_ILLEGAL_INSTRUCTION
    assert caught.value.report["instruction"].startswith(message.split()[0])
    assert reason in caught.value.report["reason"]


SCALAR_BUFFER = """
kernel void scalar_buffer(global const int *in, global int *out, uint records, uint offset) {
  ulong base = (ulong)in;
  int2 got;
  __asm__ volatile(
    "s_mov_b32 s20, %1\\n s_mov_b32 s21, %2\\n s_mov_b32 s22, %3\\n s_mov_b32 s23, 0\\n"
    "s_buffer_load_dwordx2 %0, s[20:23], %4\\n s_waitcnt lgkmcnt(0)"
    : "=s"(got) : "s"((uint)base), "s"((uint)(base >> 32)), "s"(records), "s"(offset)
    : "s20", "s21", "s22", "s23");
  out[2 * get_global_id(0)] = got.x;
  out[2 * get_global_id(0) + 1] = got.y;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_s_buffer_load_reads_zero_from_the_first_dword_past_the_records(session, tier):
    """The V#'s num_records bounds a scalar buffer load per dword: the dword that ends exactly
    at num_records is read, the one past it reads 0, on either tier."""
    co = compile_opencl(SCALAR_BUFFER, opt="-O2")
    data = np.arange(1, 9, dtype=np.int32) * 11
    with engine(tier):
        _, at_limit = launch(session, co, "scalar_buffer", [data, np.zeros(64, np.int32), np.uint32(8),
                                                            np.uint32(0)], 32, 32)
        _, one_past = launch(session, co, "scalar_buffer", [data, np.zeros(64, np.int32), np.uint32(8),
                                                            np.uint32(4)], 32, 32)
    np.testing.assert_array_equal(at_limit.reshape(-1, 2), [[11, 22]] * 32)
    np.testing.assert_array_equal(one_past.reshape(-1, 2), [[22, 0]] * 32)
