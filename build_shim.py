"""Build libhsa-runtime64.so.1: the C ABI edge of SoftGPU, with cffi's embedding mode.

Every export returning hsa_status_t is an embedding_api function that forwards into
Python (softgpu_shim.glue); every other export (signal values, waits, queue indices)
is a C fast path from fastpath_exports.c that never takes the GIL. A version script
puts every export at ROCR_1 and hides everything else, and the SONAME matches ROCr's,
so binaries linked against ROCr bind to this library without warnings.

Usage: python3 build_shim.py [OUTDIR]   (default: build/lib)
"""
import os
import sys

import cffi  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from softgpu_shim.exports_table import all_exports, prototypes  # noqa: E402

ROOT = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(ROOT, "softgpu_shim")
SONAME = "libhsa-runtime64.so.1"
MODULE = "_softgpu_hsa"
OFFICIAL_HEADERS = ("hsa/hsa.h", "hsa/hsa_ext_amd.h", "hsa/hsa_ext_image.h",
                    "hsa/hsa_ext_finalize.h", "hsa/hsa_ven_amd_loader.h",
                    "hsa/amd_hsa_queue.h", "hsa/amd_hsa_signal.h")
NATIVE_TIER = os.path.join(ROOT, "core", "isa", "native")
# One translation unit, in this order: headers before the code that uses them. The native
# tier's runner (core/isa/native/runner.*) is C the engine calls without the GIL.
C_SOURCES = ("native.h", "safe_memory.h", os.path.join(NATIVE_TIER, "runner.h"), "fastpath.c",
             "safe_memory.c", "fastpath_exports.c", os.path.join(NATIVE_TIER, "runner.c"))


def read(name):
    with open(os.path.join(SHIM, name)) as f:
        return f.read()


def make_ffi(version_script):
    ffi = cffi.FFI()
    ffi.cdef(read("abi_types.h"))
    ffi.cdef(read("native.h"))
    ffi.cdef(read("safe_memory.h"))
    ffi.cdef(read(os.path.join(NATIVE_TIER, "runner.h")))
    ffi.embedding_api("\n".join(proto for _, proto, status in prototypes() if status))
    preamble = "".join(f"#include <{h}>\n" for h in OFFICIAL_HEADERS)
    ffi.set_source(MODULE, preamble + "".join(read(name) for name in C_SOURCES),
                   extra_compile_args=["-O2", "-std=gnu11", "-D_GNU_SOURCE", "-Wall", "-Wno-unused-function"],
                   extra_link_args=["-Wl,-soname," + SONAME,
                                    "-Wl,--version-script=" + version_script])
    ffi.embedding_init_code(f"""
import sys
if {ROOT!r} not in sys.path:
    sys.path.insert(0, {ROOT!r})
from softgpu_shim import bootstrap
bootstrap.start()
""")
    return ffi


def write_version_script(path):
    with open(path, "w") as f:
        f.write("ROCR_1 {\n  global:\n")
        f.writelines(f"    {name};\n" for name in all_exports())
        f.write("  local: *;\n};\n")


def build(outdir):
    outdir = os.path.abspath(outdir)
    tmpdir = os.path.join(outdir, "tmp")
    os.makedirs(tmpdir, exist_ok=True)
    version_script = os.path.join(tmpdir, "exports.map")
    write_version_script(version_script)
    target = os.path.join(outdir, SONAME)
    built = make_ffi(version_script).compile(tmpdir=tmpdir, target=target, verbose=False)
    if os.path.abspath(built) != target:
        os.replace(built, target)
    link = os.path.join(outdir, "libhsa-runtime64.so")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(SONAME, link)
    return target


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "lib")))
