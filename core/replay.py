"""`softgpu replay DIR`: run captured dispatches again, alone, and compare with what they did.

Holds these invariants:
- the replay sees what the captured dispatch saw: the same device memory at the same
  addresses (the arena is placed at the captured base; registered and locked host ranges
  are mapped back at their addresses and registered or locked again), the same code object
  at the same load address, the same packet and kernarg bytes;
- every captured range is compared with the captured after-state, and a difference is
  reported as the first differing offset and bytes of that range; a fault must recur as
  the same status at the same PC to count as identical;
- the tier is the caller's choice (--engine, or SOFTGPU_ENGINE), so one capture compares
  tiers or SoftGPU versions.
"""
import os

import numpy as np

from core.capture import store

SHOWN_BYTES = 16


class Mismatch:
    def __init__(self, start, size, offset, got, want):
        self.start, self.size, self.offset, self.got, self.want = start, size, offset, got, want

    def __str__(self):
        return (f"range {self.start:#x} ({self.size} bytes): first difference at +{self.offset:#x}: "
                f"replayed {self.got.hex(' ')}, captured {self.want.hex(' ')}")


def replay(folder, engine=None):
    """Run one capture folder; returns (list of lines to print, identical: bool)."""
    if engine:
        os.environ["SOFTGPU_ENGINE"] = engine
    manifest = store.read_manifest(folder)
    os.environ.setdefault("SOFTGPU_PROFILE", manifest["profile"])
    from core import native, runtime  # noqa: F401  (native: the library's C side in this process)
    from core.isa.faults import KernelFault
    from core.isa.launch import run_dispatch
    runtime.open_session(arena_base=manifest["arena"]["base"])
    host_mappings = []
    try:
        session = runtime.require()
        _restore(session, folder, manifest, host_mappings)
        kernel = _kernel(session, folder, manifest)
        dispatch = {k: tuple(v) if isinstance(v, list) else v for k, v in manifest["dispatch"].items()}
        fault = None
        try:
            stats = run_dispatch(session, kernel, **dispatch)
        except KernelFault as error:
            fault, stats = error, None
        # A fault ends a dispatch without its statistics, so which tier ran it is not known.
        tier = f"on the {stats.tier} tier" if stats is not None else "(tier not reported: it faulted)"
        lines = [f"{os.path.basename(folder)}: {kernel.name} grid {dispatch['grid']} "
                 f"workgroup {dispatch['workgroup']} {tier}"]
        identical = True
        want_fault = manifest["result"]["fault"]
        if (fault is None) != (want_fault is None) or (
                fault is not None and (fault.status.name, fault.report["pc"]) != (want_fault["status"], want_fault["pc"])):
            identical = False
            lines.append(f"  outcome differs: replayed {_outcome(fault)}, captured {_captured_outcome(want_fault)}")
        for mismatch in _compare(session, folder, manifest):
            identical = False
            lines.append(f"  {mismatch}")
        lines.append("  identical" if identical else "  DIFFERENT")
        return lines, identical
    finally:
        runtime.close_session()
        for mapping in host_mappings:
            mapping.close()


def _outcome(fault):
    return "completion" if fault is None else f"fault {fault.status.name} at pc {fault.report['pc']:#x}"


def _captured_outcome(fault):
    return "completion" if fault is None else f"fault {fault['status']} at pc {fault['pc']:#x}"


def _restore(session, folder, manifest, mappings):
    """Put the before-state back, adding the host mappings made for it to `mappings` (closed
    by the caller, also when a later range cannot be restored). A host range must come back
    at its captured address: where this process already has something mapped there (its
    libraries and heap lie elsewhere in each process), InvalidAllocation says which."""
    from core.errors import InvalidAllocation
    from core.memory.arena import FixedMapping, PAGE
    from core.memory.host import view
    for r in manifest["ranges"]:
        start, size, space = r["start"], r["size"], r["space"]
        data = store.read_range(folder, "before", start)
        if space == "arena":
            session.arena.allocate_at(start, size, info={"what": "replayed capture"})
            session.arena.view(start, size)[:] = data
            continue
        first = start // PAGE * PAGE
        try:
            mappings.append(FixedMapping(first, -(-(start + size - first) // PAGE) * PAGE))
        except InvalidAllocation as error:
            raise InvalidAllocation(f"the captured {space} host range {start:#x} ({size} bytes) lies where "
                                    f"this process has memory mapped ({error}); a new process may "
                                    f"place its own elsewhere") from None
        view(start, size)[:] = data
        if space == "locked":
            session.memory.lock(start, size, list(session.agents.gpus), None)
        else:
            session.memory.register(start, size)


def _kernel(session, folder, manifest):
    from core.loader.elf import CodeObject
    from core.loader.executable import LoadedCodeObject
    from core.loader.kernels import LoadedKernel
    from core.loader.loader import CodeObjectReader
    with open(os.path.join(folder, store.CODE_OBJECT), "rb") as f:
        data = f.read()
    code = CodeObject(data)
    wanted = manifest["kernel"]
    load_base = wanted["load_base"]
    allocation = session.arena.find(load_base + code.load_start)
    agent = session.agents.gpus[manifest["agent"]["index"]]
    loaded = LoadedCodeObject(None, agent, code, CodeObjectReader(data, f"file://{folder}/{store.CODE_OBJECT}"),
                              allocation)
    for sym, meta in code.kernel_symbols():
        if meta[".name"] == wanted["name"] and loaded.device_address(sym.value) == wanted["kernel_object"]:
            address = loaded.device_address(sym.value)
            return LoadedKernel(loaded, sym, meta, address, session.arena.view(address, 64))
    raise ValueError(f"{folder}: the code object has no kernel {wanted['name']} at {wanted['kernel_object']:#x}")


def _compare(session, folder, manifest):
    from core.memory.host import view
    for r in manifest["ranges"]:
        start, size = r["start"], r["size"]
        got = session.arena.view(start, size) if r["space"] == "arena" else view(start, size)
        want = store.read_range(folder, "after", start)
        differs = np.flatnonzero(got != want)
        if differs.size:
            offset = int(differs[0])
            yield Mismatch(start, size, offset, got[offset:offset + SHOWN_BYTES].tobytes(),
                           want[offset:offset + SHOWN_BYTES].tobytes())
