"""C programs against the official headers load real code objects; every symbol attribute
they print must be what llvm-readelf-15 reports for the same file."""
import re
import subprocess

import pytest

from tests.support import cprog
from tests.support.kernels import compile_hip, compile_opencl
from tests.test_loader_parse import readelf_metadata

TABLES = "loader_tables.cl"


def readelf_dynamic_objects(path):
    """{name: (size, section index)} of the defined global objects in .dynsym."""
    text = subprocess.run(["llvm-readelf-15", "--dyn-syms", "-S", path], capture_output=True, text=True,
                          check=True).stdout
    writable = {int(m[1]) for m in re.finditer(r"\[\s*(\d+)\]\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\S*W\S*)", text)}
    objects = {}
    for m in re.finditer(r"^\s+\d+: [0-9a-f]+\s+(\d+) OBJECT\s+GLOBAL\s+\w+\s+(\d+) (\S+)$", text, re.M):
        objects[m[3]] = (int(m[1]), int(m[2]) in writable)
    return objects


def printed_symbols(output):
    return {m[1]: dict(kv.split("=") for kv in m[2].split()) for m in re.finditer(r"^symbol (\S+) (.*)$", output, re.M)}


@pytest.mark.parametrize("build", [lambda: compile_opencl(TABLES, code_object=4),
                                   lambda: compile_opencl(TABLES, code_object=5),
                                   lambda: compile_opencl(TABLES, code_object=5, wave64=True),
                                   lambda: compile_hip("loader_hip.hip")],
                         ids=["v4", "v5", "v5-wave64", "hip"])
def test_every_symbol_attribute_matches_llvm_readelf(build):
    path = build()
    symbols = printed_symbols(cprog.check("loader_symbols.c", path).stdout)
    kernels = {k[".symbol"]: k for k in readelf_metadata(path)["amdhsa.kernels"]}
    objects = {name: v for name, v in readelf_dynamic_objects(path).items() if name not in kernels}
    assert set(symbols) == set(kernels) | set(objects)
    for name, printed in symbols.items():
        assert printed["module_name_length"] == "0" and printed["linkage"] == "1"
        assert printed["definition"] == "1" and printed["gpu"] == "1" and printed["call_convention"] == "0"
        if name in kernels:
            meta = kernels[name]
            assert printed["kind"] == "1"
            assert int(printed["kernarg_size"]) == meta[".kernarg_segment_size"]
            # HSA's rule: the larger of 16 and what the arguments need.
            assert int(printed["kernarg_align"]) == max(16, meta[".kernarg_segment_align"])
            assert int(printed["group"]) == meta[".group_segment_fixed_size"]
            assert int(printed["private"]) == meta[".private_segment_fixed_size"]
            assert printed["dynamic_callstack"] == str(int(meta[".uses_dynamic_stack"]))
            assert int(printed["wavefront"]) == meta[".wavefront_size"]
        else:
            size, writable = objects[name]
            assert printed["kind"] == "0" and printed["allocation"] == "0"
            assert int(printed["size"]) == size
            assert printed["segment"] == ("0" if writable else "1")
            assert printed["const"] == ("0" if writable else "1")


def test_bad_input_gets_rocr_statuses_from_c():
    cprog.check("loader_errors.c", compile_opencl(TABLES), compile_opencl(TABLES, mcpu="gfx90a"),
                compile_opencl("loader_extern.cl"))


def test_amd_loader_extension_table(tmp_path):
    code = open(compile_opencl(TABLES, code_object=5), "rb").read()
    container = tmp_path / "container.bin"
    container.write_bytes(b"\x5a" * 4096 + code + b"\xa5" * 100)
    plain = compile_opencl(TABLES)
    out = cprog.check("loader_amd_loader.c", container, 4096, len(code), plain).stdout
    assert f"uri file://{container}#offset=4096&size={len(code)}" in out


def test_kernel_uses_the_variables_the_application_defined():
    cprog.check("loader_app_globals.c", compile_opencl("loader_extern.cl"))
