"""Executables and loaded code objects: code objects placed in device memory, symbols resolved.

Holds these invariants:
- a load is all or nothing: every check (frozen state, ELF, target, duplicate definitions,
  undefined symbols) passes before anything is visible, and a failure after the device
  memory was allocated frees it again; a failed load leaves the executable as it was;
- a loaded code object is one arena allocation spanning all of its PT_LOAD segments at
  their ELF offsets from one aligned base; file bytes are copied in, the bss stays zero
  (the arena hands out zeroed pages), relocations are applied, and only then are kernel
  descriptors decoded, from device memory;
- symbol names are keyed as ROCr keys them: program symbols by name, agent symbols by
  (name, agent); a second definition of either is VariableAlreadyDefined;
- nothing changes in a frozen executable (FrozenExecutable).
"""
import threading

import numpy as np

from core import trace
from core import target
from core.errors import (FrozenExecutable, IncompatibleArguments, InvalidArgument, InvalidIsaName,
                         OutOfResources, VariableAlreadyDefined)
from core.loader import relocations
from core.loader.elf import CodeObject
from core.loader.kernels import LoadedKernel
from core.loader.symbols import defined_variable, kernel_symbol, variable_symbol
from core.memory.arena import PAGE
from softgpu_shim.hsa_abi import (HsaExecutableState, HsaVariableAllocation, HsaVariableSegment,
                                  HsaVenAmdLoaderLoadedCodeObjectKind as LoadedKind)


class LoadedCodeObject:
    """One code object in device memory. `load_base` is the device address of ELF vaddr 0."""

    def __init__(self, executable, agent, code, reader, allocation):
        self.executable = executable
        self.agent = agent
        # ROCr loads code objects only for an agent (agent {0} fails: Executable.load).
        self.kind = LoadedKind.AGENT
        self.code = code
        self.allocation = allocation
        self.load_base = allocation.address - code.load_start
        self.load_size = code.load_span
        self.uri = reader.uri
        # The host address of the ELF image ROCr reports (debuggers read the ELF there): the
        # caller's memory for memory readers; for file readers the runtime's own copy, kept
        # for the life of the loaded code object.
        self._file_copy = None if reader.memory_base else np.frombuffer(code.data, dtype=np.uint8).copy()
        self.storage_base = reader.memory_base or int(self._file_copy.ctypes.data)
        self.kernels = {}
        self.handle = 0

    @property
    def elf_bytes(self):
        return self.code.data

    @property
    def metadata(self):
        return self.code.metadata

    @property
    def target(self):
        return self.code.target

    @property
    def processor(self):
        """The processor the kernels run as (a generic object's: its agent's)."""
        return target.run_as(self.code.target, self.agent.isa.target)

    @property
    def load_delta(self):
        return self.load_base

    def device_address(self, vaddr):
        return self.load_base + vaddr

    def contains(self, address):
        return self.allocation.address <= address < self.allocation.address + self.load_size


