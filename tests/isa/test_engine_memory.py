"""Memory as kernels see it: LDS per workgroup with barriers, atomics equal to a serial
order, scratch, flat addresses through the apertures, registered host memory."""
import numpy as np
import pytest

from core.isa.interp import atomics
from core.isa.faults import KernelFault
from core.isa.launch import run_dispatch
from tests.support.launch import Local, launch
from softgpu_shim.hsa_abi import Status
from tests.support.kernels import compile_opencl

REVERSE = """
kernel void reverse(global const int *in, global int *out, local int *tile) {
  size_t l = get_local_id(0), n = get_local_size(0);
  int v = in[get_global_id(0)];
  for (int k = 0; k < (int)(l / 32); k++) v = v * 3 + 1;   // later waves arrive later
  tile[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[n - 1 - l] + (int)get_group_id(0) * 1000;
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("wave64", [False, True])
def test_lds_is_per_workgroup_and_shared_by_its_waves(session, opt, wave64):
    # 256 work-items per group: 8 (or 4) waves must all store before any loads.
    co = compile_opencl(REVERSE, opt=opt, wave64=wave64)
    data = np.arange(1024, dtype=np.int32)
    _, out, = launch(session, co, "reverse", [data, np.zeros(1024, np.int32), Local(256 * 4)], 1024, 256)
    stored = data.astype(np.int64)
    for k in range(8):
        stored = np.where(np.arange(1024) % 256 // 32 > k, stored * 3 + 1, stored)
    stored = (stored & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    want = stored.reshape(4, 256)[:, ::-1] + np.arange(4)[:, None] * 1000
    np.testing.assert_array_equal(out, want.reshape(-1))


EARLY_EXIT = """
kernel void early_exit(global int *out, local int *tile) {
  size_t l = get_local_id(0);
  if (l >= 32) { out[get_global_id(0)] = -1; return; }   // the second wave ends here
  tile[l] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[31 - l];
}
"""


def test_a_wave_that_ended_does_not_hold_its_workgroups_barrier(session):
    # Two wave32 waves per group; the one that returns must not leave the other waiting.
    co = compile_opencl(EARLY_EXIT, opt="-O2")
    out, = launch(session, co, "early_exit", [np.zeros(128, np.int32), Local(32 * 4)], 128, 64)
    want = np.where(np.arange(128) % 64 < 32, 31 - np.arange(128) % 64, -1)
    np.testing.assert_array_equal(out, want)


COUNTER = """
kernel void take(global uint *counter, global uint *slot, local uint *local_counter) {
  if (get_local_id(0) == 0) *local_counter = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  slot[2 * get_global_id(0)] = atomic_inc(counter);
  slot[2 * get_global_id(0) + 1] = atomic_add(local_counter, 3u);
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_atomics_on_one_address_hand_out_every_value_once(session, opt):
    co = compile_opencl(COUNTER, opt=opt)
    n, group = 4096, 128
    counter, slots = launch(session, co, "take", [np.zeros(1, np.uint32), np.zeros(2 * n, np.uint32),
                                                  Local(4)], n, group)
    assert counter[0] == n
    np.testing.assert_array_equal(np.sort(slots[0::2]), np.arange(n))
    per_group = np.sort(slots[1::2].reshape(-1, group), axis=1)
    np.testing.assert_array_equal(per_group, np.broadcast_to(np.arange(group) * 3, per_group.shape))


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("op", ["add", "sub", "umax", "umin", "smax", "smin", "and", "or", "xor",
                                "inc", "dec", "cmpswap", "swap"])
def test_vectorized_atomics_equal_the_serial_loop(op, dtype):
    rng = np.random.default_rng(3)
    bits = np.dtype(dtype).itemsize * 8
    index = rng.integers(0, 5, 300)
    data = rng.integers(0, 1 << bits, 300, dtype=np.uint64).astype(dtype)
    if op in ("inc", "dec"):
        data = rng.integers(0, 40, 300).astype(dtype)
    compare = rng.integers(0, 3, 300).astype(dtype)
    memory = rng.integers(0, 3, 5).astype(dtype)
    serial_memory, serial_old = memory.copy(), []
    for i, d, c in zip(index, data, compare):
        old = serial_memory[i]
        serial_old.append(old)
        serial_memory[i] = atomics.OPS[op](np.array([old]), np.array([d]), np.array([c]))[0]
    old = atomics.apply(memory, index, op, data, compare if op == "cmpswap" else None)
    np.testing.assert_array_equal(memory, serial_memory)
    np.testing.assert_array_equal(old, serial_old)


def _interfering_compare_exchange(bump):
    """apply_shared's compare_exchange, with another thread's atomic add of `bump` landing on
    each word between the first read and the first compare-and-swap (which then fails)."""
    bumped = set()

    def compare_exchange(memory, words, expected, desired):
        for w in set(words.tolist()) - bumped:
            memory[w] += bump
            bumped.add(w)
        swapped = memory[words] == expected
        memory[words[swapped]] = desired[swapped]
        expected[~swapped] = memory[words[~swapped]]
        return swapped
    return compare_exchange


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("op", ["add", "umax", "xor", "inc", "cmpswap", "swap"])
def test_atomics_beside_other_threads_atomics_lose_none_of_either(op, dtype):
    """Inside the native tier's callouts, lanes apply after whatever another thread's host
    atomic stored in between: its add is kept and the lanes see it (serial order: it, then them)."""
    rng = np.random.default_rng(5)
    index = rng.integers(0, 5, 300)
    data = rng.integers(0, 40, 300).astype(dtype)
    compare = rng.integers(0, 8, 300).astype(dtype)
    compare = compare if op == "cmpswap" else None
    memory = rng.integers(0, 3, 5).astype(dtype)
    serial_memory = memory + dtype(7)                  # the other thread's add came first
    serial_old = atomics.apply(serial_memory, index, op, data, compare)
    old = atomics.apply_shared(memory, index, op, data, compare, _interfering_compare_exchange(dtype(7)))
    np.testing.assert_array_equal(memory, serial_memory)
    np.testing.assert_array_equal(old, serial_old)


GENERIC = """
void bump(int *p, int k) { p[k] += 1; }     // a generic pointer: flat instructions
kernel void through_generic(global int *g, local int *l) {
  int priv[4] = {0, 0, 0, 0};
  size_t i = get_global_id(0);
  l[get_local_id(0)] = 10;
  barrier(CLK_LOCAL_MEM_FENCE);
  bump(g, i);
  bump(l, get_local_id(0));
  bump(priv, i & 3);
  g[i] += 100 * l[get_local_id(0)] + priv[i & 3] * 7;
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_flat_pointers_reach_global_lds_and_scratch_through_the_apertures(session, opt):
    co = compile_opencl(GENERIC, opt=opt)
    g, = launch(session, co, "through_generic", [np.arange(64, dtype=np.int32), Local(64 * 4)], 64, 64)
    np.testing.assert_array_equal(g, np.arange(64) + 1 + 1100 + 7)


READ_HOST = """
kernel void twice(global const int *in, global int *out) {
  out[get_global_id(0)] = 2 * in[get_global_id(0)];
}
"""


def _dispatch_with_pointer(session, co, name, pointer, n):
    """Run `name`(pointer, out) with `out` in the arena; return out."""
    from tests.support.launch import loaded_kernel
    from softgpu_shim.hsa_abi import KERNEL_DISPATCH_PACKET
    kernel = loaded_kernel(session, co, name)
    arena = session.arena
    out = arena.allocate(4 * n)
    args = arena.allocate(256)
    packet = arena.allocate(64)
    try:
        arena.view(args.address, 16).view(np.uint64)[:] = [pointer, out.address]
        fields = np.zeros(1, KERNEL_DISPATCH_PACKET)
        fields["setup"], fields["workgroup_size_x"], fields["grid_size_x"] = 1, 32, n
        fields["workgroup_size_y"] = fields["workgroup_size_z"] = 1
        fields["grid_size_y"] = fields["grid_size_z"] = 1
        arena.view(packet.address, 64)[:] = fields.view(np.uint8)
        run_dispatch(session, kernel, grid=(n, 1, 1), workgroup=(32, 1, 1),
                     kernarg_address=args.address, packet_address=packet.address)
        return arena.view(out.address, 4 * n).view(np.int32).copy()
    finally:
        for block in (out, args, packet):
            arena.free(block.address)


def test_registered_host_memory_is_reachable_and_unregistered_is_a_fault(session):
    co = compile_opencl(READ_HOST, opt="-O2")
    host = np.arange(64, dtype=np.int32) + 5                 # numpy memory, outside the arena
    address = host.ctypes.data
    with pytest.raises(KernelFault) as caught:
        _dispatch_with_pointer(session, co, "twice", address, 64)
    assert caught.value.status == Status.ERROR_MEMORY_APERTURE_VIOLATION
    assert caught.value.report["address"] == address
    session.memory.register(address, host.nbytes)
    try:
        np.testing.assert_array_equal(_dispatch_with_pointer(session, co, "twice", address, 64), 2 * host)
    finally:
        session.memory.deregister(address, host.nbytes)
