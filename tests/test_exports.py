"""The library exposes exactly the newest ROCr's exports (a superset of 5.2.3's and 6.4.3's),
at ROCR_1, with ROCr's prototypes."""
import os
import subprocess

from tests.support.paths import LIBRARY, ROOT

# Vendored from shared/reference (see tests/data/reference/README.md): the lists always exist.
REFERENCES = [os.path.join(ROOT, "tests", "data", "reference", f"rocm-{v}-exports.txt") for v in ("5.2.3", "6.4.3")]
SHIM = os.path.join(ROOT, "softgpu_shim")
INCLUDE = os.path.join(SHIM, "include")      # the newest ROCr's headers, the library's own
# What the newest ROCr (ROCm/rocm-systems, hsacore.so.def of August 2025) exports beyond 6.4.3.
NEWEST = {"hsa_amd_memory_get_preferred_copy_engine", "hsa_amd_portable_export_dmabuf_v2"}


def reference_exports():
    names = set(NEWEST)
    for path in REFERENCES:
        with open(path) as f:
            names |= set(f.read().split())
    return names


def dynamic_symbols():
    out = subprocess.run(["objdump", "-T", LIBRARY], capture_output=True, text=True, check=True).stdout
    symbols = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 7 and (" .text" in line or " .data" in line):
            symbols[fields[-1]] = fields[-2]
    return symbols


def test_the_6_4_3_list_holds_every_5_2_3_export():
    """6.4.3 removed nothing: a client of either release finds every name it binds."""
    old, new = (set(open(path).read().split()) for path in REFERENCES)
    assert old <= new and len(new) == 257


def test_debugger_rendezvous_is_a_data_object():
    """_amdgpu_r_debug is a variable (ROCdbgapi reads it), not a function."""
    out = subprocess.run(["objdump", "-T", LIBRARY], capture_output=True, text=True, check=True).stdout
    line = next(line for line in out.splitlines() if line.endswith(" _amdgpu_r_debug"))
    assert " DO .data" in line and "ROCR_1" in line


def test_every_rocr_export_is_defined_at_rocr_1():
    symbols = dynamic_symbols()
    wanted = reference_exports()
    assert wanted - set(symbols) == set()
    assert {symbols[name] for name in wanted} == {"ROCR_1"}


def test_nothing_but_the_rocr_exports_is_exported():
    assert set(dynamic_symbols()) == reference_exports()


def test_soname_is_rocr_soname():
    out = subprocess.run(["readelf", "-d", LIBRARY], capture_output=True, text=True, check=True).stdout
    assert "Library soname: [libhsa-runtime64.so.1]" in out


def test_exports_h_agrees_with_official_headers(tmp_path):
    """Any prototype in exports.h that differs from ROCr's is a compile error here."""
    unit = tmp_path / "unit.c"
    unit.write_text("#include <hsa/hsa.h>\n#include <hsa/hsa_ext_amd.h>\n#include <hsa/hsa_ext_image.h>\n"
                    "#include <hsa/hsa_ext_finalize.h>\n#include <hsa/hsa_ven_amd_loader.h>\n"
                    f'#include "{SHIM}/exports.h"\n')
    proc = subprocess.run(["gcc", "-std=gnu11", "-fsyntax-only", "-Werror", "-I", INCLUDE, str(unit)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_exports_h_lists_every_reference_export_once():
    from softgpu_shim.exports_table import all_exports
    names = all_exports()
    assert len(names) == len(set(names))
    assert set(names) == reference_exports()


def test_export_index_names_the_module_of_every_implementation():
    """The glue imports only the module the index names: a stale index would leave an
    export unsupported (regenerate with ci/gen/export_index.py)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("export_index", os.path.join(ROOT, "ci", "gen", "export_index.py"))
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    from core import native  # noqa: F401  (the api modules need the library's ffi)
    from softgpu_shim.api.index import MODULE_OF
    assert MODULE_OF == generator.index()
