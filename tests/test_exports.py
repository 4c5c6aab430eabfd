"""The library exposes exactly ROCr 5.2.3's exports, at ROCR_1, with ROCr's prototypes."""
import os
import subprocess

import pytest

from tests.support.paths import LIBRARY, ROOT

REFERENCE = os.path.join(ROOT, "..", "shared", "reference", "rocm-5.2.3-exports.txt")
SHIM = os.path.join(ROOT, "softgpu_shim")
# Exports of the newest ROCr the library has besides 5.2.3's (their prototypes: tests/c/hsa_newest.h).
NEWER = {"hsa_amd_portable_export_dmabuf", "hsa_amd_portable_export_dmabuf_v2", "hsa_amd_portable_close_dmabuf",
         "hsa_amd_vmem_address_reserve", "hsa_amd_vmem_address_reserve_align", "hsa_amd_vmem_address_free",
         "hsa_amd_vmem_handle_create", "hsa_amd_vmem_handle_release", "hsa_amd_vmem_map", "hsa_amd_vmem_unmap",
         "hsa_amd_vmem_set_access", "hsa_amd_vmem_get_access", "hsa_amd_vmem_export_shareable_handle",
         "hsa_amd_vmem_import_shareable_handle", "hsa_amd_vmem_retain_alloc_handle",
         "hsa_amd_vmem_get_alloc_properties_from_handle"}


def reference_exports():
    if not os.path.exists(REFERENCE):
        pytest.skip("shared/reference is not beside the checkout")
    with open(REFERENCE) as f:
        return set(f.read().split()) | NEWER


def dynamic_symbols():
    out = subprocess.run(["objdump", "-T", LIBRARY], capture_output=True, text=True, check=True).stdout
    symbols = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 7 and " .text" in line:
            symbols[fields[-1]] = fields[-2]
    return symbols


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
                    f'#include "{ROOT}/tests/c/hsa_newest.h"\n#include "{SHIM}/exports.h"\n')
    proc = subprocess.run(["gcc", "-std=gnu11", "-fsyntax-only", "-Werror", str(unit)],
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
