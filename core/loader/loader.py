"""The session's loader: code object readers, executables, symbols and the kernel index.

Holds these invariants:
- every reader, executable, symbol, loaded code object and v2 code object is reachable
  only through its handle table, so stale or forged handles fail with their kind's status;
- the kernel index (kernel object address -> LoadedKernel) holds exactly the kernels of
  live executables, and only those may have a native entry bound in C (processor.c);
- closing the loader (hsa_shut_down) destroys every executable, returning its device memory.
"""
import os
import threading

import numpy as np

from core.errors import (InvalidArgument, InvalidCodeObject, InvalidCodeObjectReader, InvalidCodeSymbol,
                         InvalidExecutable, InvalidExecutableSymbol, InvalidFile)
from core.handles import (AddressTable, HandleTable, KIND_EXECUTABLE, KIND_LOADED_CODE_OBJECT, KIND_READER,
                          KIND_SYMBOL)
from core.loader.elf import CodeObject
from core.loader.executable import Executable
from softgpu_shim.hsa_abi import HsaDefaultFloatRoundingMode, HsaProfile


class CodeObjectReader:
    """The bytes of one code object and where they came from: the caller's memory
    (memory_base) or a file (memory_base 0); `uri` names it as ROCr's loaded code object URIs do."""

    def __init__(self, data, uri, memory_base=0):
        self.data = data
        self.uri = uri
        self.memory_base = memory_base
        self.handle = 0


class SerializedCodeObject:
    """A v2 hsa_code_object_t: ROCr copies the bytes and checks nothing until they are used."""

    def __init__(self, data):
        self.data = data
        # ROCr's handle is the address of its copy; loads report this copy as their storage.
        self.host_copy = np.frombuffer(data, dtype=np.uint8).copy()
        self.symbols = None           # code symbols, made on first use
        self._parsed = None

    @property
    def address(self):
        return int(self.host_copy.ctypes.data)

    def parsed(self):
        if self._parsed is None:
            self._parsed = CodeObject(self.data)
        return self._parsed


class Loader:
    def __init__(self, session):
        self.session = session
        self.readers = HandleTable(KIND_READER, InvalidCodeObjectReader)
        self.executables = HandleTable(KIND_EXECUTABLE, InvalidExecutable)
        self.symbols = HandleTable(KIND_SYMBOL, InvalidExecutableSymbol)
        self.loaded_code_objects = HandleTable(KIND_LOADED_CODE_OBJECT, InvalidCodeObject)
        self.code_objects = AddressTable(InvalidCodeObject)
        self.code_symbols = HandleTable(KIND_SYMBOL, InvalidCodeSymbol)
        self.kernels = {}
        self._lock = threading.Lock()

    # -- readers -----------------------------------------------------------------------
    def reader_from_memory(self, data, address):
        if not data:
            raise InvalidArgument("code object size is 0")
        uri = f"memory://{os.getpid()}#offset={address:#x}&size={len(data)}"
        return self._add_reader(CodeObjectReader(bytes(data), uri, memory_base=address))

    def reader_from_file(self, fd, offset=0, size=None):
        """A reader of `size` bytes at `offset` of an open file (size None: to the end)."""
        try:
            if size is None:
                size = os.fstat(fd).st_size - offset
            data = os.pread(fd, size, offset) if size > 0 else b""
        except (OSError, OverflowError, ValueError) as error:
            raise InvalidFile(f"cannot read file descriptor {fd}: {error}")
        if size < 0 or len(data) != size:
            raise InvalidFile(f"file descriptor {fd} has no {size} bytes at offset {offset}")
        path = self._fd_path(fd)
        uri = f"file://{path}#offset={offset}&size={size}"
        return self._add_reader(CodeObjectReader(data, uri))

    @staticmethod
    def _fd_path(fd):
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return f"/proc/self/fd/{fd}"

    def _add_reader(self, reader):
        reader.handle = self.readers.add(reader)
        return reader

    def reader(self, handle):
        return self.readers.get(handle)

    def destroy_reader(self, reader):
        self.readers.remove(reader.handle)

    # -- executables -------------------------------------------------------------------
    def create_executable(self, profile=HsaProfile.FULL,
                          rounding_mode=HsaDefaultFloatRoundingMode.DEFAULT):
        executable = Executable(self, profile, rounding_mode)
        executable.handle = self.executables.add(executable)
        return executable

    def executable(self, handle):
        return self.executables.get(handle)

    def destroy_executable(self, executable):
        self.executables.remove(executable.handle)
        executable.destroy()

    def symbol(self, handle):
        return self.symbols.get(handle)

    # -- kernels and loaded code objects ------------------------------------------------
    def register_kernels(self, lco):
        with self._lock:
            for kernel in lco.kernels.values():
                self.kernels[kernel.kernel_object] = kernel

    def unregister_kernels(self, lco):
        with self._lock:
            for kernel in lco.kernels.values():
                self.kernels.pop(kernel.kernel_object, None)
        for kernel in lco.kernels.values():
            # A native entry bound to it goes before its code does (waiting for its dispatches).
            self.session.native.sg_kernel_unbind(kernel.kernel_object)

    def all_loaded_code_objects(self):
        return [lco for _, executable in self.executables for lco in executable.loaded]

    def loaded_code_object(self, handle):
        return self.loaded_code_objects.get(handle)

    def code_object_at(self, device_address):
        """The loaded code object whose memory holds `device_address`, or None."""
        return next((lco for lco in self.all_loaded_code_objects() if lco.contains(device_address)), None)

    def close(self):
        for _, executable in self.executables:
            self.destroy_executable(executable)
        self.kernels.clear()
