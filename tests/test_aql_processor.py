"""Packet-processor behaviour seen from inside the process (the library's session in
this interpreter): a SoftGPU bug while processing a packet puts the queue in its error
state and is reported, instead of silently killing the processor thread; a kernel with a
native entry bound in C runs through it without Python, and its faults are reported as
the interpreter's are."""
import ctypes
import json
import time

import numpy as np
import pytest

from core.aql import processor
from softgpu_shim.hsa_abi import KERNEL_DISPATCH_PACKET, PacketType, Status
from tests.support.paths import LIBRARY


@pytest.fixture
def session(monkeypatch, tmp_path):
    monkeypatch.setenv("SOFTGPU_TRACE", str(tmp_path / "trace.jsonl"))
    monkeypatch.setenv("SOFTGPU_QUIET", "1")
    hsa = ctypes.CDLL(LIBRARY)
    assert hsa.hsa_init() == 0
    from core import runtime
    yield runtime.require()
    assert hsa.hsa_shut_down() == 0


def publish_dispatch(session, queue, kernel_object=0x1000, completion=0, grid=(1, 1, 1),
                     workgroup=(1, 1, 1), kernarg=0):
    """A well-formed kernel dispatch packet (one work-item unless told); returns its index."""
    from core import signals
    hsa = ctypes.CDLL(LIBRARY)
    hsa.hsa_queue_add_write_index_relaxed.restype = ctypes.c_uint64
    index = hsa.hsa_queue_add_write_index_relaxed(ctypes.c_void_p(queue.address), ctypes.c_uint64(1))
    slot = session.arena.view(queue.ring_address + (index % queue.size) * 64, 64)
    packet = np.zeros(1, KERNEL_DISPATCH_PACKET)
    packet["setup"] = 1 + (grid[2] > 1 or grid[1] > 1) + (grid[2] > 1)
    for axis, size, group in zip("xyz", grid, workgroup):
        packet[f"workgroup_size_{axis}"], packet[f"grid_size_{axis}"] = group, size
    packet["kernel_object"] = kernel_object
    packet["kernarg_address"] = kernarg
    packet["completion_signal"] = completion
    slot[2:] = packet.view(np.uint8)[2:]
    slot[:2] = np.frombuffer(np.uint16(PacketType.KERNEL_DISPATCH).tobytes(), np.uint8)
    signals.store(queue.doorbell_signal, index)
    return index


def test_an_internal_error_stops_the_queue_and_is_reported(session, monkeypatch, tmp_path):
    def broken_dispatch(self, event):
        raise ValueError("dispatch bug")
    monkeypatch.setattr(processor.PacketProcessor, "_dispatch", broken_dispatch)
    reported = []
    queue = session.queues.create(session.agents.gpus[0].handle, 64, 0, error_callback=reported.append)
    publish_dispatch(session, queue)
    deadline = time.monotonic() + 10
    while not reported and time.monotonic() < deadline:
        time.sleep(0.01)
    assert reported == [Status.ERROR]
    assert queue.inactive and queue.error_status == Status.ERROR
    events = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert any(e["event"] == "internal" and "dispatch bug" in e["error"] for e in events)
    session.queues.destroy(queue.address)


