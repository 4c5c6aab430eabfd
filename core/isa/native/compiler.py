"""LLVM module -> native code, once: in memory per process, on disk across processes.

Holds these invariants:
- code is generated for the host CPU (its name and features), with no fast-math anywhere and
  the default floating-point environment, so float results are the IEEE ones the ALU
  emitters spell out;
- each translation is a shared object of its own (the object file LLVM emits, linked by the
  C compiler), loaded with dlopen and kept for the life of the process; its function has a
  unique name (from its cache key) and it calls the C helpers through a table the loader
  fills (core/isa/native/shared_object.py);
- the disk cache (core/disk_cache.py: $XDG_CACHE_HOME/softgpu, one flat directory) holds
  one sealed file per translation (core/isa/native/cache_entry.py), named by a key that
  digests the kernel and the identity (core/isa/native/identity.py: engine sources, LLVM,
  CPU), so a stale, foreign or damaged entry is never loaded but rebuilt and replaced; a
  cache that cannot be written is skipped, never an error;
- a translation found on disk costs no LLVM: llvmlite is imported, and LLVM initialised, on
  the first miss only;
- compile time is measured and returned, for the trace;
- Python's cyclic garbage collector is paused while the IR is built and printed, and restored
  after (also on an error).
"""
import gc
import hashlib
import os
import subprocess
import tempfile
import threading
import time

from core.disk_cache import cache_dir, write_whole
from core.isa.native import cache_entry, shared_object
from core.isa.native.identity import identity
from core.isa.native.program import Untranslatable

_lock = threading.Lock()
_loaded = {}        # key -> (address, notes): translations this process has loaded
_llvm = {}          # the target machines, made on the first miss


def _machines():
    """LLVM, initialised once per process, and its target machines for the host CPU."""
    if _llvm:
        return _llvm
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    triple = llvm.get_process_triple()
    target = llvm.Target.from_triple(triple)
    cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    # -O2 code generation: the translated code is straight-line vector code whose speed
    # comes from the IR passes; codegen -O3 costs compile time for little here. Position
    # independent, small code model: the object is linked into a shared object.
    machine, fast_machine = (target.create_target_machine(cpu=cpu, features=features, opt=level,
                                                          reloc="pic", codemodel="default")
                             for level in (2, 0))
    _llvm.update(llvm=llvm, triple=triple, machine=machine, fast_machine=fast_machine)
    return _llvm


def function_name(key):
    return "sg_wave_" + key[:32]


def cache_key(parts):
    """The key of a translation: `parts` (bytes) describe the kernel; the identity the rest."""
    digest = hashlib.sha256(identity(cache_dir()).encode())
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


# Above this many instructions a kernel gets only CFG simplification and -O0 code generation:
# compile time grows faster than linearly with the size of the function, and such kernels
# (-O0 builds, big library kernels) spend less of their time in tight loops.
LARGE = 500


def is_large(instructions):
    """Whether a kernel of `instructions` is compiled as LARGE (and translated to suit)."""
    return instructions > LARGE


def compile_module(key, build, instructions=0):
    """The address of the function `function_name(key)`: loaded from the disk cache, or
    built (`build()` -> (LLVM IR text with that function, JSON-able notes)), optimised and
    compiled. Returns (address, notes, seconds spent, whether it came from disk)."""
    start = time.perf_counter()
    with _lock:
        if key in _loaded:
            # Loaded by an earlier session of this process: the key digests everything the
            # code depends on, so that code serves.
            address, notes = _loaded[key]
            return address, notes, time.perf_counter() - start, True
        path = os.path.join(cache_dir(), key + cache_entry.SUFFIX)
        found = cache_entry.open_entry(path, key)
        cached = found is not None
        if cached:
            fd, notes = found
        else:
            text, notes = _without_gc(build)
            entry = cache_entry.seal(_link(_compile(text, is_large(instructions))), key, notes)
            write_whole(path, entry)
            fd = cache_entry.in_memory(entry)
        address = shared_object.load(fd, function_name(key))
        _loaded[key] = (address, notes)
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


def _compile(text, large):
    """The object file of the IR `text`."""
    state = _machines()
    llvm = state["llvm"]
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


def _link(obj):
    """The shared object of the object file `obj`, linked by the C compiler (every machine that
    builds SoftGPU has one): with libm for the calls LLVM makes of it (sin, fmod, ...) and its
    own runtime routines, binding its own symbols to itself (-Bsymbolic: no other object's
    table or function can interpose), and a stack that is not executable."""
    with tempfile.TemporaryDirectory(prefix="softgpu-link-") as tmp:
        source, target = os.path.join(tmp, "code.o"), os.path.join(tmp, "code.so")
        with open(source, "wb") as f:
            f.write(obj)
        try:
            done = subprocess.run(["cc", "-shared", "-Wl,-Bsymbolic", "-Wl,-z,noexecstack",
                                   "-o", target, source, "-lm"], capture_output=True, text=True)
        except OSError as exc:
            raise Untranslatable(f"no C compiler to link its native code ({exc})") from exc
        if done.returncode != 0:
            raise RuntimeError(f"linking a translation failed: {done.stderr.strip()}")
        with open(target, "rb") as f:
            return f.read()
