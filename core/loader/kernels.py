"""Loaded kernels: what the packet processor and the ISA engine need to run a kernel object.

The public API other parts use:

    find_kernel(session, kernel_object) -> LoadedKernel or None
        The kernel whose descriptor lives at device address `kernel_object` (the
        kernel_object field of a dispatch packet), in any loaded code object of the session.
    loaded_code_objects(session) -> [LoadedCodeObject]
        Every code object currently loaded, in load order.

LoadedKernel fields:
    name            kernel name from the metadata (".name"), e.g. "vadd"
    symbol_name     descriptor symbol, e.g. "vadd.kd" (the executable symbol's name)
    kernel_object   device address of the 64-byte kernel descriptor
    descriptor      core.loader.descriptor.KernelDescriptor, decoded from device memory
                    after relocation: group_segment_fixed_size, private_segment_fixed_size,
                    kernarg_size, kernel_code_entry_byte_offset, compute_pgm_rsrc1/2/3,
                    kernel_code_properties and every decoded bit by name
                    (enable_sgpr_dispatch_ptr, enable_sgpr_workgroup_id_x, wavefront_size32, ...)
    entry           device address of the first instruction
                    (kernel_object + kernel_code_entry_byte_offset)
    metadata        the kernel's metadata map (".args", ".wavefront_size", ".sgpr_count", ...)
    args            metadata ".args" (list of maps with .offset, .size, .value_kind, ...)
    code_object     the LoadedCodeObject: .load_base, .load_size, .elf_bytes,
                    .metadata, .target, .agent, .executable
    agent           the core.agents.Agent it was loaded for (None for program code objects)
    engine_cache    a dict where engine tiers keep what they compute from the kernel alone
                    (launch layout, decoded code, launch templates, translations): made on
                    its first dispatch, gone with the kernel

Holds this invariant: a LoadedKernel is findable exactly while its executable lives;
destroying the executable (or hsa_shut_down) removes it before its memory is freed.
"""
from core.loader import descriptor as kd


class LoadedKernel:
    def __init__(self, code_object, symbol, kernel_metadata, kernel_object, descriptor_bytes):
        self.code_object = code_object
        self.symbol_name = symbol.name
        self.metadata = kernel_metadata
        self.name = kernel_metadata[".name"]
        self.kernel_object = kernel_object
        self.descriptor = kd.decode(descriptor_bytes)
        self.entry = kernel_object + self.descriptor.kernel_code_entry_byte_offset
        self.engine_cache = {}

    @property
    def agent(self):
        return self.code_object.agent

    @property
    def args(self):
        return self.metadata.get(".args", [])

    @property
    def kernarg_segment_size(self):
        return self.metadata[".kernarg_segment_size"]

    @property
    def kernarg_segment_align(self):
        return self.metadata[".kernarg_segment_align"]

    @property
    def wavefront_size(self):
        return self.metadata[".wavefront_size"]

    def __repr__(self):
        return f"<LoadedKernel {self.name} object={self.kernel_object:#x} entry={self.entry:#x}>"


def find_kernel(session, kernel_object):
    """The LoadedKernel whose descriptor is at device address `kernel_object`, or None."""
    loader = session.made("loader")     # no loader yet: nothing is loaded
    return None if loader is None else loader.kernels.get(int(kernel_object))


def loaded_code_objects(session):
    loader = session.made("loader")
    return [] if loader is None else loader.all_loaded_code_objects()

