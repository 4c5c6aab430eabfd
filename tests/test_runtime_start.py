"""When the embedded runtime cannot start, or a module some export needs cannot be imported
(a broken Python environment), the exports concerned answer HSA_STATUS_ERROR with the
reason on stderr: never a success they did not earn, never a crash. Exports that do not
need the broken module still work: modules load on first use."""
import subprocess
import sys

import pytest

from tests.support import cprog
from tests.support.paths import LIBRARY, ROOT


def broken_module(tmp_path, name):
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(f'raise ImportError("{name} is broken here")\n')
    return str(tmp_path)


def test_healthy_start():
    proc = cprog.run("init_status.c")
    assert "hsa_init=0x0 hsa_status_string=0x0 reader=0x0" in proc.stdout


def test_a_client_that_dlopens_the_runtime_locally_starts_it():
    """Plugins dlopen the runtime RTLD_LOCAL: its libpython stays local unless the library
    makes it global, and the embedded runtime's extension modules fail to import."""
    proc = cprog.run("dlopen_local.c", LIBRARY, extra_flags=("-ldl",))
    assert proc.returncode == 0 and "PASSED" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("module, statuses, reason", [
    # The profile is JSON: without json no session starts (later calls: NOT_INITIALIZED).
    ("json", "hsa_init=0x1000 hsa_status_string=0x0 reader=0x100b", "internal error in hsa_init"),
    # The code object loader needs msgpack; hsa_init does not.
    ("msgpack", "hsa_init=0x0 hsa_status_string=0x0 reader=0x1000",
     "internal error in hsa_code_object_reader_create_from_memory"),
    # Nor does it need numpy (the engine and the loader do).
    ("numpy", "hsa_init=0x0 hsa_status_string=0x0 reader=0x1000",
     "internal error in hsa_code_object_reader_create_from_memory"),
])
def test_a_broken_module_fails_the_calls_that_need_it(tmp_path, module, statuses, reason):
    proc = cprog.run("init_status.c", PYTHONPATH=broken_module(tmp_path, module))
    assert proc.returncode == 0, proc.stderr
    assert statuses in proc.stdout
    assert reason in proc.stderr
    assert f"{module} is broken here" in proc.stderr


def test_every_call_fails_cleanly_when_the_glue_cannot_start():
    script = (f"import ctypes, sys\n"
              f"sys.modules['softgpu_shim.glue'] = None   # importing it fails\n"
              f"lib = ctypes.CDLL({LIBRARY!r})\n"
              f"print(lib.hsa_init(), lib.hsa_status_string(4096, ctypes.byref(ctypes.c_char_p())))\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert proc.stdout.split() == ["4096", "4096"], proc.stderr
    assert "the runtime failed to start" in proc.stderr
