"""LLVM module -> native code, once: in memory per process, on disk across processes.

Holds these invariants:
- code is generated for the host CPU (its name and features), with no fast-math anywhere and
  the default floating-point environment, so float results are the IEEE ones the ALU
  emitters spell out;
- each translation gets its own MCJIT engine, kept for the life of the process; its function
  has a unique name (its cache key), and the C helpers it calls are bound by name to the
  library's addresses;
- the disk cache ($XDG_CACHE_HOME/softgpu, default ~/.cache/softgpu) holds object files keyed
  by the translation key, the SoftGPU version, a digest of the ISA engine's sources, the LLVM
  version and the CPU, so a stale or foreign object is never loaded; a cache that cannot be
  written is skipped, never an error;
- compile time is measured and returned, for the trace;
- Python's cyclic garbage collector is paused while the IR is built and printed, and restored
  after (also on an error).
"""
import gc
import hashlib
import json
import os
import tempfile
import threading
import time

import llvmlite.binding as llvm

from core.isa.native.runner_layout import external_addresses

_lock = threading.Lock()
_state = {}


def _init():
    """The target machine and the engine (created once per process)."""
    if "machine" in _state:
        return _state
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    triple = llvm.get_process_triple()
    cpu = llvm.get_host_cpu_name()
    features = llvm.get_host_cpu_features().flatten()
    target = llvm.Target.from_triple(triple)
    # -O2 code generation: the translated code is straight-line vector code whose speed
    # comes from the IR passes; codegen -O3 costs compile time for little here.
    machine, fast_machine = (target.create_target_machine(cpu=cpu, features=features, opt=level,
                                                          reloc="pic", codemodel="jitdefault", jit=True)
                             for level in (2, 0))
    for name, address in external_addresses().items():
        llvm.add_symbol(name, address)
    _state.update(triple=triple, cpu=cpu, features=features, machine=machine,
                  fast_machine=fast_machine, engines=[], loaded={},
                  identity=_identity(cpu, features))
    return _state


def _identity(cpu, features):
    """What a cached object depends on besides the kernel: versions, sources, CPU."""
    digest = hashlib.sha256()
    # The whole engine, not the translator alone: translations are built from the decoder's
    # tables and the semantics records both tiers share (core/isa/semantics/).
    engine = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for root, _dirs, files in sorted(os.walk(engine)):
        for name in sorted(files):
            if name.endswith((".py", ".h", ".c")):
                with open(os.path.join(root, name), "rb") as f:
                    digest.update(name.encode() + b"\0" + f.read())
    digest.update(_softgpu_version().encode())
    digest.update(".".join(map(str, llvm.llvm_version_info)).encode())
    digest.update(cpu.encode() + features.encode())
    return digest.hexdigest()


def _softgpu_version():
    try:
        from importlib.metadata import version
        return version("softgpu")
    except Exception:          # not installed (a plain checkout): the sources' digest decides
        return "checkout"


def cache_dir():
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "softgpu")


def function_name(key):
    return "sg_wave_" + key[:32]


def cache_key(parts):
    """The key of a translation: `parts` (bytes) describe the kernel; the identity the rest."""
    state = _init()
    digest = hashlib.sha256(state["identity"].encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


# Above this many instructions a kernel gets only CFG simplification and -O0 code generation:
# compile time grows faster than linearly with the size of the function, and such kernels
# (-O0 builds, big library kernels) spend less of their time in tight loops.
LARGE = 500


def compile_module(key, build, instructions=0):
    """The address of the function `function_name(key)`: loaded from the disk cache, or
    built (`build()` -> (LLVM IR text with that function, JSON-able notes)), optimised and
    compiled. Returns (address, notes, seconds spent, whether it came from disk)."""
    start = time.perf_counter()
    with _lock:
        state = _init()
        if key in state["loaded"]:
            # Loaded by an earlier session of this process: the key digests everything the
            # code depends on, so that code serves. (Loading it again each session left an
            # engine's three mappings behind per hsa_init/hsa_shut_down cycle.)
            address, notes = state["loaded"][key]
            return address, notes, time.perf_counter() - start, True
        path = os.path.join(cache_dir(), key)
        obj, notes = _read(path + ".o", "rb"), _read(path + ".json", "r")
        cached = obj is not None and notes is not None
        if cached:
            notes = json.loads(notes)
        else:
            text, notes = _without_gc(build)
            obj = _compile(state, text, instructions > LARGE)
            _write(path + ".json", json.dumps(notes).encode())
            _write(path + ".o", obj)
        # One engine per translation (MCJIT re-finalizing an engine that already runs code
        # crashed in tests); engines live as long as the process, as their code may run.
        engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), state["machine"])
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        state["engines"].append(engine)
        address = engine.get_function_address(function_name(key))
        state["loaded"][key] = (address, notes)
    return address, notes, time.perf_counter() - start, cached


def _without_gc(build):
    """build() with the cyclic collector paused: llvmlite's IR is ~10^5 objects whose links
    form cycles, and the collections they trigger rescan all of them (int_minmax -O0, 1,008
    instructions: building and printing 0.40 s with collections, 0.20 s without)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return build()
    finally:
        if enabled:
            gc.enable()


def _compile(state, text, large):
    module = llvm.parse_assembly(text)
    module.triple = state["triple"]
    machine = state["fast_machine" if large else "machine"]
    module.data_layout = str(machine.target_data)
    tuning = llvm.create_pipeline_tuning_options(speed_level=2)
    # Loop vectorisation and unrolling buy nothing: the code is vector code already, and
    # its loops are the kernel's (they yield), so turning them off saves compile time.
    tuning.loop_vectorization = False
    tuning.slp_vectorization = False
    tuning.loop_unrolling = False
    tuning.loop_interleaving = False
    builder = llvm.create_pass_builder(machine, tuning)
    if large:
        # Registers stay in their allocas: -O0's register allocator spills every value live
        # across a block and reloads it at each use, so SSA registers (SROA, or the -O1
        # pipeline's mem2reg) made the code twice as big and slower than loads and stores of
        # the allocas (int_minmax -O0, 16,384 items: 2.1 -> 1.45 ms; double_transcendental
        # -O0: 18 -> 4.8 ms), and the -O1 passes took 0.38 s of int_minmax's 0.93 s.
        passes = llvm.create_new_module_pass_manager()
        passes.add_simplify_cfg_pass()
        passes.run(module, builder)
    else:
        builder.getModulePassManager().run(module, builder)
    return machine.emit_object(module)


def _read(path, mode):
    try:
        with open(path, mode) as f:
            return f.read()
    except OSError:
        return None


def _write(path, data):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass
