"""HSA headers as a C syntax tree, for the generators of this directory.

Guarantees: the tree is that of the headers the library is built against
(softgpu_shim/include/hsa, generated from the newest ROCr's by vendor_headers.py), or of
those under a given directory; it is read with the C preprocessor every toolchain has
(`cc -E`) and pycparser, so no particular clang is needed; each top-level node knows the header it comes from (`header_of`), and
nodes of the stand-in C library headers are never reported as the ABI's.
"""
import os
import subprocess
import tempfile

from pycparser import c_ast, c_parser

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(HERE, "..", "..", "softgpu_shim", "include")
# What the library's C includes: cffi's cdef (abi_headers.py) must name no type the compiled
# unit lacks.
ABI_HEADERS = ["hsa/hsa.h", "hsa/hsa_ext_amd.h", "hsa/hsa_ext_image.h", "hsa/hsa_ext_finalize.h",
               "hsa/hsa_ven_amd_loader.h", "hsa/amd_hsa_queue.h", "hsa/amd_hsa_signal.h"]
HEADERS = ABI_HEADERS + ["hsa/amd_hsa_kernel_code.h", "hsa/amd_hsa_common.h", "hsa/hsa_ven_amd_pc_sampling.h"]

# pycparser reads ISO C, not the C library's headers (GNU extensions everywhere): the HSA
# headers need only these names from <stddef.h>, <stdint.h> and <stdbool.h>. Widths are
# those of LP64 Linux, the only ABI ROCr exists for.
_STAND_INS = {
    "stddef.h": "typedef unsigned long size_t;\ntypedef long ptrdiff_t;\n#define NULL ((void *)0)\n",
    "stdint.h": "".join(f"typedef {c} {n};\n" for n, c in (
        ("int8_t", "signed char"), ("uint8_t", "unsigned char"), ("int16_t", "short"),
        ("uint16_t", "unsigned short"), ("int32_t", "int"), ("uint32_t", "unsigned int"),
        ("int64_t", "long"), ("uint64_t", "unsigned long"), ("intptr_t", "long"),
        ("uintptr_t", "unsigned long"))) + "#define UINT64_MAX 0xffffffffffffffffUL\n",
    "stdbool.h": "typedef _Bool bool;\n#define true 1\n#define false 0\n",
}


def preprocess(include=INCLUDE, headers=HEADERS, attributes=False, macros=False):
    """The preprocessed text of `headers` (found under `include`) over the stand-in C library
    headers; with `attributes` the GNU attributes stay (pycparser cannot read them), with
    `macros` the text is instead every macro defined at the end (`cc -E -dM`)."""
    with tempfile.TemporaryDirectory() as stand_ins:
        for name, text in _STAND_INS.items():
            with open(os.path.join(stand_ins, name), "w") as f:
                f.write(text)
        source = "".join(f"#include <{h}>\n" for h in headers)
        # Attributes (alignment, visibility) say nothing the syntax tree must hold: the
        # compiler that builds the library reads the headers themselves for layouts.
        strip = [] if attributes else ["-D__attribute__(x)=", "-D__declspec(x)="]
        return subprocess.run(
            [os.environ.get("CC", "cc"), "-E", *(["-dM"] if macros else []), "-nostdinc",
             "-I", stand_ins, "-I", include, *strip, "-x", "c", "-"],
            input=source, capture_output=True, text=True, check=True).stdout


def parse(include=INCLUDE, headers=HEADERS):
    """The translation unit of `headers` (found under `include`), as a pycparser FileAST."""
    return c_parser.CParser().parse(preprocess(include, headers), "hsa_headers.c")


def tag_of(node, kinds=(c_ast.Struct, c_ast.Union, c_ast.Enum)):
    """The struct, union or enum (of `kinds`) a declaration's type defines or names, or None."""
    inner = node.type
    if isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    return inner if isinstance(inner, kinds) else None


def header_of(node):
    """The HSA header a top-level node comes from ("hsa_ext_amd.h"), or None."""
    path = node.coord.file if node.coord else ""
    return os.path.basename(path) if f"{os.sep}hsa{os.sep}" in path else None
