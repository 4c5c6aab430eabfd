"""Kernels at the edges of their memory, on both engine tiers: the last byte of an allocation
with nothing mapped after it, a raw buffer's num_records, the LDS allocation granule.

Each limit is tried exactly at it and one past it, on the interpreter (the oracle) and on
the native tier, which must have translated the kernel (no fallback hides it):
- a global access that ends exactly at the end of an allocation reads and writes it; one
  that starts past the end, or straddles it, faults before anything moves. The buffer lies
  at the end of the device arena's mapping (launch's at_end), so a tier that let a byte past
  it through could not read a neighbour instead: it would crash the process;
- a raw buffer (stride 0) element is in range when offset + size <= num_records: a dword
  straddling num_records reads 0 whole, the dword before it reads its value;
- a workgroup gets its group_segment_size rounded up to 512-byte granules (128 dwords, the
  unit of LDS_SIZE): inside the rounded allocation LDS keeps what was stored, past it reads
  give 0 and writes are dropped, as on the hardware.
"""
import numpy as np
import pytest

from core.isa.faults import KernelFault
from core.isa.layout import layout
from softgpu_shim.hsa_abi import Status
from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import Local, launch, loaded_kernel

TIERS = ["interp", "native"]

EDGES = r"""
kernel void read_to(global const uint *in, global uint *out, uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i] = in[i] + 1u;
}

kernel void read_shifted(global const uchar *in, global uint *out, uint n, uint shift) {
  uint i = get_global_id(0);
  if (i < n) out[i] = *(global const uint *)(in + 4 * i + shift);
}

kernel void write_to(global uint *buf, uint n) {
  uint i = get_global_id(0);
  if (i < n) buf[i] = i * 3u;
}

// A raw buffer V# (stride 0) over `buf` with `records` bytes: each lane loads the dword at
// byte 4 * lane and the byte at byte lane.
kernel void raw_buffer(global const uint *buf, global uint *dwords, global uint *bytes, uint records) {
  ulong base = (ulong)buf;
  uint4 desc = (uint4)((uint)base, (uint)(base >> 32) & 0xFFFFu, records, 23u << 12 | 0xFACu);
  uint i = get_global_id(0);
  uint d, b;
  __asm__ volatile("buffer_load_dword %0, %1, %2, 0 offen\n s_waitcnt vmcnt(0)"
                   : "=v"(d) : "v"(4 * i), "s"(desc));
  __asm__ volatile("buffer_load_ubyte %0, %1, %2, 0 offen\n s_waitcnt vmcnt(0)"
                   : "=v"(b) : "v"(i), "s"(desc));
  dwords[i] = d;
  bytes[i] = b;
}

// Uniform reads (scalar loads through a restrict const pointer) of in[0] .. in[n-1].
kernel void sum_uniform(global const uint *restrict in, global uint *restrict out, uint n) {
  uint acc = 0;
  for (uint k = 0; k < n; k++) acc += in[k] * (k + 1u);
  out[get_global_id(0)] = acc;
}

// Work-item 0 stores a marker at tile[index], work-item 1 reads it back after the barrier.
kernel void lds_probe(global uint *out, local uint *tile, uint index) {
  uint l = get_local_id(0);
  if (l == 0) tile[index] = 0xC0FFEEu;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 1) out[get_group_id(0)] = tile[index];
}
"""

N = 1000          # 32 waves of wave32 (the last one partial): later waves use the cached range


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl(EDGES, opt="-O2")


def run(session, code_object, tier, name, args, grid, group=64, at_end=None):
    """launch on `tier`; on the native tier, the kernel must have been translated."""
    if tier == "native":
        from core.isa.native.dispatch import Fallback, native_for
        kernel = loaded_kernel(session, code_object, name)
        assert not isinstance(native_for(session, kernel, layout(kernel)), Fallback), name
    with engine(tier):
        return launch(session, code_object, name, args, grid, group, at_end=at_end)


def faults(session, code_object, tier, name, args, grid, at_end=0):
    with pytest.raises(KernelFault) as caught:
        run(session, code_object, tier, name, args, grid, at_end=at_end)
    assert caught.value.status == Status.ERROR_MEMORY_APERTURE_VIOLATION
    return caught.value.report


@pytest.mark.parametrize("tier", TIERS)
def test_reads_up_to_the_last_dword_of_an_allocation(session, code_object, tier):
    data = np.arange(N, dtype=np.uint32) * 7
    _, out = run(session, code_object, tier, "read_to", [data, np.zeros(1024, np.uint32), np.uint32(N)],
                 1024, at_end=0)
    np.testing.assert_array_equal(out[:N], data + 1)
    assert not out[N:].any()


