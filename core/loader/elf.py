"""Parsing AMDGPU code objects (ELF64, AMDHSA OS ABI, code object v3 to v6) with pyelftools.

Holds these invariants:
- a CodeObject exists only for bytes that passed every check loading relies on: ELF64
  little-endian shared object, EM_AMDGPU, the AMDHSA OS ABI and a known ABI version, a known
  machine, loadable segments inside the file in ascending non-overlapping order, symbols and
  relocations that point inside those segments, and metadata notes (all of them, merged)
  naming a descriptor symbol for every kernel. Anything else raises InvalidCodeObject,
  whatever the corruption;
- parsing is pure: nothing here touches device memory, so a refused object leaves no trace;
- the records (segments, symbols, relocations) are plain tuples detached from pyelftools,
  so the ELF stream is not needed after parsing;
- an object parsed before (these bytes, this parser) is not parsed again: what its parse found
  is recalled from the disk cache (core/loader/parse_cache.py) and pyelftools is not imported;
  the checks that did not need pyelftools run again, and the derived fields (target, layout,
  kernels by symbol) are derived again by the same code.
"""
import io
import struct
from typing import NamedTuple

from core.errors import InvalidCodeObject, OutOfResources
from core import target
from core.loader import metadata, parse_cache
from core.loader.relocations import R_AMDGPU_ABS64, R_AMDGPU_NONE, R_AMDGPU_RELATIVE64, WIDTH as RELOCATION_WIDTH

EM_AMDGPU = 224
ELFOSABI_AMDGPU_HSA = 64
EI_OSABI, EI_ABIVERSION = 7, 8
SHF_WRITE = 0x1
PF_X = 0x1
SHN_UNDEF = 0
# A code object spans a few pages; more than this is a corrupt p_memsz, and the arena
# would commit it (ROCr answers an allocation it cannot make with OUT_OF_RESOURCES).
MAX_LOAD_SPAN = 1 << 30
KERNEL_DESCRIPTOR_SUFFIX = ".kd"


def _parse_errors():
    """What pyelftools (and the struct/construct layers under it) raises on malformed input, as
    hypothesis found it over tens of thousands of mutated objects; anything else is a bug here.
    Imported when a parse needs it: recalling a parse does not."""
    from elftools.common.exceptions import ELFError
    from elftools.construct.core import ConstructError
    return ELFError, ConstructError, struct.error, ValueError, OverflowError


class Segment(NamedTuple):
    vaddr: int
    memsz: int
    offset: int
    filesz: int
    align: int
    flags: int


class Symbol(NamedTuple):
    name: str
    value: int
    size: int
    type: str           # pyelftools' STT_* name
    bind: str           # STB_*
    defined: bool
    writable: bool      # its section is SHF_WRITE
    align: int          # its section's sh_addralign


class Relocation(NamedTuple):
    offset: int         # virtual address of the patched bytes
    type: int           # R_AMDGPU_*
    symbol: int         # index into CodeObject.symbols (0: none)
    addend: int


