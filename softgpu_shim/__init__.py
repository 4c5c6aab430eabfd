"""The C ABI edge of SoftGPU: exports, ABI numbers and the glue into core/.

`softgpu_shim.library_path()` is the library file (`ctypes.CDLL(library_path())` loads
SoftGPU into a Python program), `softgpu_shim.library_dir()` its directory.
"""
from core.location import library_dir, library_path  # noqa: F401  (the public API)
