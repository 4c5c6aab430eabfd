"""Parsing real clang-15 code objects: targets, metadata, descriptors, relocation formulas.

The oracles are LLVM's own tools run on the same files: llvm-readobj (e_flags),
llvm-readelf --notes (metadata), llvm-objdump's kernel descriptor disassembly, and
the linker's output for the relocations it resolved itself. These tests need no library.
"""
import os
import re
import subprocess

import pytest
import yaml
from elftools.elf.elffile import ELFFile

from core.errors import InvalidCodeObject
from core.loader import descriptor, relocations
from core.loader.elf import CodeObject, Relocation
from core.cli.info import describe
from tests.support.kernels import BITCODE, KERNELS, compile_hip, compile_opencl

TABLES = "loader_tables.cl"


def parse(path):
    with open(path, "rb") as f:
        return CodeObject(f.read())


def readelf_metadata(path):
    """The metadata map as llvm-readelf --notes prints it (YAML)."""
    text = subprocess.run(["llvm-readelf-15", "--notes", path], capture_output=True, text=True,
                          check=True).stdout
    document = text[text.index("---"):text.index("\n...") + 4]
    return yaml.safe_load(document)


def objdump_descriptor(path, symbol):
    """{.amdhsa_* directive: value} from llvm-objdump's disassembly of a kernel descriptor."""
    text = subprocess.run(["llvm-objdump-15", "-D", f"--disassemble-symbols={symbol}", path],
                          capture_output=True, text=True, check=True).stdout
    return {m[1]: int(m[2]) for m in re.finditer(r"^\s+\.amdhsa_(\w+) (\d+)$", text, re.M)}


@pytest.mark.parametrize("version", [3, 4, 5])
def test_opencl_object_of_each_version_parses(version):
    code = parse(compile_opencl(TABLES, code_object=version))
    assert code.version == version
    assert code.target.isa_name == "amdgcn-amd-amdhsa--gfx1030"
    names = sorted(meta[".name"] for _, meta in code.kernel_symbols())
    assert names == ["bump_counter", "follow_pointer", "lookup_tables", "scratch_walk", "stage_in_lds"]
    assert sorted(s.name for s in code.variable_symbols()) == ["loader_buffer", "loader_counter",
                                                               "loader_squares"]


def test_hip_object_parses():
    code = parse(compile_hip("loader_hip.hip"))
    assert [meta[".name"] for _, meta in code.kernel_symbols()] == ["hip_scale_add"]
    assert {s.name for s in code.variable_symbols()} == {"hip_counter", "hip_scale"}
    args = code.metadata["amdhsa.kernels"][0][".args"]
    assert [a[".value_kind"] for a in args] == ["global_buffer", "global_buffer", "by_value", "by_value"]


@pytest.mark.parametrize("version", [4, 5])
def test_metadata_is_what_llvm_readelf_reports(version):
    path = compile_opencl(TABLES, code_object=version)
    assert parse(path).metadata == readelf_metadata(path)


@pytest.mark.parametrize("mcpu,flags,features", [
    ("gfx1030", "EF_AMDGPU_MACH_AMDGCN_GFX1030", ("unsupported", "unsupported")),
    ("gfx90a", "EF_AMDGPU_MACH_AMDGCN_GFX90A", ("any", "any")),
    ("gfx90a:xnack+:sramecc-", "EF_AMDGPU_MACH_AMDGCN_GFX90A", ("on", "off")),
    ("gfx900:xnack-", "EF_AMDGPU_MACH_AMDGCN_GFX900", ("off", "unsupported")),
    ("gfx1031", "EF_AMDGPU_MACH_AMDGCN_GFX1031", ("unsupported", "unsupported")),
])
def test_e_flags_decode_as_llvm_names_them(mcpu, flags, features):
    path = compile_opencl("kernel void k(global int *p) { *p = 1; }\n", mcpu=mcpu)
    code = parse(path)
    header = subprocess.run(["llvm-readobj-15", "--file-headers", path], capture_output=True,
                            text=True, check=True).stdout
    assert flags in header
    assert code.target.processor == flags.rsplit("_", 1)[1].lower()
    assert (code.target.xnack, code.target.sramecc) == features
    # The compiler states the same target id in the metadata note.
    assert code.target.isa_name == code.metadata["amdhsa.target"]


