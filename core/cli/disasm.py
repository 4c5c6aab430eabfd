"""`softgpu disasm FILE`: a code object's machine code as SoftGPU's decoder reads it.

The file is parsed as the loader parses it (a refused file shows the loader's reason and
exits 1). Its machine code is decoded as the processor it was built for (a generic object's as
the first member of its family SoftGPU has tables for, the code every member runs); a
processor SoftGPU has no tables for is refused by name. Every function of .text is printed in
llvm-objdump's syntax under its symbol name, kernels marked with their wave size, so what the
engine executes can be compared with `llvm-objdump -d --mcpu=PROCESSOR` line by line.
"""
import io

from elftools.elf.elffile import ELFFile

from core import target as targets_of_code
from core.cli import Refused, command, read_code_object
from core.isa import targets
from core.isa.decoder import DecodeError, decode
from core.isa.disasm import format_instruction
from core.loader import descriptor


@command("disasm", help="disassemble the kernels and functions of an AMDGPU code object")
def disasm(parser):
    parser.add_argument("file", help="code object (ELF) path")
    return run


def run(args):
    data, code = read_code_object(args.file)
    for line in listing(code, data):
        print(line)
    return 0


def processor(code):
    """The processor whose tables decode `code` (core.loader.elf.CodeObject); Refused if none."""
    name = code.target.processor
    members = [row.name for row in targets_of_code.PROCESSORS.values() if row.generic == name]
    for candidate in members if code.target.is_generic else [name]:
        if candidate in targets.TARGETS:
            return candidate
    raise Refused(f"{code.target.isa_name}: SoftGPU has no ISA tables for this processor "
                  f"(it decodes {', '.join(targets.TARGETS)})")


def _wave_sizes(code):
    """Kernel code address -> wave size, from each kernel's descriptor."""
    sizes = {}
    for sym, _meta in code.kernel_symbols():
        kd = descriptor.decode(code.file_bytes(sym.value, descriptor.KERNEL_DESCRIPTOR_SIZE))
        sizes[sym.value + kd.kernel_code_entry_byte_offset] = kd.wavefront_size
    return sizes


def listing(code, data):
    """The lines `softgpu disasm` prints: one header per function, one line per instruction."""
    decoder_target = processor(code)
    waves = _wave_sizes(code)
    # Helper functions take the wave size of the object's kernels (clang builds one per file).
    default64 = bool(waves) and all(size == 64 for size in waves.values())
    elf = ELFFile(io.BytesIO(data))
    text = elf.get_section_by_name(".text")
    if text is None:
        return
    base, blob = text["sh_addr"], text.data()
    symtab = elf.get_section_by_name(".symtab") or elf.get_section_by_name(".dynsym")
    names = {}
    for sym in symtab.iter_symbols() if symtab is not None else ():
        if sym["st_info"]["type"] == "STT_FUNC" and base <= sym["st_value"] < base + len(blob):
            names.setdefault(sym["st_value"], sym.name)
    offset, wave64 = 0, default64
    while offset + 4 <= len(blob):
        address = base + offset
        if address in names:
            wave64 = waves.get(address, 64 if default64 else 32) == 64
            kind = f"kernel, wave{64 if wave64 else 32}" if address in waves else "function"
            yield f"{names[address]}  ({kind}) at {address:#x}:"
        if not any(blob[offset:offset + 4]):      # zero padding between functions
            offset += 4
            continue
        try:
            inst = decode(blob, offset, address, wave64, decoder_target)
        except DecodeError as error:
            word = int.from_bytes(blob[offset:offset + 4], "little")
            yield f"  {address:#010x}  .long 0x{word:08x}  // {error}"
            offset += 4
            continue
        words = " ".join(f"{int.from_bytes(blob[o:o + 4], 'little'):08X}"
                         for o in range(offset, offset + inst.size, 4))
        yield f"  {address:#010x}  {format_instruction(inst):<56} // {words}"
        offset += inst.size
