"""AMDGPU code objects inside the files they ship in: plain code objects, clang offload
bundles, and HIP fat binaries in host executables and shared libraries.

Holds these invariants:
- a file is looked at by what it holds, never by its name: an AMDGPU ELF (EM_AMDGPU) is one
  code object; a clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`) holds one per device entry;
  a host ELF holds the bundles of its `.hip_fatbin` section (several with -fgpu-rdc);
  anything else holds none;
- a code object found is named by its file, byte offset and size there, so a worker process
  reads it again from the file alone (`Embedded.read`), and by where it sits (the bundle
  entry's triple), for people;
- what is found but cannot be read is reported as Unreadable with the reason, never dropped:
  a compressed bundle (`CCOB`, hipcc --offload-compress; SoftGPU has no decompressor), a
  bundle entry that is no ELF code object, a bundle whose entries run past its file.
"""
import io
import struct
from dataclasses import dataclass

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

ELF_MAGIC = b"\x7fELF"
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
COMPRESSED_BUNDLE_MAGIC = b"CCOB"
# After the magic: the entry count, then per entry its offset (from the bundle's start), size
# and triple length, then the triple (clang's OffloadBundler.cpp, uncompressed format).
_COUNT = struct.Struct("<Q")
_ENTRY = struct.Struct("<QQQ")
HIP_FATBIN_SECTION = ".hip_fatbin"


@dataclass(frozen=True)
class Embedded:
    """A code object: `size` bytes at `offset` of the file at `path`."""
    path: str
    offset: int
    size: int
    where: str              # "ELF", or the bundle entry's triple and the section it lies in

    def read(self):
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            return f.read(self.size)

    def __str__(self):
        return self.path if self.where == "ELF" else f"{self.path} [{self.where}]"


@dataclass(frozen=True)
class Unreadable:
    """Something that holds code objects SoftGPU cannot read, and why."""
    path: str
    offset: int
    reason: str

    def __str__(self):
        return f"{self.path} (offset {self.offset:#x}): {self.reason}"


def code_objects(path):
    """The Embedded and Unreadable code objects in the file at `path` (empty: it holds none).
    Raises OSError when the file cannot be read."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(ELF_MAGIC):
        return _in_elf(path, data)
    if data.startswith((BUNDLE_MAGIC, COMPRESSED_BUNDLE_MAGIC)):
        return _bundles(path, data, 0, len(data), "bundle")
    return []


def _in_elf(path, data):
    try:
        elf = ELFFile(io.BytesIO(data))
        if elf["e_machine"] == "EM_AMDGPU":
            return [Embedded(path, 0, len(data), "ELF")]
        section = elf.get_section_by_name(HIP_FATBIN_SECTION)
    except (ELFError, struct.error) as error:
        return [Unreadable(path, 0, f"a damaged ELF file: {error}")]
    if section is None or section["sh_type"] == "SHT_NOBITS":
        return []
    start = section["sh_offset"]
    return _bundles(path, data, start, start + section["sh_size"], HIP_FATBIN_SECTION)


def _bundles(path, data, start, end, container):
    """The code objects of the bundles laid one after another in data[start:end]."""
    found = []
    position = _next_bundle(data, start, end)
    while position is not None:
        if data.startswith(COMPRESSED_BUNDLE_MAGIC, position):
            found.append(Unreadable(path, position, "a compressed offload bundle (CCOB): SoftGPU "
                                    "cannot read those; build without --offload-compress"))
            position = _next_bundle(data, position + len(COMPRESSED_BUNDLE_MAGIC), end)
            continue
        entries, bundle_end = _bundle(path, data, position, end, container)
        found += entries
        position = _next_bundle(data, bundle_end, end)
    return found


def _next_bundle(data, start, end):
    """Where the next bundle (either kind) starts in data[start:end], or None."""
    hits = [at for magic in (BUNDLE_MAGIC, COMPRESSED_BUNDLE_MAGIC)
            if (at := data.find(magic, start, end)) >= 0]
    return min(hits) if hits else None


def _bundle(path, data, position, end, container):
    """(code objects, end offset) of the uncompressed bundle at `position`."""
    try:
        cursor = position + len(BUNDLE_MAGIC)
        (count,) = _COUNT.unpack_from(data, cursor)
        cursor += _COUNT.size
        entries, bundle_end = [], cursor
        for _ in range(count):
            offset, size, triple_size = _ENTRY.unpack_from(data, cursor)
            cursor += _ENTRY.size
            triple = data[cursor:cursor + triple_size].decode("ascii", "replace")
            cursor += triple_size
            entries.append((position + offset, size, triple))
            bundle_end = max(bundle_end, cursor, position + offset + size)
    except struct.error:
        return [Unreadable(path, position, "a truncated offload bundle header")], end
    if bundle_end > end:
        return [Unreadable(path, position, "an offload bundle whose entries run past its end")], end
    found = []
    for offset, size, triple in entries:
        if "-amdgcn-" not in triple or size == 0:
            continue        # the host entry (empty), and other devices' code
        where = f"{container} {triple}"
        if data.startswith(ELF_MAGIC, offset):
            found.append(Embedded(path, offset, size, where))
        else:
            found.append(Unreadable(path, offset, f"bundle entry {triple} is not an ELF code object"))
    return found, bundle_end
