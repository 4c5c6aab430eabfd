"""Executable symbols: kernels and variables, with every attribute ROCr answers for them.

Holds these invariants:
- a symbol's attributes are fixed when it is created (at load or define time) from what
  the compiler recorded (metadata note, kernel descriptor, .dynsym) or what the
  application passed, so every query answers the same until the executable dies;
- an attribute that does not apply to a symbol's kind raises InvalidArgument, exactly
  where ROCr's symbol classes answer false (which its API turns into that status).
"""
from dataclasses import dataclass

from core.errors import InvalidArgument
from core.hsa_abi import (HsaSymbolKind, HsaSymbolLinkage, HsaVariableAllocation,
                          HsaVariableSegment)

MIN_KERNARG_ALIGNMENT = 16

# Attributes every symbol answers (ROCr's SymbolImpl::GetInfo).
_COMMON = ("TYPE", "NAME_LENGTH", "NAME", "MODULE_NAME_LENGTH", "MODULE_NAME", "LINKAGE",
           "IS_DEFINITION", "KERNEL_CALL_CONVENTION", "KERNEL_OBJECT", "VARIABLE_ADDRESS", "AGENT")
_VARIABLE = ("VARIABLE_ALLOCATION", "VARIABLE_SEGMENT", "VARIABLE_ALIGNMENT", "VARIABLE_SIZE",
             "VARIABLE_IS_CONST")
_KERNEL = ("KERNEL_KERNARG_SEGMENT_SIZE", "KERNEL_KERNARG_SEGMENT_ALIGNMENT",
           "KERNEL_GROUP_SEGMENT_SIZE", "KERNEL_PRIVATE_SEGMENT_SIZE", "KERNEL_DYNAMIC_CALLSTACK",
           "KERNEL_WAVEFRONT_SIZE")


@dataclass
class ExecutableSymbol:
    kind: HsaSymbolKind
    name: str
    address: int                      # kernel object (descriptor address) or variable address
    agent_handle: int                 # 0 for program symbols, as ROCr reports them
    linkage: HsaSymbolLinkage = HsaSymbolLinkage.PROGRAM
    module_name: str = ""
    is_definition: bool = True
    # variables
    allocation: HsaVariableAllocation = HsaVariableAllocation.AGENT
    segment: HsaVariableSegment = HsaVariableSegment.GLOBAL
    size: int = 0
    alignment: int = 0
    is_const: bool = False
    # kernels
    kernarg_segment_size: int = 0
    kernarg_segment_alignment: int = 0
    group_segment_size: int = 0
    private_segment_size: int = 0
    dynamic_callstack: bool = False
    wavefront_size: int = 0
    kernel: object = None             # the LoadedKernel, for kernels
    handle: int = 0

    def info(self, attribute):
        """The value of an HsaExecutableSymbolInfo attribute name ("KERNEL_OBJECT", ...)."""
        if attribute in _COMMON:
            return self._common(attribute)
        if attribute in _VARIABLE and self.kind == HsaSymbolKind.VARIABLE:
            return {"VARIABLE_ALLOCATION": self.allocation, "VARIABLE_SEGMENT": self.segment,
                    "VARIABLE_ALIGNMENT": self.alignment, "VARIABLE_SIZE": self.size,
                    "VARIABLE_IS_CONST": self.is_const}[attribute]
        if attribute in _KERNEL and self.kind == HsaSymbolKind.KERNEL:
            return {"KERNEL_KERNARG_SEGMENT_SIZE": self.kernarg_segment_size,
                    "KERNEL_KERNARG_SEGMENT_ALIGNMENT": self.kernarg_segment_alignment,
                    "KERNEL_GROUP_SEGMENT_SIZE": self.group_segment_size,
                    "KERNEL_PRIVATE_SEGMENT_SIZE": self.private_segment_size,
                    "KERNEL_DYNAMIC_CALLSTACK": self.dynamic_callstack,
                    "KERNEL_WAVEFRONT_SIZE": self.wavefront_size}[attribute]
        raise InvalidArgument(f"attribute {attribute} does not apply to {self.kind.name.lower()} {self.name}")

    def _common(self, attribute):
        return {"TYPE": self.kind, "NAME_LENGTH": len(self.name.encode()), "NAME": self.name,
                "MODULE_NAME_LENGTH": len(self.module_name.encode()), "MODULE_NAME": self.module_name,
                "LINKAGE": self.linkage, "IS_DEFINITION": self.is_definition,
                # ROCr answers 0 (the only call convention) for every kind of symbol.
                "KERNEL_CALL_CONVENTION": 0,
                "KERNEL_OBJECT": self.address, "VARIABLE_ADDRESS": self.address,
                "AGENT": self.agent_handle}[attribute]


def defined_variable(name, address, agent_handle, allocation, segment):
    """A variable the application defined (hsa_executable_*_variable_define): ROCr records
    no size, alignment or constness for these."""
    return ExecutableSymbol(HsaSymbolKind.VARIABLE, name, address, agent_handle,
                            allocation=allocation, segment=segment)


def kernel_symbol(sym, meta, address, agent_handle, descriptor_dynamic_stack=False, descriptor_wavefront_size=64):
    """A kernel's symbol from its .kd dynsym entry and metadata: the values the compiler recorded."""
    return ExecutableSymbol(
        HsaSymbolKind.KERNEL, sym.name, address, agent_handle,
        kernarg_segment_size=meta[".kernarg_segment_size"],
        # HSA: "the maximum of 16 and the maximum alignment of any of the kernel arguments"
        # (ROCr answers 16 for every v3+ kernel; the compiler's .kernarg_segment_align is <= 16).
        kernarg_segment_alignment=max(MIN_KERNARG_ALIGNMENT, meta[".kernarg_segment_align"]),
        group_segment_size=meta[".group_segment_fixed_size"],
        private_segment_size=meta[".private_segment_fixed_size"],
        dynamic_callstack=bool(meta.get(".uses_dynamic_stack", False) or descriptor_dynamic_stack),
        # The metadata's (code object v3+), else the descriptor's wave32 bit.
        wavefront_size=meta.get(".wavefront_size", descriptor_wavefront_size))


def variable_symbol(sym, address, agent_handle, allocation):
    """A global variable's symbol: read-only data (no SHF_WRITE) is the READONLY segment."""
    return ExecutableSymbol(
        HsaSymbolKind.VARIABLE, sym.name, address, agent_handle, allocation=allocation,
        segment=HsaVariableSegment.GLOBAL if sym.writable else HsaVariableSegment.READONLY,
        size=sym.size, alignment=sym.align, is_const=not sym.writable)


def code_object_symbols(code):
    """The symbols of a parsed, unloaded code object (v2 hsa_code_symbol_t API): no addresses."""
    return ([kernel_symbol(sym, meta, 0, 0) for sym, meta in code.kernel_symbols()]
            + [variable_symbol(sym, 0, 0, HsaVariableAllocation.AGENT) for sym in code.variable_symbols()])
