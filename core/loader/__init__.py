"""Code objects and executables: real AMDGPU code objects loaded as ROCr loads them.

Modules, one job each:
- elf: parse and check an ELF code object (v3/v4/v5) with pyelftools;
- target: e_flags machine/xnack/sramecc decoding and the agent compatibility rule;
- metadata: the NT_AMDGPU_METADATA msgpack note;
- descriptor: the 64-byte kernel descriptor, decoded;
- relocations: R_AMDGPU_* relocation formulas, applied to device memory;
- symbols: executable symbols and their attributes;
- executable: executables and loaded code objects (segments in the arena, symbol resolution);
- loader: the session part (handle tables, readers, kernel index);
- kernels: the API the packet processor and ISA engine use (find_kernel, ...).
"""
from core.loader.kernels import LoadedKernel, find_kernel, loaded_code_objects  # noqa: F401