# .amdhsa_* directive -> decoded descriptor field
_DIRECTIVES = {
    "group_segment_fixed_size": "group_segment_fixed_size",
    "private_segment_fixed_size": "private_segment_fixed_size",
    "kernarg_size": "kernarg_size",
    "float_round_mode_32": "float_round_mode_32", "float_round_mode_16_64": "float_round_mode_16_64",
    "float_denorm_mode_32": "float_denorm_mode_32", "float_denorm_mode_16_64": "float_denorm_mode_16_64",
    "dx10_clamp": "enable_dx10_clamp", "ieee_mode": "enable_ieee_mode", "fp16_overflow": "fp16_ovfl",
    "workgroup_processor_mode": "workgroup_processor_mode", "memory_ordered": "mem_ordered",
    "forward_progress": "fwd_progress",
    "system_sgpr_private_segment_wavefront_offset": "enable_private_segment",
    "system_sgpr_workgroup_id_x": "enable_sgpr_workgroup_id_x",
    "system_sgpr_workgroup_id_y": "enable_sgpr_workgroup_id_y",
    "system_sgpr_workgroup_id_z": "enable_sgpr_workgroup_id_z",
    "system_sgpr_workgroup_info": "enable_sgpr_workgroup_info",
    "system_vgpr_workitem_id": "enable_vgpr_workitem_id",
    "exception_fp_ieee_invalid_op": "enable_exception_ieee_754_fp_invalid_operation",
    "exception_fp_denorm_src": "enable_exception_fp_denormal_source",
    "exception_fp_ieee_div_zero": "enable_exception_ieee_754_fp_division_by_zero",
    "exception_fp_ieee_overflow": "enable_exception_ieee_754_fp_overflow",
    "exception_fp_ieee_underflow": "enable_exception_ieee_754_fp_underflow",
    "exception_fp_ieee_inexact": "enable_exception_ieee_754_fp_inexact",
    "exception_int_div_zero": "enable_exception_int_divide_by_zero",
    "user_sgpr_private_segment_buffer": "enable_sgpr_private_segment_buffer",
    "user_sgpr_dispatch_ptr": "enable_sgpr_dispatch_ptr",
    "user_sgpr_queue_ptr": "enable_sgpr_queue_ptr",
    "user_sgpr_kernarg_segment_ptr": "enable_sgpr_kernarg_segment_ptr",
    "user_sgpr_dispatch_id": "enable_sgpr_dispatch_id",
    "user_sgpr_flat_scratch_init": "enable_sgpr_flat_scratch_init",
    "user_sgpr_private_segment_size": "enable_sgpr_private_segment_size",
    "wavefront_size32": "enable_wavefront_size32",
    "uses_dynamic_stack": "uses_dynamic_stack",
}


SMALL_KERNELS = """
kernel void ids3d(global int *out) {
    out[get_group_id(2) * 64 + get_group_id(1) * 8 + get_local_id(1)] = get_local_id(2);
}
kernel void store_one(global int *p) { *p = 1; }
"""
# User SGPRs each enabled kernel_code_properties bit adds (AMDGPUUsage "Initial Kernel Execution State").
_USER_SGPRS = {"enable_sgpr_private_segment_buffer": 4, "enable_sgpr_dispatch_ptr": 2,
               "enable_sgpr_queue_ptr": 2, "enable_sgpr_kernarg_segment_ptr": 2,
               "enable_sgpr_dispatch_id": 2, "enable_sgpr_flat_scratch_init": 2,
               "enable_sgpr_private_segment_size": 1}


@pytest.mark.parametrize("version,wave64", [(4, False), (5, False), (4, True)])
def test_descriptor_fields_match_llvm_objdump(version, wave64):
    """llvm-objdump-15 decodes descriptors only while GRANULATED_WAVEFRONT_SGPR_COUNT is 0
    (its GFX10 decoder insists on the documented "must be 0" that the compiler does not
    keep), so the small kernel is the one it can check."""
    path = compile_opencl(SMALL_KERNELS, code_object=version, wave64=wave64)
    code = parse(path)
    compared = 0
    for sym, meta in code.kernel_symbols():
        kd = descriptor.decode(code.file_bytes(sym.value, 64))
        expected = objdump_descriptor(path, sym.name)
        if expected:
            assert {d: getattr(kd, f) for d, f in _DIRECTIVES.items()} == \
                {d: expected[d] for d in _DIRECTIVES}
            compared += 1
    assert compared >= 1


@pytest.mark.parametrize("version,wave64", [(4, False), (5, False), (4, True)])
def test_descriptor_agrees_with_metadata_and_itself(version, wave64):
    code = parse(compile_opencl(TABLES, code_object=version, wave64=wave64))
    for sym, meta in code.kernel_symbols():
        kd = descriptor.decode(code.file_bytes(sym.value, 64))
        assert kd.group_segment_fixed_size == meta[".group_segment_fixed_size"]
        assert kd.private_segment_fixed_size == meta[".private_segment_fixed_size"]
        assert kd.kernarg_size == meta[".kernarg_segment_size"]
        assert kd.wavefront_size == meta[".wavefront_size"] == (64 if wave64 else 32)
        assert kd.user_sgpr_count == sum(n for bit, n in _USER_SGPRS.items() if getattr(kd, bit))
        # The code starts inside the object's executable segment.
        entry = sym.value + kd.kernel_code_entry_byte_offset
        assert code.segment_of(entry).flags & 1


