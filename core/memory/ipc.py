"""IPC handles across processes: the memory of hsa_amd_ipc_memory_*, the pages of IPC signals.

An exported allocation moves into a memfd (Arena.share, contents kept); its handle names the
exporting process and the memfd's descriptor there, so another process of the same user
opens it through /proc/<pid>/fd/<fd> and maps the same pages into its own arena, where its
kernels reach them. hsa_amd_ipc_memory_t, eight uint32:
  [0] MAGIC  [1] exporter's pid  [2] the memfd's descriptor in the exporter
  [3] [4] the memfd's random 64-bit token (low, high), which its name carries too
  [5] size in pages  [6] 0: where ROCr marks fragments (SoftGPU never sub-allocates)
  [7] CRC-32 of words 0..6

Holds these invariants:
- a handle attaches while its exporter lives and keeps the allocation; afterwards (freed,
  exporter exited) attach answers INVALID_ARGUMENT, ROCr's status when KFD does not know a
  handle. A forged or garbled handle fails its magic or CRC before anything is opened, and
  a memfd whose name lacks the handle's token (a reused pid or descriptor) is refused;
- every attach maps the pages at a new address of this process's arena, as KFD imports do
  (in the exporting process too), and every GPU's kernels reach it there;
- an attached mapping stays valid whatever the exporter does afterwards, exiting included:
  the memfd lives as long as any process maps it;
- each attach is undone by one detach; detaching any other address is INVALID_ARGUMENT;
- create follows ROCr: len at most MAX_SHARE_BYTES, and ptr and len must be the start and
  the size (as hsa_amd_pointer_info reports them) of one HSA allocation or attached range.
"""
import os
import re
import secrets
import threading
import zlib

from core.errors import InvalidArgument
from core.memory.arena import PAGE

MAGIC = 0x50494753                  # "SGIP"
HANDLE_WORDS = 8
# ROCr refuses to share more than the thunk can describe (about 8 TB).
MAX_SHARE_BYTES = 0x7FFFFFFF000
_NAME = "softgpu-ipc-{token:016x}-node{node}-flags{flags}"
_LINK = re.compile(r"/memfd:softgpu-ipc-([0-9a-f]{16})-node(\d+)-flags(\d+) \(deleted\)")


class Attached:
    """What this process knows of memory it attached (Allocation.info["ipc"]): the memory
    API reports it as HSA_EXT_POINTER_TYPE_IPC memory of the exporting agent."""
    __slots__ = ("owner", "global_flags", "agents", "user_data")

    def __init__(self, owner, global_flags, agents):
        self.owner = owner              # the agent whose memory it is (by node), CPU if unknown here
        self.global_flags = global_flags
        self.agents = agents            # GPU agents it is mapped to
        self.user_data = 0


class Ipc:
    def __init__(self, session):
        self.arena = session.arena
        self.agents = session.agents
        self._attached = {}         # address -> Allocation attached here, not yet detached
        self._lock = threading.Lock()

    def close(self):
        """Attached ranges die with the arena (the session's last part to close)."""
        self._attached.clear()

    # -- handles ------------------------------------------------------------------------------

    def create(self, address, length, node, global_flags):
        """The eight words of a handle for the allocation starting at `address`, `length` bytes
        long (the allocation's own size; its owner's `node` and `global_flags` travel along)."""
        if length > MAX_SHARE_BYTES:
            raise InvalidArgument(f"{length} bytes: more than ROCr shares")
        alloc = self.arena.find(address)
        if alloc is None or alloc.address != address or not _exportable(alloc):
            raise InvalidArgument(f"{address:#x} is not the start of an HSA allocation")
        if length != alloc.size:
            raise InvalidArgument(f"length {length} is not the allocation's {alloc.size} bytes")
        return self.share(alloc, node, global_flags)

    def share(self, alloc, node, global_flags):
        """A handle for `alloc` (memory or an IPC signal's page), sharing it on first use."""
        token = _token_of(alloc) or secrets.randbits(64) | 1       # never 0: 0 means "not shared yet"
        fd = self.arena.share(alloc, _NAME.format(token=token, node=node, flags=global_flags))
        words = [MAGIC, os.getpid(), fd, token & 0xFFFFFFFF, token >> 32, alloc.size // PAGE, 0]
        return words + [_crc(words)]

    def map(self, words, agents=()):
        """A new allocation of this arena showing the handle's pages (for `agents`, or for
        every GPU); core.signals maps IPC signal pages with it."""
        fd, node, flags = self._open(words)
        owner = next((a for a in self.agents.all if a.node == node), self.agents.cpu)
        record = Attached(owner, flags, set(agents) or set(self.agents.gpus))
        return self.arena.map_shared(fd, words[5] * PAGE, owner=self, info={"ipc": record})

    def attach(self, words, agents=()):
        """hsa_amd_ipc_memory_attach: the address at which the handle's memory is now mapped."""
        alloc = self.map(words, agents)
        with self._lock:
            self._attached[alloc.address] = alloc
        return alloc.address

    def detach(self, address):
        with self._lock:
            alloc = self._attached.pop(address, None)
        if alloc is None:
            raise InvalidArgument(f"{address:#x} is not an attached IPC address")
        self.arena.free(address)

    def _open(self, words):
        """(descriptor, node, global flags) of the memfd a handle names, opened here."""
        if len(words) != HANDLE_WORDS or words[0] != MAGIC or words[7] != _crc(words[:7]) or words[6]:
            raise InvalidArgument("not an IPC handle of this runtime")
        pid, remote_fd, token, pages = words[1], words[2], words[3] | (words[4] << 32), words[5]
        try:
            fd = os.open(f"/proc/{pid}/fd/{remote_fd}", os.O_RDWR | os.O_CLOEXEC)
        except OSError as error:
            raise InvalidArgument(f"the IPC handle's memory is gone (its exporter freed it or exited): "
                                  f"{error.strerror}") from None
        match = _LINK.fullmatch(os.readlink(f"/proc/self/fd/{fd}"))
        if match is None or int(match.group(1), 16) != token or os.fstat(fd).st_size != pages * PAGE:
            os.close(fd)
            raise InvalidArgument("the IPC handle's exporter holds other memory there now")
        return fd, int(match.group(2)), int(match.group(3))


def _exportable(alloc):
    return "memory" in alloc.info or "ipc" in alloc.info


def _token_of(alloc):
    """The token of a range already shared (an export again, or memory attached here)."""
    if alloc.shared_fd is None:
        return None
    match = _LINK.fullmatch(os.readlink(f"/proc/self/fd/{alloc.shared_fd}"))
    return int(match.group(1), 16) if match else None


def _crc(words):
    return zlib.crc32(b"".join(int(w).to_bytes(4, "little") for w in words))