# sg_dispatch_entry (softgpu_shim/native.h): kernel, launch, stop flag, fault -> an
# SG_ENTRY_* outcome (core/isa/native/runner.h).
ENTRY = ctypes.CFUNCTYPE(ctypes.c_uint32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
KERNEL_OBJECT_OFFSET = KERNEL_DISPATCH_PACKET.fields["kernel_object"][1]


def outcome(name):
    from core.native import lib
    return getattr(lib, "SG_ENTRY_" + name)


def bind(kernel_object, entry, handle):
    from core.native import ffi, lib
    address = ctypes.cast(entry, ctypes.c_void_p).value
    assert lib.sg_kernel_bind(kernel_object, ffi.cast("sg_dispatch_entry", address), ffi.cast("void *", handle)) == 0


def test_a_kernel_with_a_native_entry_runs_without_python(session, monkeypatch):
    from core import signals
    from core.loader import find_kernel
    from core.harness.launch import kernel_objects
    from tests.support.kernels import compile_opencl
    monkeypatch.delenv("SOFTGPU_TRACE")     # tracing sends every dispatch through Python
    monkeypatch.setenv("SOFTGPU_ENGINE", "native")
    kernel = find_kernel(session, kernel_objects(session, compile_opencl("aql_kernels.cl"))["empty"])
    calls = []

    def native(handle, launch, stop, fault):
        from core.native import ffi
        launch = ffi.cast("sg_launch *", launch)
        calls.append((handle, ctypes.c_uint64.from_address(launch.packet + KERNEL_OBJECT_OFFSET).value,
                      launch.dispatch_id, tuple(launch.grid), tuple(launch.workgroup), launch.kernarg,
                      launch.queue, ctypes.c_int.from_address(stop).value))
        return outcome("RAN")
    entry = ENTRY(native)
    bind(kernel.kernel_object, entry, 1234)
    python_dispatch = processor.PacketProcessor._dispatch

    def no_python(self, event):
        raise AssertionError("the Python path ran a kernel with a native entry")
    monkeypatch.setattr(processor.PacketProcessor, "_dispatch", no_python)
    errors = []
    queue = session.queues.create(session.agents.gpus[0].handle, 64, 0, error_callback=errors.append)
    done = session.signals.create(2)
    first = publish_dispatch(session, queue, kernel.kernel_object, done)
    # The launch the entry gets is the packet's, axis by axis (sizes all different).
    second = publish_dispatch(session, queue, kernel.kernel_object, done, grid=(6, 4, 2),
                              workgroup=(3, 2, 1), kernarg=0x5000)
    assert signals.wait(done, signals.SignalCondition.EQ, 0, 10_000_000_000) == (0, True)
    assert calls == [(1234, kernel.kernel_object, first, (1, 1, 1), (1, 1, 1), 0x0, queue.address, 0),
                     (1234, kernel.kernel_object, second, (6, 4, 2), (3, 2, 1), 0x5000, queue.address, 0)]
    assert errors == []

    # SOFTGPU_ENGINE=interp, set after the kernel was bound, sends it through Python.
    monkeypatch.setattr(processor.PacketProcessor, "_dispatch", python_dispatch)
    monkeypatch.setenv("SOFTGPU_ENGINE", "interp")
    signals.store(done, 1)
    publish_dispatch(session, queue, kernel.kernel_object, done)
    assert signals.wait(done, signals.SignalCondition.EQ, 0, 10_000_000_000) == (0, True)
    assert len(calls) == 2 and errors == []

    # Unbound, the kernel runs through Python (the interpreter) again, whatever the engine.
    monkeypatch.setenv("SOFTGPU_ENGINE", "native")
    session.native.sg_kernel_unbind(kernel.kernel_object)
    signals.store(done, 1)
    publish_dispatch(session, queue, kernel.kernel_object, done)
    assert signals.wait(done, signals.SignalCondition.EQ, 0, 10_000_000_000) == (0, True)
    assert len(calls) == 2 and errors == []

    # Destroying its executable unbinds it: the kernel object is then no kernel at all.
    bind(kernel.kernel_object, entry, 1234)
    session.loader.destroy_executable(kernel.code_object.executable)
    publish_dispatch(session, queue, kernel.kernel_object, done)
    deadline = time.monotonic() + 10
    while not errors and time.monotonic() < deadline:
        time.sleep(0.01)
    assert errors == [Status.ERROR_INVALID_CODE_OBJECT] and len(calls) == 2
    session.queues.destroy(queue.address)
    session.signals.destroy(done)


def test_a_native_entry_fault_is_reported_as_the_interpreter_reports_one(session, monkeypatch, capfd):
    from core.isa.disasm import format_instruction
    from core.isa.layout import layout
    from core.isa.native import runner_layout
    from core.isa.native.dispatch import native_for
    from core.native import ffi
    from tests.support.kernels import compile_opencl
    from tests.support.launch import loaded_kernel
    monkeypatch.delenv("SOFTGPU_TRACE")
    monkeypatch.delenv("SOFTGPU_QUIET")
    monkeypatch.setenv("SOFTGPU_ENGINE", "native")
    kernel = loaded_kernel(session, compile_opencl("aql_kernels.cl"), "empty")
    program = native_for(session, kernel, layout(kernel)).program
    pc = max(program.instructions)          # the kernel's last instruction: an entry's PCs are
    instruction = format_instruction(program.instructions[pc])  # relative to the code base

    def faulting(handle, launch, stop, fault):
        report = ffi.cast("sg_fault *", fault)
        report.native_code = runner_layout.SG_FAULT_MEMORY
        report.pc, report.address, report.lane, report.wave = pc - program.base, 0x10, 3, 1
        return outcome("FAULTED")
    entry = ENTRY(faulting)
    bind(kernel.kernel_object, entry, 0)
    errors = []
    queue = session.queues.create(session.agents.gpus[0].handle, 64, 0, error_callback=errors.append)
    done = session.signals.create(1)
    publish_dispatch(session, queue, kernel.kernel_object, done)
    deadline = time.monotonic() + 10
    while not errors and time.monotonic() < deadline:
        time.sleep(0.01)
    assert errors == [Status.ERROR_MEMORY_APERTURE_VIOLATION]
    assert queue.error_status == Status.ERROR_MEMORY_APERTURE_VIOLATION
    from core import signals
    assert signals.load(done) == 1                    # a faulting packet never completes
    stderr = capfd.readouterr().err
    assert "kernel=empty" in stderr and "address=0x10" in stderr and "lane=3" in stderr
    assert f"pc={pc:#x}" in stderr and instruction in stderr
    session.native.sg_kernel_unbind(kernel.kernel_object)
    session.queues.destroy(queue.address)
    session.signals.destroy(done)


def test_destroying_the_queue_asks_a_native_entry_to_stop(session, monkeypatch):
    """As the interpreter's dispatch does, a native one ends early once its queue goes away
    (INFO_BREAK), and its packet is neither retired nor completed."""
    from core import signals
    from tests.support.kernels import compile_opencl
    from tests.support.launch import loaded_kernel
    monkeypatch.delenv("SOFTGPU_TRACE")
    monkeypatch.setenv("SOFTGPU_ENGINE", "native")
    kernel = loaded_kernel(session, compile_opencl("aql_kernels.cl"), "empty")
    started, seen = [], []

    def endless(handle, launch, stop, fault):
        started.append(True)
        while not ctypes.c_int.from_address(stop).value:
            time.sleep(0.001)
        seen.append(True)
        return outcome("STOPPED")
    entry = ENTRY(endless)
    bind(kernel.kernel_object, entry, 0)
    queue = session.queues.create(session.agents.gpus[0].handle, 64, 0)
    done = session.signals.create(1)
    publish_dispatch(session, queue, kernel.kernel_object, done)
    deadline = time.monotonic() + 10
    while not started and time.monotonic() < deadline:
        time.sleep(0.01)
    session.queues.destroy(queue.address)
    assert started and seen
    assert signals.load(done) == 1
    session.native.sg_kernel_unbind(kernel.kernel_object)
    session.signals.destroy(done)