class CodeObject:
    """A parsed, checked code object. `data` is the exact ELF bytes."""

    def __init__(self, data):
        self.data = bytes(data)
        self._identify()
        key = parse_cache.key(self.data)
        records = parse_cache.recall(key)
        if records is not None:
            self._adopt(records)
            return
        try:
            self._parse()
        except _parse_errors() as error:
            raise InvalidCodeObject(f"malformed ELF: {type(error).__name__}: {error}")
        parse_cache.remember(key, self._records())

    def _identify(self):
        """The checks of the ELF identification bytes, which need no parser."""
        data = self.data
        if len(data) < 64 or data[:4] != b"\x7fELF":
            raise InvalidCodeObject("not an ELF file")
        if data[4] != 2 or data[5] != 1:
            raise InvalidCodeObject("not a little-endian ELF64 file")
        if data[EI_OSABI] != ELFOSABI_AMDGPU_HSA:
            raise InvalidCodeObject(f"OS ABI {data[EI_OSABI]} is not AMDGPU HSA ({ELFOSABI_AMDGPU_HSA})")
        self.abi_version = data[EI_ABIVERSION]
        if self.abi_version not in target.CODE_OBJECT_VERSIONS:
            raise InvalidCodeObject(f"unsupported AMDHSA ABI version {self.abi_version}")
        self.version = target.CODE_OBJECT_VERSIONS[self.abi_version]

    def _parse(self):
        from elftools.elf.elffile import ELFFile
        elf = ELFFile(io.BytesIO(self.data))
        header = elf.header
        if header.e_machine != "EM_AMDGPU":
            raise InvalidCodeObject(f"machine {header.e_machine} is not EM_AMDGPU")
        if header.e_type != "ET_DYN":
            raise InvalidCodeObject(f"ELF type {header.e_type} is not a shared object (ET_DYN)")
        self._set_flags(header.e_flags)
        self.segments = self._segments(elf)
        self._layout()
        self._set_metadata(self._metadata(elf))
        self.symbols, dynsym_index = self._symbols(elf)
        self.relocations = self._relocations(elf, dynsym_index)
        self.local_functions = self._local_functions(elf)
        self._check_kernels()

    # -- a parse kept, and recalled ----------------------------------------------------------
    def _records(self):
        """What _parse found that the fields derive from, as msgpack keeps it."""
        return {"e_flags": self.e_flags, "segments": self.segments, "metadata": self.metadata,
                "symbols": self.symbols, "relocations": self.relocations,
                "local_functions": self.local_functions}

    def _adopt(self, records):
        """The fields of a parse of these bytes that passed every check, from its records."""
        self._set_flags(records["e_flags"])
        self.segments = [Segment(*s) for s in records["segments"]]
        self._layout()
        self._set_metadata(records["metadata"])
        self.symbols = [Symbol(*s) for s in records["symbols"]]
        self.relocations = [Relocation(*r) for r in records["relocations"]]
        self.local_functions = tuple(records["local_functions"])

    def _set_flags(self, e_flags):
        self.e_flags = e_flags
        self.target, self.generic_version = target.from_e_flags(e_flags, self.version)

    def _set_metadata(self, merged):
        self.metadata = merged
        self.kernel_metadata = metadata.kernels_by_symbol(merged)

    # -- segments --------------------------------------------------------------------------
    def _segments(self, elf):
        segments = []
        for segment in elf.iter_segments():
            if segment["p_type"] != "PT_LOAD":
                continue
            s = Segment(segment["p_vaddr"], segment["p_memsz"], segment["p_offset"],
                        segment["p_filesz"], segment["p_align"], segment["p_flags"])
            if s.filesz > s.memsz or s.offset + s.filesz > len(self.data):
                raise InvalidCodeObject(f"PT_LOAD at {s.vaddr:#x} reaches outside the file")
            # ELF: p_align is 0, 1 or a power of two, and p_vaddr = p_offset modulo p_align.
            if s.align & (s.align - 1) or (s.align > 1 and (s.vaddr - s.offset) % s.align):
                raise InvalidCodeObject(f"PT_LOAD at {s.vaddr:#x} has an impossible alignment {s.align:#x}")
            if segments and s.vaddr < segments[-1].vaddr + segments[-1].memsz:
                raise InvalidCodeObject("PT_LOAD segments overlap or are not in ascending order")
            segments.append(s)
        if not segments:
            raise InvalidCodeObject("no loadable segment")
        return segments

    def _layout(self):
        """Where the segments go: one image from load_start (the first vaddr rounded down to
        the largest alignment, so every vaddr keeps its alignment in device memory: code at
        256, descriptors at 64) to the end of the last segment."""
        segments = self.segments
        self.load_align = max(s.align for s in segments) or 1
        self.load_start = segments[0].vaddr - segments[0].vaddr % self.load_align
        self.load_span = segments[-1].vaddr + segments[-1].memsz - self.load_start
        if self.load_span > MAX_LOAD_SPAN or self.load_align > MAX_LOAD_SPAN:
            raise OutOfResources(f"code object segments span {self.load_span} bytes "
                                 f"aligned to {self.load_align}")

    def segment_of(self, vaddr, size=1):
        """The loadable segment holding [vaddr, vaddr+size), or None."""
        for s in self.segments:
            if s.vaddr <= vaddr and vaddr + size <= s.vaddr + s.memsz:
                return s
        return None

    # -- notes -----------------------------------------------------------------------------
    def _metadata(self, elf):
        """The metadata of every NT_AMDGPU_METADATA note, merged. A linker concatenates the
        notes of the objects it links (Tensile links one assembled object per kernel, so its
        code objects carry hundreds of notes): the kernels of all notes are the object's
        kernels, and the first note's other fields (version, target) stand for all."""
        merged = None
        for segment in elf.iter_segments():
            if segment["p_type"] != "PT_NOTE":
                continue
            if segment["p_offset"] + segment["p_filesz"] > len(self.data):
                raise InvalidCodeObject("PT_NOTE reaches outside the file")
            for note in segment.iter_notes():
                if note["n_name"] != metadata.NOTE_OWNER or note["n_type"] != metadata.NT_AMDGPU_METADATA:
                    continue
                data = metadata.decode(note["n_desc"])
                if merged is None:
                    merged = data
                else:
                    merged["amdhsa.kernels"] = merged.get("amdhsa.kernels", []) + data.get("amdhsa.kernels", [])
        if merged is None:
            raise InvalidCodeObject("no NT_AMDGPU_METADATA note")
        return merged

    # -- symbols ---------------------------------------------------------------------------
    def _symbols(self, elf):
        dynsym = next((s for s in elf.iter_sections() if s["sh_type"] == "SHT_DYNSYM"), None)
        if dynsym is None:
            return [], None
        symbols = []
        for entry in dynsym.iter_symbols():
            shndx = entry["st_shndx"]
            defined = isinstance(shndx, int) and shndx != SHN_UNDEF
            section = elf.get_section(shndx) if defined else None
            sym = Symbol(entry.name, entry["st_value"], entry["st_size"], entry["st_info"]["type"],
                         entry["st_info"]["bind"], defined,
                         bool(section is not None and section["sh_flags"] & SHF_WRITE),
                         section["sh_addralign"] if section is not None else 0)
            if defined and sym.type in ("STT_OBJECT", "STT_FUNC") and sym.size \
                    and self.segment_of(sym.value, sym.size) is None:
                raise InvalidCodeObject(f"symbol {sym.name} lies outside every loadable segment")
            symbols.append(sym)
        return symbols, elf.get_section_index(dynsym.name)

    def _local_functions(self, elf):
        """Addresses of the functions .symtab names (local ones, such as virtual methods, are in
        no other table). Loading does not need .symtab, so a damaged one only names nothing."""
        try:
            symtab = elf.get_section_by_name(".symtab")
            if symtab is None or symtab["sh_type"] != "SHT_SYMTAB":
                return ()
            return tuple(entry["st_value"] for entry in symtab.iter_symbols()
                         if entry["st_info"]["type"] == "STT_FUNC" and entry["st_shndx"] != "SHN_UNDEF"
                         and isinstance(entry["st_value"], int))
        except _parse_errors():
            return ()

    def code_addresses(self):
        """Virtual addresses in executable segments that code may reach through a pointer:
        every function a symbol table names, and every address a RELATIVE64 or ABS64
        relocation writes (vtables, function-pointer tables)."""
        found = {s.value for s in self.symbols if s.type == "STT_FUNC" and s.defined}
        found.update(self.local_functions)
        for r in self.relocations:
            if r.type == R_AMDGPU_RELATIVE64:
                found.add(r.addend)
            elif r.type == R_AMDGPU_ABS64 and r.symbol and self.symbols[r.symbol].defined:
                found.add(self.symbols[r.symbol].value + r.addend)
        return sorted(a for a in found if (seg := self.segment_of(a, 4)) is not None and seg.flags & PF_X)

    def global_symbols(self):
        """Defined and undefined symbols visible outside the object (ROCr skips local ones)."""
        return [s for s in self.symbols if s.bind in ("STB_GLOBAL", "STB_WEAK") and s.name]

    # -- relocations -----------------------------------------------------------------------
    def _relocations(self, elf, dynsym_index):
        relocations = []
        for section in elf.iter_sections():
            if section["sh_type"] not in ("SHT_RELA", "SHT_REL"):
                continue
            # Link-time leftovers (non-SHF_ALLOC, e.g. --emit-relocs) are not for the loader.
            if not section["sh_flags"] & 0x2:
                continue
            if section["sh_link"] not in (0, dynsym_index):
                raise InvalidCodeObject(f"{section.name} uses a symbol table other than .dynsym")
            rela = section["sh_type"] == "SHT_RELA"
            for entry in section.iter_relocations():
                r = Relocation(entry["r_offset"], entry["r_info_type"], entry["r_info_sym"],
                               entry["r_addend"] if rela else 0)
                if r.type == R_AMDGPU_NONE:
                    continue            # by definition patches nothing
                width = RELOCATION_WIDTH.get(r.type)
                if width is None:
                    raise InvalidCodeObject(f"unsupported relocation type {r.type} at {r.offset:#x}")
                if r.symbol >= len(self.symbols) and r.symbol != 0:
                    raise InvalidCodeObject(f"relocation at {r.offset:#x} names symbol {r.symbol}, "
                                            f"beyond .dynsym")
                if self.segment_of(r.offset, width) is None:
                    raise InvalidCodeObject(f"relocation at {r.offset:#x} patches outside every segment")
                relocations.append(r)
        return relocations

    # -- kernels ---------------------------------------------------------------------------
    def _check_kernels(self):
        defined = {s.name: s for s in self.global_symbols() if s.defined}
        for symbol_name in self.kernel_metadata:
            sym = defined.get(symbol_name)
            if sym is None or sym.type != "STT_OBJECT" or self.segment_of(sym.value, 64) is None:
                raise InvalidCodeObject(f"kernel descriptor {symbol_name} is not a defined 64-byte object")

    def kernel_symbols(self):
        """(symbol, metadata) of every kernel, in .dynsym order."""
        return [(s, self.kernel_metadata[s.name]) for s in self.global_symbols()
                if s.defined and s.name in self.kernel_metadata]

    def variable_symbols(self):
        """Defined global data objects that are not kernel descriptors."""
        return [s for s in self.global_symbols()
                if s.defined and s.type == "STT_OBJECT" and s.name not in self.kernel_metadata
                and not s.name.endswith(KERNEL_DESCRIPTOR_SUFFIX)]

    def file_bytes(self, vaddr, size):
        """The initial bytes of [vaddr, vaddr+size) as the ELF file holds them (bss reads zero)."""
        segment = self.segment_of(vaddr, size)
        start = vaddr - segment.vaddr
        present = self.data[segment.offset + start: segment.offset + min(segment.filesz, start + size)]
        return present.ljust(size, b"\0")