class Executable:
    def __init__(self, loader, profile, rounding_mode):
        self.loader = loader
        self.profile = profile
        self.rounding_mode = rounding_mode
        self.state = HsaExecutableState.UNFROZEN
        self.program_symbols = {}          # name -> ExecutableSymbol
        self.agent_symbols = {}            # (name, agent handle) -> ExecutableSymbol
        self.loaded = []                   # LoadedCodeObject, in load order
        self.lock = threading.RLock()
        self.handle = 0

    # -- definitions -------------------------------------------------------------------
    def _require_unfrozen(self):
        if self.state == HsaExecutableState.FROZEN:
            raise FrozenExecutable("the executable is frozen")

    def define_program_variable(self, name, address):
        with self.lock:
            self._require_unfrozen()
            if name in self.program_symbols:
                raise VariableAlreadyDefined(f"program variable {name!r} is already defined")
            self._add_symbol(defined_variable(name, address, 0, HsaVariableAllocation.PROGRAM,
                                              HsaVariableSegment.GLOBAL), None)

    def define_agent_variable(self, name, agent_handle, segment, address):
        """The agent is ROCr's key only: it is not checked, as ROCr does not check it."""
        with self.lock:
            self._require_unfrozen()
            if (name, agent_handle) in self.agent_symbols:
                raise VariableAlreadyDefined(f"agent variable {name!r} is already defined")
            self._add_symbol(defined_variable(name, address, agent_handle,
                                              HsaVariableAllocation.AGENT, segment), agent_handle)

    def _add_symbol(self, symbol, agent_handle):
        symbol.handle = self.loader.symbols.add(symbol)
        if agent_handle is None:
            self.program_symbols[symbol.name] = symbol
        else:
            self.agent_symbols[(symbol.name, agent_handle)] = symbol

    # -- loading -----------------------------------------------------------------------
    def load(self, reader, agent, unknown_agent=False):
        """Load the reader's code object for `agent`, checked in ROCr's order: the code object,
        its ISA (one ROCr registers), the agent's support for it. `agent` None is ROCr's agent
        {0}: ROCr allocates the code segment by asking that agent's profile, which fails, so
        the load answers OutOfResources. `unknown_agent`: the client named an agent that does
        not exist; ROCr finds no ISA for it and refuses with IncompatibleArguments."""
        with self.lock:
            self._require_unfrozen()
            code = CodeObject(reader.data)
            if target.registered(code.target) is None:
                raise InvalidIsaName(f"code object's ISA {code.target.isa_name} is not one ROCr registers")
            if unknown_agent:
                raise IncompatibleArguments("the agent is not a live agent: it supports no ISA")
            if agent is None:
                raise OutOfResources("agent {0} has no profile: ROCr cannot allocate a code segment for it "
                                     "(load code objects for an agent)")
            self._check_target(code, agent)
            self._check_duplicates(code, agent)
            undefined = self._resolve_undefined(code, agent)
            arena = self.loader.session.arena
            allocation = arena.allocate(code.load_span, align=max(code.load_align, PAGE), owner=self,
                                        info={"kind": "code object", "uri": reader.uri})
            try:
                lco = LoadedCodeObject(self, agent, code, reader, allocation)
                self._place(arena, lco, undefined)
                symbols = self._symbols(arena, lco)
            except BaseException:
                arena.free(allocation.address)
                raise
            lco.handle = self.loader.loaded_code_objects.add(lco)
            for symbol in symbols:
                self._add_symbol(symbol, agent.handle)
            self.loaded.append(lco)
            self.loader.register_kernels(lco)
            trace.call("loader.load", executable=self.handle, agent=agent.name, processor=lco.processor,
                       uri=lco.uri, load_base=hex(lco.allocation.address), load_size=lco.load_size,
                       kernels={k.name: hex(k.kernel_object) for k in lco.kernels.values()})
            return lco

    @staticmethod
    def _check_target(code, agent):
        if agent.isa is None:
            raise IncompatibleArguments(f"code object built for {code.target.isa_name} cannot run on "
                                        f"agent {agent.name}: it has no ISA")
        agent_target = agent.isa.target
        why = target.incompatibility(code.target, agent_target, code.generic_version)
        if why:
            raise IncompatibleArguments(f"code object built for {code.target.isa_name} cannot run on "
                                        f"agent {agent.name} ({agent_target.isa_name}): {why}")

    def _check_duplicates(self, code, agent):
        names = [s.name for s, _ in code.kernel_symbols()] + [s.name for s in code.variable_symbols()]
        for name in names:
            if (name, agent.handle) in self.agent_symbols:
                raise VariableAlreadyDefined(f"symbol {name!r} is already defined in the executable")

    def _resolve_undefined(self, code, agent):
        """{name: address} of the undefined symbols relocations use; VariableUndefined if any is missing."""
        addresses = {}
        for relocation in code.relocations:
            symbol = code.symbols[relocation.symbol] if relocation.symbol else None
            if symbol is None or symbol.defined or symbol.name in addresses:
                continue
            defined = self.program_symbols.get(symbol.name)
            if defined is None:
                defined = self.agent_symbols.get((symbol.name, agent.handle))
            if defined is None:
                raise relocations.unresolved(symbol)
            addresses[symbol.name] = defined.address
        return addresses

    @staticmethod
    def _place(arena, lco, undefined):
        code = lco.code
        image = arena.view(lco.allocation.address, code.load_span)
        for segment in code.segments:
            start = segment.vaddr - code.load_start
            image[start:start + segment.filesz] = np.frombuffer(
                code.data, dtype=np.uint8, count=segment.filesz, offset=segment.offset)

        def resolve(symbol):
            return lco.device_address(symbol.value) if symbol.defined else undefined[symbol.name]
        relocations.apply(code, image, lco.load_base, resolve)

    def _symbols(self, arena, lco):
        code, agent = lco.code, lco.agent
        agent_handle = agent.handle
        allocation = HsaVariableAllocation.AGENT
        symbols = []
        for sym, meta in code.kernel_symbols():
            address = lco.device_address(sym.value)
            kernel = LoadedKernel(lco, sym, meta, address, arena.view(address, 64))
            lco.kernels[kernel.name] = kernel
            symbol = kernel_symbol(sym, meta, address, agent_handle, kernel.descriptor.uses_dynamic_stack,
                                   kernel.descriptor.wavefront_size)
            symbol.kernel = kernel
            symbols.append(symbol)
        symbols += [variable_symbol(sym, lco.device_address(sym.value), agent_handle, allocation)
                    for sym in code.variable_symbols()]
        return symbols

    # -- queries -----------------------------------------------------------------------
    def freeze(self):
        with self.lock:
            self._require_unfrozen()
            self.state = HsaExecutableState.FROZEN

    def info(self, attribute):
        values = {"PROFILE": self.profile, "STATE": self.state,
                  "DEFAULT_FLOAT_ROUNDING_MODE": self.rounding_mode}
        if attribute not in values:
            raise InvalidArgument(f"{attribute} is not an executable attribute")
        return values[attribute]

    def symbol(self, name, agent_handle):
        """ROCr's lookup: program symbols without an agent, agent symbols with one; or None."""
        if agent_handle is None:
            return self.program_symbols.get(name)
        return self.agent_symbols.get((name, agent_handle))

    def is_program_symbol(self, name):
        return name in self.program_symbols

    def iter_program_symbols(self):
        # ROCr keeps its symbols in ordered maps: program ones by name.
        return [self.program_symbols[k] for k in sorted(self.program_symbols)]

    def iter_agent_symbols(self, agent_handle=None):
        return [self.agent_symbols[k] for k in sorted(self.agent_symbols)
                if agent_handle is None or k[1] == agent_handle]

    def destroy(self):
        """Free every loaded code object and forget every symbol."""
        with self.lock:
            trace.call("loader.destroy", executable=self.handle, code_objects=[lco.uri for lco in self.loaded])
            for lco in self.loaded:
                self.loader.unregister_kernels(lco)
                self.loader.loaded_code_objects.remove(lco.handle)
                self.loader.session.arena.free(lco.allocation.address)
            for symbol in list(self.program_symbols.values()) + list(self.agent_symbols.values()):
                self.loader.symbols.remove(symbol.handle)
            self.loaded, self.program_symbols, self.agent_symbols = [], {}, {}
