"""Each way a code object can be wrong, made by editing one field of a real clang-15 object,
gets the status ROCr gives it (checked in the parser every load goes through)."""
import io
import struct

import msgpack
import pytest
from elftools.elf.elffile import ELFFile

from core.errors import InvalidCodeObject, OutOfResources
from core.loader import metadata
from core.loader.elf import MAX_LOAD_SPAN, CodeObject
from tests.support.kernels import compile_opencl

ELF64_PHDR = struct.Struct("<IIQQQQQQ")     # p_type p_flags p_offset p_vaddr p_paddr p_filesz p_memsz p_align
ELF64_SHDR_LINK = 40                        # offset of sh_link in a section header
ELF64_RELA = struct.Struct("<QQq")          # r_offset r_info r_addend
ELF64_SYM = struct.Struct("<IBBHQQ")        # st_name st_info st_other st_shndx st_value st_size
PT_LOAD, PT_NOTE = 1, 4


@pytest.fixture(scope="module")
def original():
    with open(compile_opencl("loader_tables.cl"), "rb") as f:
        return f.read()


def elf(data):
    return ELFFile(io.BytesIO(data))


def patched(data, offset, packed):
    return data[:offset] + packed + data[offset + len(packed):]


def phdrs(data):
    """(file offset of the header, its fields) of every program header."""
    header = elf(data).header
    return [(header.e_phoff + i * header.e_phentsize,
             list(ELF64_PHDR.unpack_from(data, header.e_phoff + i * header.e_phentsize)))
            for i in range(header.e_phnum)]


def edit_phdr(data, p_type, index, field, value):
    offset, fields = [p for p in phdrs(data) if p[1][0] == p_type][index]
    fields[field] = value
    return patched(data, offset, ELF64_PHDR.pack(*fields))


def section(data, name):
    return elf(data).get_section_by_name(name)


def edit_rela(data, index, r_offset=None, r_type=None, r_sym=None):
    rela = section(data, ".rela.dyn")
    at = rela["sh_offset"] + index * ELF64_RELA.size
    offset, info, addend = ELF64_RELA.unpack_from(data, at)
    offset = offset if r_offset is None else r_offset
    info = ((info >> 32 if r_sym is None else r_sym) << 32) | (info & 0xFFFFFFFF if r_type is None else r_type)
    return patched(data, at, ELF64_RELA.pack(offset, info, addend))


def edit_symbol(data, name, field, value):
    dynsym = section(data, ".dynsym")
    index = next(i for i, s in enumerate(dynsym.iter_symbols()) if s.name == name)
    at = dynsym["sh_offset"] + index * ELF64_SYM.size
    fields = list(ELF64_SYM.unpack_from(data, at))
    fields[field] = value
    return patched(data, at, ELF64_SYM.pack(*fields))


def refused(data, match):
    with pytest.raises(InvalidCodeObject, match=match):
        CodeObject(data)


def test_the_original_loads(original):
    """The unedited object parses to what clang built: so each refusal below is the edit's."""
    code = CodeObject(original)
    assert code.version == 4 and code.target.isa_name == "amdgcn-amd-amdhsa--gfx1030"
    assert sorted(code.kernel_metadata) == ["bump_counter.kd", "follow_pointer.kd", "lookup_tables.kd",
                                            "scratch_walk.kd", "stage_in_lds.kd"]
    ends = [(s.vaddr, s.vaddr + s.memsz) for s in code.segments]
    assert len(ends) == len([p for p in phdrs(original) if p[1][0] == PT_LOAD])
    assert all(end <= start for (_, end), (start, _) in zip(ends, ends[1:]))   # ascending, apart
    assert code.relocations                    # slot_table's two pointers are relocated at load


def test_wrong_machine_and_type(original):
    refused(patched(original, 18, struct.pack("<H", 62)), "EM_X86_64 is not EM_AMDGPU")
    refused(patched(original, 16, struct.pack("<H", 1)), "ET_REL is not a shared object")


def test_segments_outside_the_file_overlapping_or_missing(original):
    size = len(original)
    refused(edit_phdr(original, PT_LOAD, 1, 2, size), "reaches outside the file")                 # p_offset
    refused(edit_phdr(original, PT_LOAD, 0, 5, 1 << 20), "reaches outside the file")              # p_filesz
    second = [p[1] for p in phdrs(original) if p[1][0] == PT_LOAD][1]
    inside_first = second[2] % second[7]                  # keeps p_vaddr = p_offset mod p_align
    refused(edit_phdr(original, PT_LOAD, 1, 3, inside_first), "overlap or are not in ascending order")
    no_loads = original
    for i in range(4):
        no_loads = edit_phdr(no_loads, PT_LOAD, 0, 0, 0x6474E551)    # PT_GNU_STACK
    refused(no_loads, "no loadable segment")


def test_a_segment_may_end_at_the_last_byte_of_the_file_not_one_past(original):
    offset = [p[1] for p in phdrs(original) if p[1][0] == PT_LOAD][3][2]
    for filesz, fits in ((len(original) - offset, True), (len(original) - offset + 1, False)):
        edited = edit_phdr(edit_phdr(original, PT_LOAD, 3, 5, filesz), PT_LOAD, 3, 6, filesz)  # p_filesz, p_memsz
        if fits:
            assert CodeObject(edited).segments[-1].filesz == filesz
        else:
            refused(edited, "reaches outside the file")


