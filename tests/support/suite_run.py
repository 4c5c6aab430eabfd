"""A kernel-suite case run as its test runs it: launched with the case's grid, workgroup and
LDS, its outputs matched to the kernel's buffer arguments (by the code object's metadata) and
checked against the case's numpy reference."""
import msgpack
from elftools.elf.elffile import ELFFile

from tests.support.launch import launch


def kernel_metadata(path, name):
    """The code object's symbol names, the kernel's metadata map and its descriptor bytes."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        symbols = {s.name: s for s in elf.get_section_by_name(".symtab").iter_symbols()}
        descriptor = None
        if f"{name}.kd" in symbols:
            kd = symbols[f"{name}.kd"]
            section = elf.get_section(kd["st_shndx"])
            start = kd["st_value"] - section["sh_addr"]
            descriptor = section.data()[start:start + 64]
        for section in elf.iter_sections():
            if section.header.sh_type == "SHT_NOTE":
                for note in section.iter_notes():
                    if note["n_name"] == "AMDGPU":
                        meta = msgpack.unpackb(note["n_descdata"], raw=False)
                        kernels = {k[".name"]: k for k in meta["amdhsa.kernels"]}
                        return set(symbols), kernels.get(name), descriptor
    return set(symbols), None, descriptor


def output_buffers(path, case, outputs):
    """{argument index: array} of the outputs launch returned (its global buffers and images,
    in argument order), as case.check takes them."""
    explicit = [a for a in kernel_metadata(path, case.kernel)[1][".args"]
                if not a[".value_kind"].startswith("hidden_")]
    indices = [i for i, a in enumerate(explicit) if a[".value_kind"] in ("global_buffer", "image")]
    return dict(zip(indices, outputs))


def run_checked(session, case, path, wave, prepare=None):
    """Run the build `path` of `case` with its inputs for `wave`; the outputs by argument index,
    after the case's check passed. `prepare(args, expected)` may adjust the reference first."""
    args, expected = case.inputs(wave)
    if prepare is not None:
        prepare(args, expected)
    outputs = launch(session, path, case.kernel, args, case.grid, case.workgroup,
                     group_segment_size=case.group_segment, global_offset=case.global_offset)
    found = output_buffers(path, case, outputs)
    case.check(expected, found)
    return found
