"""IPC memory handles (hsa_amd_ipc_memory_*) within one process.

SoftGPU's device memory is an anonymous mapping of this process, so no other process
can map it. A handle names an allocation of this session; attaching it in this process
returns the allocation's own address.

Holds four invariants:
- a handle resolves only in the process and session that created it (it carries the
  pid and a random session nonce); anywhere else attach answers INVALID_ARGUMENT,
  ROCr's status when KFD does not know the handle;
- a handle attaches only while the allocation it was made for is live: once freed,
  even if the address is handed out again, attach fails;
- every attach is undone by one detach; detaching an address with no attach left is
  INVALID_ARGUMENT, as ROCr answers when KFD has no such import;
- an attach does not keep memory alive: the exporter freeing it ends the import
  (KFD would keep the buffer until the last detach; one process cannot, since the
  attached address is the exporter's).
"""
import os
import secrets
import threading

from core.errors import InvalidArgument

PAGE = 4096
MAGIC = 0x50494753                 # "SGIP": a SoftGPU IPC handle
# ROCr refuses to share more than the thunk can describe (about 8 TB).
MAX_SHARE_BYTES = 0x7FFFFFFF000


class Ipc:
    def __init__(self, session):
        self.arena = session.arena
        self.nonce = secrets.randbits(32)
        self._exports = {}         # serial -> the exported arena Allocation
        self._attached = {}        # address -> attaches not yet detached
        self._serial = 0
        self._lock = threading.Lock()

    def close(self):
        self._exports.clear()
        self._attached.clear()

    def create(self, address, length):
        """The 8 dwords of a handle for the HSA allocation starting at `address`.

        `length` is the allocation's size, or any size that rounds up to it in pages
        (clients pass what they asked for; allocations are whole pages).
        """
        if length > MAX_SHARE_BYTES:
            raise InvalidArgument(f"{length} bytes: more than ROCr shares")
        alloc = self.arena.find(address)
        if alloc is None or alloc.address != address or "memory" not in alloc.info:
            raise InvalidArgument(f"{address:#x} is not the start of an HSA allocation")
        if -(-length // PAGE) * PAGE != alloc.size:
            raise InvalidArgument(f"length {length} does not match the allocation's {alloc.size} bytes")
        with self._lock:
            self._serial += 1
            self._exports[self._serial] = alloc
            serial = self._serial
        return [MAGIC, os.getpid() & 0xFFFFFFFF, self.nonce, serial,
                address & 0xFFFFFFFF, address >> 32, length & 0xFFFFFFFF, length >> 32]

    def attach(self, words):
        """The address through which the handle's memory is reached in this process."""
        magic, pid, nonce, serial = words[:4]
        if (magic, pid, nonce) != (MAGIC, os.getpid() & 0xFFFFFFFF, self.nonce):
            raise InvalidArgument("the IPC handle was not created by this process's runtime session")
        with self._lock:
            alloc = self._exports.get(serial)
            if alloc is None or self.arena.find(alloc.address) is not alloc:
                self._exports.pop(serial, None)
                raise InvalidArgument("the IPC handle's allocation has been freed")
            self._attached[alloc.address] = self._attached.get(alloc.address, 0) + 1
            return alloc.address

    def detach(self, address):
        with self._lock:
            count = self._attached.get(address, 0)
            if count == 0:
                raise InvalidArgument(f"{address:#x} is not an attached IPC address")
            if count == 1:
                del self._attached[address]
            else:
                self._attached[address] = count - 1