@pytest.mark.parametrize("tier", TIERS)
def test_a_read_one_dword_past_the_end_faults(session, code_object, tier):
    report = faults(session, code_object, tier, "read_to",
                    [np.arange(N, dtype=np.uint32), np.zeros(1024, np.uint32), np.uint32(N + 1)], 1024)
    assert report["lane"] == N % 32 and report["instruction"].startswith("global_load")


@pytest.mark.parametrize("tier", TIERS)
def test_an_unaligned_read_ending_at_the_last_byte_is_done(session, code_object, tier):
    data = np.arange(4 * N, dtype=np.uint32).astype(np.uint8)
    _, out = run(session, code_object, tier, "read_shifted",
                 [data, np.zeros(1024, np.uint32), np.uint32(N - 1), np.uint32(4)], 1024, at_end=0)
    # Lane i reads bytes 4i+4 .. 4i+7: the last lane ends exactly at byte 4N-1.
    want = data[4:].view(np.uint32)
    np.testing.assert_array_equal(out[:N - 1], want)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("shift", [1, 2, 3])
def test_a_read_straddling_the_end_faults(session, code_object, tier, shift):
    """The last lane's dword starts inside the buffer and ends 1-3 bytes past it."""
    report = faults(session, code_object, tier, "read_shifted",
                    [np.zeros(4 * N, np.uint8), np.zeros(1024, np.uint32), np.uint32(N), np.uint32(shift)],
                    1024)
    assert report["lane"] == (N - 1) % 32


@pytest.mark.parametrize("tier", TIERS)
def test_writes_up_to_the_last_dword_and_not_one_past(session, code_object, tier):
    buf, = run(session, code_object, tier, "write_to", [np.zeros(N, np.uint32), np.uint32(N)], 1024, at_end=0)
    np.testing.assert_array_equal(buf, np.arange(N, dtype=np.uint32) * 3)
    report = faults(session, code_object, tier, "write_to", [np.zeros(N, np.uint32), np.uint32(N + 1)], 1024)
    assert report["instruction"].startswith("global_store")


@pytest.mark.parametrize("tier", TIERS)
def test_scalar_reads_up_to_the_last_dword_and_not_one_past(session, code_object, tier):
    data = np.arange(N, dtype=np.uint32)
    _, out = run(session, code_object, tier, "sum_uniform", [data, np.zeros(64, np.uint32), np.uint32(N)],
                 64, at_end=0)
    want = int((data.astype(np.uint64) * np.arange(1, N + 1, dtype=np.uint64)).sum()) & 0xFFFFFFFF
    assert list(out) == [want] * 64
    report = faults(session, code_object, tier, "sum_uniform",
                    [data, np.zeros(64, np.uint32), np.uint32(N + 1)], 64)
    assert report["instruction"].startswith("s_load")


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("records", [4 * 40, 4 * 40 + 1, 4 * 40 + 2, 4 * 40 + 3])
def test_a_raw_buffer_element_is_in_range_only_whole(session, code_object, tier, records):
    data = np.arange(1, 65, dtype=np.uint32) * 0x01010101
    _, dwords, bytes_ = run(session, code_object, tier, "raw_buffer",
                            [data, np.zeros(64, np.uint32), np.zeros(64, np.uint32), np.uint32(records)], 64)
    lane = np.arange(64)
    np.testing.assert_array_equal(dwords, np.where(4 * lane + 4 <= records, data, 0))
    np.testing.assert_array_equal(bytes_, np.where(lane + 1 <= records, data.view(np.uint8)[:64], 0))


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("lds_bytes,allocated", [(4, 512), (511, 512), (512, 512), (513, 1024), (1024, 1024),
                                                 (1025, 1536), (65536, 65536)])
def test_lds_is_allocated_in_512_byte_granules(session, code_object, tier, lds_bytes, allocated):
    """The last dword of the rounded allocation keeps the marker; the dword after it reads 0
    (also at the agent's whole 64 KiB, where no LDS follows on any tier)."""
    last, past = allocated // 4 - 1, allocated // 4
    for index, want in ((last, 0xC0FFEE), (past, 0)):
        out, = run(session, code_object, tier, "lds_probe",
                   [np.full(4, 0xDEAD, np.uint32), Local(lds_bytes), np.uint32(index)], 256)
        assert list(out) == [want] * 4, (lds_bytes, index)