def test_scratch_and_lds_kernels_record_their_segments():
    code = parse(compile_opencl(TABLES))
    meta = {m[".name"]: m for _, m in code.kernel_symbols()}
    assert meta["stage_in_lds"][".group_segment_fixed_size"] == 64 * 4
    assert meta["scratch_walk"][".private_segment_fixed_size"] >= 40 * 4
    assert [a[".value_kind"] for a in meta["stage_in_lds"][".args"][:3]] == \
        ["global_buffer", "global_buffer", "dynamic_shared_pointer"]


def _linked_and_relocatable(tmp_path):
    """The same source linked by clang (the .co the loader takes) and only assembled (.o)."""
    linked = compile_opencl(TABLES)
    obj = tmp_path / "tables.o"
    subprocess.run(["clang-15", "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa",
                    "-mcpu=gfx1030", "-O2", "-mcode-object-version=4", f"--rocm-device-lib-path={BITCODE}",
                    "-Xclang", "-finclude-default-header", "-c", "-o", str(obj),
                    os.path.join(KERNELS, TABLES)],
                   check=True, capture_output=True)
    return linked, str(obj)


def _apply_like_the_linker(obj_path, linked_path, kinds):
    """Apply our formulas to every relocation of `kinds` in the object file, with the
    addresses the linked file gave; return the kinds checked. Each must match lld's bytes."""
    linked = ELFFile(open(linked_path, "rb"))
    obj = ELFFile(open(obj_path, "rb"))
    linked_symbols = {s.name: s["st_value"] for s in linked.get_section_by_name(".symtab").iter_symbols()}
    checked = set()
    for section in obj.iter_sections():
        if section["sh_type"] != "SHT_RELA":
            continue
        target = obj.get_section(section["sh_info"])
        out = linked.get_section_by_name(target.name)
        symtab = obj.get_section(section["sh_link"])
        for entry in section.iter_relocations():
            kind = entry["r_info_type"]
            if kind not in kinds:
                continue
            symbol = symtab.get_symbol(entry["r_info_sym"])
            address = (linked.get_section_by_name(symbol.name)["sh_addr"] if symbol["st_info"]["type"] == "STT_SECTION"
                       else linked_symbols[symbol.name])
            rel = Relocation(entry["r_offset"], kind, entry["r_info_sym"], entry["r_addend"])
            produced = relocations.value(rel, address, out["sh_addr"] + entry["r_offset"], 0)
            start = out["sh_offset"] + entry["r_offset"]
            out.stream.seek(start)
            assert produced == out.stream.read(len(produced)), relocations.NAMES[kind]
            checked.add(kind)
    return checked


def test_absolute_and_pc_relative_formulas_reproduce_a_static_link(tmp_path):
    obj, exe = tmp_path / "relocs.o", tmp_path / "relocs.exe"
    subprocess.run(["llvm-mc-15", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-filetype=obj",
                    "-o", str(obj), os.path.join(KERNELS, "loader_relocs.s")], check=True)
    subprocess.run(["ld.lld-15", "--no-pie", "-e", "entry", "-o", str(exe), str(obj)], check=True)
    kinds = {relocations.R_AMDGPU_ABS32, relocations.R_AMDGPU_ABS64, relocations.R_AMDGPU_REL32_LO,
             relocations.R_AMDGPU_REL32_HI}
    assert _apply_like_the_linker(str(obj), str(exe), kinds) == kinds


def test_pc_relative_relocation_formulas_reproduce_the_linker(tmp_path):
    """REL32_LO/HI (s_getpc-relative addressing) and REL64 (descriptor entry offsets) never
    reach the loader from lld; applying them to the .o's relocations with the linked
    addresses must give exactly the bytes lld wrote."""
    linked_path, obj_path = _linked_and_relocatable(tmp_path)
    kinds = {relocations.R_AMDGPU_REL32_LO, relocations.R_AMDGPU_REL32_HI, relocations.R_AMDGPU_REL64}
    assert _apply_like_the_linker(obj_path, linked_path, kinds) == kinds


@pytest.mark.parametrize("data,reason", [
    (b"", "not an ELF"),
    (b"\x7fELF" + b"\0" * 60, "ELF64"),
    (open("/bin/sh", "rb").read(), "OS ABI"),
])
def test_non_amdgpu_files_are_invalid_code_objects(data, reason):
    with pytest.raises(InvalidCodeObject, match=reason):
        CodeObject(data)


def test_truncated_object_is_an_invalid_code_object():
    data = open(compile_opencl(TABLES), "rb").read()
    for size in (64, 200, len(data) // 2, len(data) - 1):
        with pytest.raises(InvalidCodeObject):
            CodeObject(data[:size])


def test_info_lists_every_kernel_and_its_descriptor():
    code = parse(compile_opencl(TABLES, code_object=5))
    text = "\n".join(describe(code))
    assert "code object v5  target amdgcn-amd-amdhsa--gfx1030" in text
    for name in ("lookup_tables", "follow_pointer", "bump_counter", "stage_in_lds", "scratch_walk"):
        assert f"kernel {name}  ({name}.kd" in text
    assert text.count("enable_sgpr_kernarg_segment_ptr = 1") == 5