def test_segments_may_span_max_load_span_not_a_byte_more(original):
    """The loader allocates the whole span at once: up to MAX_LOAD_SPAN (1 GiB) is a load, more
    is OUT_OF_RESOURCES (the last segment's p_memsz set so the span is exactly that, then one
    byte more)."""
    vaddr = [p[1] for p in phdrs(original) if p[1][0] == PT_LOAD][3][3]
    assert CodeObject(edit_phdr(original, PT_LOAD, 3, 6, MAX_LOAD_SPAN - vaddr)).load_span == MAX_LOAD_SPAN
    with pytest.raises(OutOfResources):
        CodeObject(edit_phdr(original, PT_LOAD, 3, 6, MAX_LOAD_SPAN - vaddr + 1))


def test_a_huge_bss_or_alignment_is_out_of_resources(original):
    with pytest.raises(OutOfResources):
        CodeObject(edit_phdr(original, PT_LOAD, 3, 6, 1 << 40))                                   # p_memsz
    with pytest.raises(OutOfResources):
        CodeObject(edit_phdr(original, PT_LOAD, 0, 7, 1 << 40))                                   # p_align


def test_impossible_alignments(original):
    refused(edit_phdr(original, PT_LOAD, 1, 7, 0x1800), "impossible alignment")     # not a power of two
    refused(edit_phdr(original, PT_LOAD, 1, 7, 1 << 20), "impossible alignment")    # vaddr != offset mod align


def test_notes(original):
    refused(edit_phdr(original, PT_NOTE, 0, 5, 1 << 30), "PT_NOTE reaches outside the file")
    note = section(original, ".note")["sh_offset"]
    refused(patched(original, note + 8, struct.pack("<I", 33)), "no NT_AMDGPU_METADATA note")  # n_type


def test_a_none_relocation_patches_nothing(original):
    code = CodeObject(edit_rela(original, 0, r_type=0, r_offset=1 << 40))
    assert len(code.relocations) == len(CodeObject(original).relocations) - 1


def test_relocations(original):
    refused(edit_rela(original, 0, r_type=99), "unsupported relocation type 99")
    refused(edit_rela(original, 0, r_offset=1 << 40), "patches outside every segment")
    refused(edit_rela(original, 2, r_sym=1000), "beyond .dynsym")
    rela_header = elf(original).header.e_shoff + 6 * elf(original).header.e_shentsize
    assert section(original, ".rela.dyn").name == elf(original).get_section(6).name
    refused(patched(original, rela_header + ELF64_SHDR_LINK, struct.pack("<I", 16)),
            "symbol table other than .dynsym")


def test_symbols(original):
    refused(edit_symbol(original, "loader_counter", 4, 1 << 40), "outside every loadable segment")  # st_value
    global_function = 0x12                                                                      # st_info
    refused(edit_symbol(original, "lookup_tables.kd", 1, global_function), "not a defined 64-byte object")


def _packed_metadata(original, edit):
    data = CodeObject(original).metadata
    edit(data)
    return msgpack.packb(data)


@pytest.mark.parametrize("edit,match", [
    (lambda m: m["amdhsa.kernels"][0].pop(".name"), "lacks .name"),
    (lambda m: m["amdhsa.kernels"][0].pop(".symbol"), "lacks .symbol"),
    (lambda m: m["amdhsa.kernels"][1].update({".kernarg_segment_size": -8}), ".kernarg_segment_size"),
    (lambda m: m["amdhsa.kernels"][1].update({".group_segment_fixed_size": "0"}), ".group_segment_fixed_size"),
    (lambda m: m["amdhsa.kernels"][2][".args"][0].pop(".offset"), "an argument lacks"),
    (lambda m: m["amdhsa.kernels"][2].update({".args": {}}), ".args is not a list"),
    (lambda m: m.update({"amdhsa.kernels": {}}), "amdhsa.kernels is not a list"),
    (lambda m: m["amdhsa.kernels"].append(7), "is not a map"),
])
def test_metadata_without_what_the_loader_relies_on(original, edit, match):
    with pytest.raises(InvalidCodeObject, match=match):
        metadata.decode(_packed_metadata(original, edit))


def test_metadata_that_is_not_a_msgpack_map(original):
    with pytest.raises(InvalidCodeObject, match="not msgpack"):
        metadata.decode(b"\xc1")
    with pytest.raises(InvalidCodeObject, match="not a map"):
        metadata.decode(msgpack.packb([1, 2]))
    # The real note decodes to exactly what was packed.
    assert metadata.decode(_packed_metadata(original, lambda m: None)) == CodeObject(original).metadata


def test_abi_versions_rocr_reads_and_the_next_one(original):
    # EI_ABIVERSION 1-4 are code objects v3-v6 (ROCr reads up to v6); 5 would be v7, and 0
    # (v2, with its HSAIL-era notes) SoftGPU does not read.
    assert CodeObject(patched(original, 8, bytes([4]))).version == 6
    refused(patched(original, 8, bytes([5])), "unsupported AMDHSA ABI version 5")
    refused(patched(original, 8, bytes([0])), "unsupported AMDHSA ABI version 0")


def test_machines_rocr_does_not_name(original):
    flags = elf(original).header.e_flags & ~0xFF
    # 0x56 is reserved, 0x40 (gfx940) a machine the newest ROCr no longer names.
    for mach in (0x56, 0x40):
        refused(patched(original, 48, struct.pack("<I", flags | mach)), f"unknown AMDGPU machine {mach:#x}")
    # The last machine ROCr names (gfx9-4-generic) is known.
    assert CodeObject(patched(original, 48, struct.pack("<I", flags | 0x5F))).target.processor == "gfx9-4-generic"
