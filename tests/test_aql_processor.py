"""Packet-processor behaviour seen from inside the process (the library's session in
this interpreter): a SoftGPU bug while processing a packet puts the queue in its error
state and is reported, instead of silently killing the processor thread."""
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


def publish_dispatch(session, queue):
    """A well-formed kernel dispatch packet (1 work-item) of some kernel object."""
    from core import signals
    index = queue.write_index()
    slot = session.arena.view(queue.ring_address + (index % queue.size) * 64, 64)
    packet = np.zeros(1, KERNEL_DISPATCH_PACKET)
    packet["setup"] = 1
    for axis in "xyz":
        packet[f"workgroup_size_{axis}"] = packet[f"grid_size_{axis}"] = 1
    packet["kernel_object"] = 0x1000
    slot[2:] = packet.view(np.uint8)[2:]
    slot[:2] = np.frombuffer(np.uint16(PacketType.KERNEL_DISPATCH).tobytes(), np.uint8)
    signals.store(queue.doorbell_signal, index)


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
