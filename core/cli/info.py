"""`softgpu info [FILE]`: what a code object holds, for people; without FILE, the system
as rocminfo lists it (core.system_report).

Parses the file exactly as the loader does (so a refused file shows the loader's
reason and exits 1) and prints the target, segments, symbols and, per kernel, its
metadata and every kernel descriptor field, decoded from the ELF bytes.
"""
import sys

from core.cli import command, read_code_object
from core.loader import descriptor


@command("info", help="list the system's agents as rocminfo does, or (with FILE) the kernels and "
                      "kernel descriptors of an AMDGPU code object")
def info(parser):
    parser.add_argument("file", nargs="?", help="code object (ELF) path")
    parser.add_argument("--args", action="store_true", help="also list each kernel's arguments")
    return run


def run(args):
    if args.file is None:
        return _system()
    _, code = read_code_object(args.file)
    for line in describe(code, args.args):
        print(line)
    return 0


def _system():
    from core.system_report import ApiError, report
    try:
        lines = report()
    except (ApiError, OSError) as error:
        print(f"softgpu info: {error}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0


def describe(code, with_args=False):
    """The lines `softgpu info` prints for a parsed code object."""
    t = code.target
    generic = f", generic version {code.generic_version}" if t.is_generic else ""
    yield f"code object v{code.version}  target {t.isa_name}  (e_flags {code.e_flags:#x}, " \
          f"xnack {t.xnack}, sramecc {t.sramecc}{generic})"
    for s in code.segments:
        yield f"  segment vaddr {s.vaddr:#x}  memsz {s.memsz:#x}  filesz {s.filesz:#x}  align {s.align:#x}"
    for sym in code.variable_symbols():
        kind = "variable" if sym.writable else "constant"
        yield f"  {kind} {sym.name}  vaddr {sym.value:#x}  size {sym.size}"
    for sym in code.global_symbols():
        if not sym.defined:
            yield f"  undefined {sym.name}  (the application defines it before loading)"
    for sym, meta in code.kernel_symbols():
        yield f"kernel {meta['.name']}  ({sym.name} at vaddr {sym.value:#x})"
        for key in sorted(k for k in meta if k != ".args"):
            yield f"    {key}: {meta[key]}"
        if with_args:
            for arg in meta.get(".args", []):
                yield "    arg " + "  ".join(f"{k[1:]}={v}" for k, v in arg.items())
        kd = descriptor.decode(code.file_bytes(sym.value, descriptor.KERNEL_DESCRIPTOR_SIZE))
        yield "    descriptor:"
        for key, value in kd.fields().items():
            yield f"      {key} = {value:#x}" if value > 9 else f"      {key} = {value}"
