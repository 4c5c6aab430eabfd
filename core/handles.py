"""Packed 64-bit handles: kind | generation | index; and handles that are addresses.

Holds these invariants:
- a handle resolves only through the table of its kind, so a handle of one kind
  passed where another is expected fails with that kind's INVALID status;
- a removed handle never resolves again: its slot's generation moves on, and every
  runtime session starts its tables at a fresh generation, so handles kept across
  hsa_shut_down/hsa_init are stale too.
- an address handle (AddressTable) is the address of memory its object owns, as ROCr makes
  them where clients read through the handle, and no address is handed out twice in a
  process, so a removed or pre-shut-down one never resolves again either.
Layout: bits 56..63 kind tag, 32..55 generation, 0..31 slot index + 1 (0 is never valid).
"""
import itertools
import threading

_session_generations = itertools.count(1)

KIND_AGENT = 0x11
KIND_REGION = 0x12
KIND_POOL = 0x13
KIND_CACHE = 0x14
KIND_ISA = 0x15
KIND_WAVEFRONT = 0x16
KIND_EXECUTABLE = 0x17
KIND_SYMBOL = 0x18
KIND_READER = 0x19
KIND_SIGNAL_GROUP = 0x1A
KIND_LOADED_CODE_OBJECT = 0x1C
KIND_PROGRAM = 0x1D
# Signals are not in these tables: their handles are amd_signal_t addresses, as in ROCr,
# made and checked by the C fast path (softgpu_shim/native.h).

_GEN_MASK = 0xFFFFFF


class HandleTable:
    """Live objects of one kind, addressed by packed handles."""

    def __init__(self, kind, error):
        self.kind = kind
        self.error = error
        self._objects = []
        self._generations = []
        self._free = []
        self._start = next(_session_generations) & _GEN_MASK
        self._lock = threading.Lock()

    def add(self, obj):
        with self._lock:
            if self._free:
                index = self._free.pop()
                self._objects[index] = obj
            else:
                index = len(self._objects)
                self._objects.append(obj)
                self._generations.append(self._start)
            return (self.kind << 56) | (self._generations[index] << 32) | (index + 1)

    def _index(self, handle):
        handle = int(handle)
        index = (handle & 0xFFFFFFFF) - 1
        if (handle >> 56) != self.kind or not 0 <= index < len(self._objects):
            return None
        if self._objects[index] is None or self._generations[index] != (handle >> 32) & _GEN_MASK:
            return None
        return index

    def get(self, handle):
        """The live object behind `handle`, or the kind's error (InvalidAgent, ...)."""
        index = self._index(handle)
        if index is None:
            raise self.error(f"no live {self.error.__name__[7:].lower() or 'object'} with handle {int(handle):#x}")
        return self._objects[index]

    def remove(self, handle):
        with self._lock:
            index = self._index(handle)
            if index is None:
                raise self.error(f"no live object with handle {int(handle):#x}")
            obj = self._objects[index]
            self._objects[index] = None
            self._generations[index] = (self._generations[index] + 1) & _GEN_MASK
            self._free.append(index)
            return obj

    def __iter__(self):
        """(handle, object) for every live entry, in creation order of slots."""
        return iter([((self.kind << 56) | (self._generations[i] << 32) | (i + 1), obj)
                     for i, obj in enumerate(list(self._objects)) if obj is not None])

    def __len__(self):
        return sum(obj is not None for obj in self._objects)


class AddressTable:
    """Live objects whose handle is their `address`: ROCr's hsa_code_object_t is the address
    of its copy of the code object, and clients read the ELF through it (LLVM's OpenMP
    offloading plugin does)."""
    _issued = set()                      # every address handed out in this process
    _issued_lock = threading.Lock()

    def __init__(self, error):
        self.error = error
        self._objects = {}

    def add(self, make):
        """Add the object `make()` returns; made again while its address was ever issued (the
        rejects are held meanwhile, so the allocator cannot return their memory)."""
        rejected = []
        with self._issued_lock:
            obj = make()
            while obj.address in self._issued:
                rejected.append(obj)
                obj = make()
            self._issued.add(obj.address)
            self._objects[obj.address] = obj
        return obj.address

    def get(self, handle):
        obj = self._objects.get(int(handle))
        if obj is None:
            kind = self.error.__name__[7:].lower() or "object"
            raise self.error(f"no live {kind} at {int(handle):#x}")
        return obj

    def remove(self, handle):
        with self._issued_lock:
            obj = self._objects.pop(int(handle), None)
        if obj is None:
            raise self.error(f"no live object at {int(handle):#x}")
        return obj

    def __iter__(self):
        return iter(list(self._objects.items()))

    def __len__(self):
        return len(self._objects)
