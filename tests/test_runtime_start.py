"""When the embedded runtime cannot start or cannot bind its exports (a broken Python
environment), every export answers HSA_STATUS_ERROR with the reason on stderr: never
a success it did not earn, never a crash."""
import pytest

from tests.support import cprog
from tests.support.paths import LIBRARY


def broken_module(tmp_path, name):
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(f'raise ImportError("{name} is broken here")\n')
    return str(tmp_path)


def test_healthy_start():
    proc = cprog.run("init_status.c")
    assert "hsa_init=0x0 hsa_status_string=0x0" in proc.stdout


def test_a_client_that_dlopens_the_runtime_locally_starts_it():
    """Plugins dlopen the runtime RTLD_LOCAL: its libpython stays local unless the library
    makes it global, and the embedded runtime's extension modules fail to import."""
    proc = cprog.run("dlopen_local.c", LIBRARY, extra_flags=("-ldl",))
    assert proc.returncode == 0 and "PASSED" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("module, reason", [
    ("numpy", "the runtime failed to start"),       # the glue itself cannot import
    ("msgpack", "internal error in hsa_init"),      # the glue starts, the exports cannot bind
])
def test_every_call_fails_cleanly_when_python_is_broken(tmp_path, module, reason):
    proc = cprog.run("init_status.c", PYTHONPATH=broken_module(tmp_path, module))
    assert proc.returncode == 0, proc.stderr
    assert "hsa_init=0x1000 hsa_status_string=0x1000" in proc.stdout
    assert reason in proc.stderr
    assert f"{module} is broken here" in proc.stderr
