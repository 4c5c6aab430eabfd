"""One dispatch on the native tier: the kernel's translation (once), its launch template, and
the C runner called with the GIL released.

Holds these invariants:
- a kernel is translated at most once per loaded code object and wave size (and loaded from
  the disk cache when another process translated it); a kernel that cannot be translated is
  remembered as such, traced once with the instruction that stops it, and runs on the
  interpreter (run_native answers None); one thread makes it while others that need it wait
  (Pending), and a dispatch of the tiered engine looks for it without waiting on LLVM
  (translation_or_unmade: made here, loaded from disk, else Unmade, which the tiered engine
  queues for the translator thread with start_translation when it decides to); a kernel is
  read (its reachable code decoded for the cache key) at its first such dispatch only when
  the disk cache holds a hint of it, left by every translation made or loaded, else when
  its translation is asked for;
- a tier switch runs the workgroups from `first_group` on (grid order) natively, the ones
  before it having ended on the interpreter;
- the launch template is the interpreter's launch state (core/isa/interp/chunk.py): the same
  user SGPRs, workgroup ids and info, scratch layout (interleaved per wave), work-item ids
  and EXEC, MODE from the descriptor;
- every access is checked against the valid ranges as the dispatch starts (arena allocations
  mapped to the kernel's agent, locked and registered host memory), or as they are when it
  reaches memory allocated since (core/isa/native/live_memory.py), and scratch is one arena
  allocation for the waves in flight, freed when the dispatch ends, also on a fault;
- a fault raises KernelFault with the interpreter's report and status;
- a wave yields to its workgroup's other waves after GROUP_TURN instructions in a loop, and
  before an LDS store once it read LDS and ran STORE_TURN instructions in its turn, so the
  waves of a group progress together as on a GPU (a workgroup of one wave yields after
  QUANTUM, for forward progress alone).
"""
import hashlib
import math
import os
import struct
import threading
import time
import weakref

from core import settings, trace
from core.isa.disasm import format_instruction
from core.isa.faults import KernelFault, illegal_instruction, memory_fault, time_limit_fault
from core.isa.layout import layout, private_segment_buffer, user_sgpr_width
from core.isa.native import compiler, runner_layout as C
from core.isa.native.identity import identity
from core.isa.native.live_memory import live_memory, valid_ranges
from core.isa.native.translator import Cancelled
from core.isa.native.program import Program, Untranslatable
from core.isa.plan import DispatchStats, DispatchStopped, kernel_name, long_dispatch
from core.native import ffi, lib
from core.hsa_abi import Status

# Instructions a wave runs in a loop before it lets the other waves of its thread run: a few
# microseconds of a spinning loop, long against a yield (~0.1 us: the registers go to memory
# and come back), short enough that a chain of 160 workgroups waiting on each other resolves
# within the interpreter's watchdog.
QUANTUM = 1 << 14
# The turn of a wave whose workgroup has other waves: on a GPU they run side by side, and
# kernels rely on no wave overtaking the rest by a long computation, even where no barrier
# says so (rocSOLVER's syevj_small_kernel reads LDS right after a barrier that another wave
# overwrites once it has computed a rotation). A few hundred instructions keep the waves
# that close at a cost of about 5% on a tight loop (engine_bench's FMA loop); a single-wave
# workgroup keeps QUANTUM.
GROUP_TURN = 256
# Where a workgroup has other runnable waves, a wave that read LDS and ran this many
# instructions in its turn ends the turn before an LDS store, so every wave reaches its own
# store (reading what it reads before) first: on a GPU the waves issue side by side, and
# straight-line code is never cut by a turn. A turn without LDS reads is not cut: the stores
# of a tiled loop (SGEMM's tiles) follow a barrier and global loads, and cost nothing more.
# rocSOLVER's potf2_kernel_small reads the pivot from LDS right after a barrier, and thread 0
# stores its square root back about 40 instructions later with no barrier between; wave 0 ran
# that far alone, so the other waves took the root of the root
# (HEGVX.batched__float_complex/46). 16 is the interpreter's turn in a polling loop.
STORE_TURN = 16

_BY_CODE_OBJECT = weakref.WeakKeyDictionary()   # LoadedCodeObject -> {(entry, wave64): Native...}
_lock = threading.Lock()        # guards the dictionaries above, never held across a compile
# Held around every compile_module call: a dispatch that only looks for a cached translation
# takes it without blocking, or does not look (compile_module's own lock is held for a whole
# compile, seconds, which a short dispatch must not wait for).
llvm_gate = threading.Lock()


class Native:
    """A kernel's translation: its entry point and what fault reports need."""

    def __init__(self, program, address, reasons, access_sites, callouts, frame_kib):
        self.program = program
        self.address = address
        self.frame_kib = frame_kib      # the stack its wave function takes (runner.h: Stacks)
        self.reasons = reasons          # fault detail -> the interpreter's reason text
        self.access_sites = access_sites
        self.callouts = callouts        # instructions handed to the interpreter (handover.py)
        self.compile_seconds = 0.0      # what making it cost (compiler.compile_module)
        self.cached = True              # whether it was loaded rather than compiled


class Fallback:
    """A kernel the translator cannot take, and why."""

    def __init__(self, error):
        self.error = error


class Pending:
    """A translation being made, by the translator thread (core/isa/native/translator.py) or by
    another dispatch's thread: `result()` waits for its Native or Fallback."""

    def __init__(self, cache, key):
        self.cache, self.key = cache, key       # where its result goes once made
        self.instructions = None                # the kernel's, once its program is read
        self.expected_ready = None              # time.monotonic() it should be made by
        self._done = threading.Event()
        self._result = self._error = None

    def ready(self):
        return self._done.is_set()

    def result(self, timeout=None):
        """The Native or Fallback (waiting up to `timeout` seconds, None: as long as it takes;
        None if not made by then); raises the error that stopped its making."""
        if not self._done.wait(timeout):
            return None
        if self._error is not None:
            raise self._error
        return self._result

    def settle(self, result=None, error=None):
        """Give the translation (or the error that stopped it: then the kernel's next dispatch
        tries again) to every waiter and to later dispatches."""
        with _lock:
            if self.cache.get(self.key) is self:
                if error is None:
                    self.cache[self.key] = result
                else:
                    del self.cache[self.key]
        self._result, self._error = result, error
        self._done.set()

    def make(self, translate):
        """Settle with translate()'s answer (or error, raised here too)."""
        try:
            result = translate()
        except BaseException as error:
            self.settle(error=error)
            raise
        self.settle(result)
        return result


class Unmade:
    """A kernel not translated yet whose translation the tiered engine has not asked for
    (core/isa/tiering.py): what it is made from once read (`work`, else None: `instructions`
    is then an estimate from its code's size), and the interpreter seconds its dispatches
    have cost so far, in this process and in earlier ones that used the same disk cache
    (`paid`; tiering adds through pay())."""

    def __init__(self, cache, key, work, looked, session=None, kernel=None, desc=None, estimate=None):
        self.cache, self.key = cache, key
        self.work = work
        self.instructions = len(work.program.instructions) if work is not None else estimate
        self.looked = looked            # whether the disk cache was looked in (LLVM was free)
        self._hint = work.hint if work is not None else _hint_of(kernel, desc)[0]
        self.paid = rent_paid(self._hint)
        self._source = (session, kernel, desc)

    def pay(self, seconds):
        """Add an interpreter run's `seconds` to what the kernel has cost, here and on disk."""
        self.paid += seconds
        _pay_rent(self._hint, seconds)

    def read(self):
        """Read the kernel (its Work: the program, the cache key, the exact `instructions`)
        if not yet read: False when it cannot be translated (it is then a Fallback)."""
        if self.work is not None or self._source is None:
            return self.work is not None
        session, kernel, desc = self._source
        self._source = None
        try:
            self.work = Work(session, kernel, desc)
        except Untranslatable as exc:
            made = fallback(kernel_name(kernel), exc)
            with _lock:
                if self.cache.get(self.key) is self:
                    self.cache[self.key] = made
            return False
        self.instructions = len(self.work.program.instructions)
        return True


class NotCached(Exception):
    """compile_module asked for the module: neither this process nor the disk cache holds it."""


class Work:
    """What a kernel's translation is made from: its program (a copy of its code, which the
    translation outlives) and its cache key."""

    def __init__(self, session, kernel, desc):
        self.name = kernel_name(kernel)
        self.desc = desc
        self.program = program_of(session, kernel, desc)
        self.key = compiler.cache_key(_key_parts(self.program, desc))
        self.hint = _hint_of(kernel, desc)[0]

    def build(self, pace=None):
        from core.isa.native.translate import translate  # llvmlite loads on first translation
        translation = translate(self.program, self.desc.lanes, self.desc.nvgpr,
                                compiler.function_name(self.key), pace)
        return str(translation.module), {"reasons": translation.reasons,
                                         "access_sites": translation.access_sites,
                                         "callouts": translation.callouts}

    def made(self, build, **trace_fields):
        """The Native translation (compile_module with `build`), or a Fallback."""
        try:
            address, notes, seconds, cached = compiler.compile_module(
                self.key, build, len(self.program.instructions))
            frame_kib = _frame_kib(address)
        except Untranslatable as exc:
            return fallback(self.name, exc)
        trace.event("native_compile", kernel=self.name, seconds=seconds, cached=cached,
                    instructions=len(self.program.instructions), callouts=notes["callouts"],
                    frame_kib=frame_kib, **trace_fields)
        if self.hint is not None:
            _write_hint(self.key, self.hint)
        native = Native(self.program, address, notes["reasons"], notes["access_sites"],
                        notes["callouts"], frame_kib)
        native.compile_seconds, native.cached = seconds, cached
        return native


def _not_cached():
    raise NotCached()


def native_for(session, kernel, desc):
    """The Native translation of `kernel`, or a Fallback: translated at most once, on this
    thread, or waited for when another thread (the translator's) is making it."""
    found, claimed = _claim(kernel, desc, take_unmade=True)
    if not claimed:
        if not isinstance(found, Pending):
            return found
        try:
            return found.result()
        except _Deferred:
            return native_for(session, kernel, desc)
    work = found.work
    if work is None:
        return found.make(lambda: _translate(session, kernel, desc))
    return found.make(lambda: _made_now(work))


def translation_or_unmade(session, kernel, desc):
    """Without waiting on LLVM: the kernel's Native or Fallback when this process made it or
    the disk cache holds it, its Pending when it is being made, else its Unmade (the disk
    cache is looked in once, when LLVM is free; an Unmade stays until start_translation)."""
    found, claimed = _claim(kernel, desc)
    if isinstance(found, Unmade) and not found.looked:
        return _look_again(found)
    if not claimed:
        return found
    estimate = _unhinted_size(kernel, desc)
    if estimate is not None:            # not in the disk cache: read the kernel when asked to
        unmade = Unmade(found.cache, found.key, None, True, session, kernel, desc, estimate)
        with _lock:
            if found.cache.get(found.key) is found:
                found.cache[found.key] = unmade
        found.settle(error=_Deferred())
        return unmade
    try:
        work = Work(session, kernel, desc)
    except Untranslatable as exc:
        found.settle(fallback(kernel_name(kernel), exc))
        return found.result()
    except BaseException as error:
        found.settle(error=error)
        raise
    cached = _load_cached(work, found)
    if cached is not None:
        return cached
    unmade = Unmade(found.cache, found.key, work, looked=found.looked)
    with _lock:
        if found.cache.get(found.key) is found:
            found.cache[found.key] = unmade
    found.settle(error=_Deferred())     # nobody waits on a Pending the claimer made
    return unmade


class _Deferred(Cancelled):
    """What a claim's Pending settles with when its kernel becomes Unmade instead: a thread
    that waited on it asks again (native_for) or runs the interpreter (tiering)."""


def start_translation(unmade, translator):
    """Queue `unmade` for `translator` (core/isa/native/translator.py): the kernel's Pending,
    or what another thread made of it first (Pending, Native or Fallback). The kernel is read
    first (unmade.read()) if it was not: one that cannot be translated becomes a Fallback."""
    if not unmade.read():
        with _lock:
            return unmade.cache.get(unmade.key)     # its Fallback
    with _lock:
        current = unmade.cache.get(unmade.key)
        if isinstance(current, Unmade) and current.work is not None:
            unmade = current            # (the one this process holds now)
        elif current is not None and not isinstance(current, Unmade):
            return current              # (a Fallback if it could not be read)
        pending = unmade.cache[unmade.key] = Pending(unmade.cache, unmade.key)
    pending.instructions = unmade.instructions
    translator.submit(unmade.work, pending)
    return pending


def translation_state(kernel, desc):
    """What this process holds of the kernel's translation (Native, Fallback, Pending, Unmade),
    or None: nothing is claimed nor started."""
    owner = getattr(kernel, "code_object", None)
    with _lock:
        return _BY_CODE_OBJECT.get(owner, {}).get((kernel.entry, desc.wave64)) if owner is not None else None


def _look_again(unmade):
    """The Native or Fallback of an Unmade the disk cache was not looked in for (LLVM was
    busy) when it holds it now, else the Unmade."""
    if not llvm_gate.acquire(blocking=False):
        return unmade
    try:
        result = unmade.work.made(_not_cached)
    except NotCached:
        unmade.looked = True
        return unmade
    finally:
        llvm_gate.release()
    with _lock:
        if unmade.cache.get(unmade.key) is unmade:
            unmade.cache[unmade.key] = result
    return result


# Bytes of code per instruction, to estimate a kernel's size before reading it: the median
# of the kernel suite's (64 kernels, gfx1030: 6.2; 4.5-7.5 but for -O0 kernels that call
# functions, whose code lies outside the kernel's symbol).
BYTES_PER_INSTRUCTION = 6.2
# The most one interpreter run counts toward a kernel's rent when read back from disk: a
# record above it is no run's (a damaged file), not a reason to translate.
RENT_RUN_MAX_SECONDS = 3600.0
_CODE_DIGESTS = weakref.WeakKeyDictionary()    # LoadedCodeObject -> its ELF's sha256
_listing = (None, frozenset())                  # ((cache folder, mtime), hint names in it)


def _unhinted_size(kernel, desc):
    """The estimated instructions of a kernel of which the disk cache holds no hint (no
    translation of it was made or loaded since the cache's entries were written: reading it
    would find nothing), else None (a hint, or no size known: read it and look).

    Reading a kernel decodes all its reachable code (~60 us an instruction: 1.1 s for the 64
    kernels of benchmarks/cold_start.py, a third of their interpreter time), which the cache
    key digests; a hint, an empty file `<key>.<hint name>.hint` in the cache (part of the
    key's entry for core/isa/native/cache_files.py), names the kernel by what is known before
    reading it: its code object's bytes, its entry and its launch parameters."""
    name, size = _hint_of(kernel, desc)
    if name is None or not size or name in _hints_present():
        return None
    return max(1, round(size / BYTES_PER_INSTRUCTION))


def _hints_present():
    """The hint names in the disk cache: listed again only when the folder changed (its
    modification time: a file added or removed)."""
    global _listing
    directory = compiler.cache_dir()
    try:
        stamp = (directory, os.stat(directory).st_mtime_ns)
    except OSError:
        return frozenset()
    listing = _listing
    if listing[0] != stamp:
        try:
            names = os.listdir(directory)
        except OSError:
            names = ()
        listing = _listing = (stamp, frozenset(n.split(".")[1] for n in names
                                               if n.endswith(".hint") and n.count(".") == 2))
    return listing[1]


def _hint_of(kernel, desc):
    """(the kernel's hint name, its code symbol's size), or (None, None) without a code
    object of known bytes."""
    owner = getattr(kernel, "code_object", None)
    code = getattr(owner, "code", None)
    if code is None or not hasattr(code, "data"):
        return None, None
    entry = kernel.entry - owner.load_base
    with _lock:
        code_digest = _CODE_DIGESTS.get(owner)
    if code_digest is None:
        code_digest = hashlib.sha256(bytes(code.data)).digest()
        with _lock:
            _CODE_DIGESTS[owner] = code_digest
    digest = hashlib.sha256(identity(compiler.cache_dir()).encode() + code_digest)
    digest.update(f"{entry}:{desc.wave64}:{desc.nvgpr}:{desc.initial_mode}:{desc.target.name}:"
                  f"{desc.accum_offset}".encode())
    size = next((s.size for s in code.symbols
                 if s.value == entry and s.size and s.type == "STT_FUNC"), 0)
    return digest.hexdigest()[:32], size


def _rent_path(name):
    return os.path.join(compiler.cache_dir(), f"{name}.rent")


def rent_paid(name):
    """The interpreter seconds the kernel of hint `name` has cost the processes that used this
    disk cache (its `<name>.rent` file: one little-endian double a run, appended), so a
    kernel that each of many short processes runs briefly is translated once they together
    paid its rent. 0.0 without a name or a readable file; values that are no duration (a
    damaged or foreign file) count as nothing."""
    if name is None:
        return 0.0
    try:
        with open(_rent_path(name), "rb") as f:
            data = f.read()
    except OSError:
        return 0.0
    runs = struct.unpack(f"<{len(data) // 8}d", data[:len(data) // 8 * 8])
    return float(sum(s for s in runs if math.isfinite(s) and 0.0 <= s <= RENT_RUN_MAX_SECONDS))


def _pay_rent(name, seconds):
    """Append one run's `seconds` to the rent file of hint `name` (O_APPEND: concurrent
    processes' records never interleave; no error when the cache cannot be written)."""
    if name is None or not seconds > 0:
        return
    try:
        fd = os.open(_rent_path(name), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError:
        return
    try:
        os.write(fd, struct.pack("<d", seconds))
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_hint(key, name):
    """Leave the hint `name` of a kernel translated or loaded under `key` (no error when the
    cache cannot be written)."""
    path = os.path.join(compiler.cache_dir(), f"{key}.{name}.hint")
    if os.path.exists(path):
        return
    try:
        with open(path, "xb"):
            pass
    except OSError:
        pass


def _made_now(work):
    with llvm_gate:
        return work.made(work.build)


def _load_cached(work, pending):
    """The Native or Fallback of `work` when it is cached and LLVM is free (settling
    `pending`), else None: a dispatch never waits for another kernel's compile;
    pending.looked says whether the cache was looked in."""
    pending.looked = False
    if not llvm_gate.acquire(blocking=False):
        return None
    try:
        pending.looked = True
        result = work.made(_not_cached)
    except NotCached:
        return None
    except BaseException as error:
        pending.settle(error=error)
        raise
    finally:
        llvm_gate.release()
    pending.settle(result)
    return result


def _claim(kernel, desc, take_unmade=False):
    """(the kernel's Native, Fallback, Pending or Unmade; False), or (a new Pending; True)
    which the caller must settle: with `take_unmade`, an Unmade is taken too, its Pending
    then carrying its `work` (else None)."""
    owner = getattr(kernel, "code_object", None)
    key = (kernel.entry, desc.wave64)
    with _lock:
        cache = _BY_CODE_OBJECT.setdefault(owner, {}) if owner is not None else {}
        found = cache.get(key)
        if found is not None and not (take_unmade and isinstance(found, Unmade)):
            return found, False
        pending = cache[key] = Pending(cache, key)
        pending.work = found.work if found is not None else None
        return pending, True


def program_of(session, kernel, desc):
    """The Program (reachable code) of a loaded kernel, as the translator reads it; raises
    Untranslatable."""
    arena = session.arena
    alloc = arena.find(kernel.entry)
    if alloc is None:
        raise Untranslatable("the kernel entry lies outside every live allocation")
    # A copy: the translation outlives nothing of the arena's (its mapping can go).
    memory = arena.bytes[alloc.address - arena.base:alloc.end - arena.base].copy()
    return Program(memory, alloc.address, alloc.end, kernel.entry, desc.wave64,
                   desc.initial_mode, _functions(kernel), desc.target, desc.accum_offset)


def _translate(session, kernel, desc):
    try:
        work = Work(session, kernel, desc)
    except Untranslatable as exc:
        return fallback(kernel_name(kernel), exc)
    with llvm_gate:
        return work.made(work.build)


def fallback(name, exc):
    """The Fallback of a kernel the translator stopped at (traced once)."""
    inst = exc.instruction
    trace.event("native_fallback", kernel=name, reason=exc.reason,
                instruction=format_instruction(inst) if inst is not None else None,
                pc=inst.address if inst is not None else None)
    return Fallback(exc)


def frame_fits(frame_kib):
    """Whether a native thread's stack holds a wave function's frame and leaves the margin
    the C helpers and callouts it calls need (runner.h: Stacks)."""
    return frame_kib + C.STACK_MARGIN_KIB <= C.THREAD_STACK_KIB


def _frame_kib(address):
    """The frame of a compiled wave function (it measures it when called with a null wave);
    raises Untranslatable when no native thread's stack holds it."""
    frame_kib = int(ffi.cast("sg_wave_fn", address)(ffi.NULL, ffi.NULL, ffi.NULL))
    if not frame_fits(frame_kib):
        raise Untranslatable(f"its stack frame ({frame_kib} KiB) leaves less than "
                             f"{C.STACK_MARGIN_KIB} KiB of a native thread's "
                             f"{C.THREAD_STACK_KIB} KiB stack")
    return frame_kib


def _functions(kernel):
    owner = getattr(kernel, "code_object", None)
    if owner is None:
        return ()
    return tuple(owner.device_address(address) for address in owner.code.code_addresses())


def _key_parts(program, desc):
    base = program.base
    body = bytearray()
    for address in sorted(program.instructions):
        inst = program.instructions[address]
        body += (address - base).to_bytes(8, "little")
        body += bytes(program.memory[address - base:address - base + inst.size])
    targets = b"".join((t - base).to_bytes(8, "little", signed=True) for t in sorted(program.functions))
    params = (f"{program.entry - base}:{desc.wave64}:{desc.nvgpr}:{desc.initial_mode}:"
              f"{desc.target.name}:{desc.accum_offset}").encode()
    return [bytes(body), targets, params]


# ---- the dispatch ---------------------------------------------------------------------------
def run_native(session, plan):
    """Run a dispatch (a core.isa.plan.DispatchPlan) on the native tier; None when the kernel
    must run on the interpreter. run_dispatch has checked the launch (sizes, LDS, target).
    Instructions the translator hands over (GDS, images, formatted buffers...) run on the
    interpreter's handlers (handover.py); GWS waits are not handed over: their kernels run on
    the interpreter."""
    native = native_for(session, plan.kernel, plan.desc)
    if isinstance(native, Fallback):
        return None
    return run_translation(session, plan, native)


def run_translation(session, plan, native, first_group=0):
    """Run the workgroups of a dispatch from `first_group` on (grid order; the ones before it
    ran on the interpreter: a tier switch) with its Native translation: DispatchStats of
    those, or KernelFault / DispatchStopped as run_native."""
    from core import progress
    start = time.perf_counter()
    name, desc, kernel = plan.name, plan.desc, plan.kernel
    lanes = desc.lanes
    private_bytes = plan.private_bytes
    d = ffi.new("sg_dispatch *")
    d.wave = ffi.cast("sg_wave_fn", native.address)
    d.frame_kib = native.frame_kib
    d.lanes, d.nvgpr, d.waves_per_group = lanes, desc.nvgpr, plan.waves_per_group
    d.access_sites = native.access_sites
    d.workitem_dims = min(desc.workitem_id_dims, 3)
    d.packed_workitem_ids = desc.target.packed_workitem_ids
    d.grid, d.workgroup = list(plan.grid), list(plan.workgroup)
    d.mode = desc.initial_mode
    d.wave_scratch_bytes = plan.wave_scratch_bytes
    threads = lib.sg_native_pool_threads(settings.get("SOFTGPU_THREADS") or 0)
    d.groups_in_flight = max(1, -(-plan.resident_limit // threads))
    d.threads = 0
    d.watchdog = plan.instruction_limit or 0
    d.quantum = GROUP_TURN if plan.waves_per_group > 1 else QUANTUM
    d.store_turn = STORE_TURN if plan.waves_per_group > 1 else 0
    d.time_limit_ns = int(plan.time_limit * 1e9) if plan.time_limit is not None else 0
    d.notice_ns = int(plan.notice_seconds * 1e9)
    d.name = _name(kernel, name)
    d.stop = plan.stop.pointer if plan.stop is not None else ffi.NULL
    done = ffi.new("uint64_t *", first_group)
    d.workgroups_done = done
    d.first_group = first_group
    d.env.code_base = native.program.base
    d.env.lds_bytes = plan.lds_bytes
    d.env.clock_mhz = plan.clock_mhz
    callouts = handle = None
    if native.callouts:
        from core.isa.native.handover import Callouts
        callouts = Callouts(session, plan, native.program)
        handle = d.env.callout = ffi.new_handle(callouts)
    scratch = None
    arena = session.arena
    slots = lib.sg_native_scratch_slots(d)
    total = plan.total_workgroups
    try:
        if private_bytes:
            scratch = arena.allocate(int(slots) * plan.wave_scratch_bytes,
                                     info={"what": f"scratch of {name}"})
            d.scratch_base = scratch.address
        sources = _launch_sgprs(d, desc, d.scratch_base, plan.kernarg_address, plan.packet_address,
                                plan.queue_address, plan.dispatch_id, private_bytes, lanes)
        version = lib.sg_native_memory_version()       # before the ranges it stands for
        agent = getattr(kernel, "agent", None)
        ranges = valid_ranges(session, agent)
        d.env.ranges = ffi.cast("sg_range *", ranges.ctypes.data)
        d.env.range_count = len(ranges)
        d.env.live = live_memory(session, agent).handle
        out = ffi.new("sg_outcome *")
        with progress.shown(name, total, lambda: done[0]):
            faulted = lib.sg_native_dispatch(d, out)
    finally:
        if scratch is not None:
            arena.free(scratch.address)
    del handle                  # sg_env.callout is valid while the dispatch runs, not after
    if faulted and out.fault_code == C.SG_FAULT_CALLOUT:
        raise callouts.fault(out.fault_detail)
    if faulted:
        raise _fault(name, native, out.fault_code, out.fault_pc, tuple(out.fault_workgroup),
                     out.fault_wave, out.fault_lane, out.fault_address, out.fault_detail,
                     d.watchdog, plan.time_limit)
    if out.stopped:
        raise DispatchStopped(f"{name}: stopped after {done[0]} of {total} workgroups")
    if callouts is not None:
        trace.event("native_callouts", kernel=name, count=callouts.count)
    if (not private_bytes and callouts is None and getattr(kernel, "kernel_object", 0)
            and plan.instruction_limit is None and not first_group):
        _bind(kernel, d, sources, plan, ranges, version)
    return DispatchStats(waves=out.waves, workgroups=out.workgroups,
                         wave_instructions=out.wave_instructions,
                         lane_instructions=out.lane_instructions, batches=1,
                         seconds=time.perf_counter() - start, tier="native")


def _name(kernel, name):
    """The kernel's name as a C string the runner's long-dispatch notices name, kept in the
    kernel's engine cache: a native entry's template holds the pointer, so its owner must live
    as long as the kernel (every launched kernel has the cache: layout() reads it)."""
    found = kernel.engine_cache.get("native name")
    if found is None:
        found = kernel.engine_cache["native name"] = ffi.new("char[]", name.encode())
    return found


def _bind(kernel, d, sources, plan, ranges, version):
    """Let the packet processors' C loops run this kernel's next packets of the same launch
    shape without Python (runner.h: sg_native_entry); kernels with scratch stay in Python,
    which allocates it per dispatch, and so do kernels with callouts, whose context (the
    interpreter's view of the dispatch) is made per dispatch."""
    binding = kernel.engine_cache.get("native binding")
    bind = binding is None
    if bind:
        binding = lib.sg_native_binding_create()
        if binding == ffi.NULL:
            return
        binding = kernel.engine_cache["native binding"] = ffi.gc(binding, lib.sg_native_binding_destroy)
    prepared = lib.sg_native_binding_prepare(
        binding, d, bytes(sources), list(plan.workgroup), plan.group_segment_size,
        plan.private_segment_size, ffi.cast("sg_range *", ranges.ctypes.data), len(ranges), version) == 0
    if prepared:
        # The entry's packets run under this plan's time limit (d holds it): their faults say so.
        kernel.engine_cache["native entry time limit"] = plan.time_limit
    if prepared and bind:
        entry = ffi.cast("sg_dispatch_entry", ffi.addressof(lib, "sg_native_entry"))
        lib.sg_kernel_bind(kernel.kernel_object, entry, binding)


def entry_fault(session, kernel, fault):
    """The KernelFault of a fault a native entry reported (sg_fault.native_code set), as
    run_native reports one."""
    name = kernel_name(kernel)
    native = native_for(session, kernel, layout(kernel))
    lane = -1 if fault.lane == 0xFFFFFFFF else fault.lane
    return _fault(name, native, fault.native_code, fault.pc, tuple(fault.workgroup), fault.wave,
                  lane, fault.address, fault.native_detail, 0,
                  kernel.engine_cache.get("native entry time limit"))


def _launch_sgprs(d, desc, scratch_base, kernarg, packet, queue, dispatch_id, private_bytes, lanes):
    """Fill d's user SGPRs and slots; returns each user SGPR's source (runner.h SG_SOURCE_*):
    which of them a native entry takes from the packet."""
    values = {
        "private_segment_buffer": private_segment_buffer(scratch_base, lanes),
        "dispatch_ptr": _split(packet), "queue_ptr": _split(queue),
        "kernarg_segment_ptr": _split(kernarg), "dispatch_id": _split(dispatch_id),
        "flat_scratch_init": _split(scratch_base), "private_segment_size": [private_bytes],
    }
    per_packet = {"kernarg_segment_ptr": lib.SG_SOURCE_KERNARG, "dispatch_ptr": lib.SG_SOURCE_PACKET,
                  "queue_ptr": lib.SG_SOURCE_QUEUE, "dispatch_id": lib.SG_SOURCE_DISPATCH_ID}
    sources = bytearray(C.USER_SGPRS)
    slot = 0
    for name in desc.user_sgprs:
        for k, value in enumerate(values[name][:user_sgpr_width(name)]):
            if slot + k < C.USER_SGPRS:
                d.user_sgpr[slot + k] = value
                if name in per_packet:
                    sources[slot + k] = per_packet[name] + k
        slot += user_sgpr_width(name)
    d.user_sgpr_count = min(slot, C.USER_SGPRS)
    slot = max(slot, desc.user_sgpr_count)
    for dim in range(3):
        d.workgroup_id_slot[dim] = C.NO_SLOT
        if desc.workgroup_id[dim]:
            d.workgroup_id_slot[dim] = slot
            slot += 1
    d.workgroup_info_slot = d.wave_offset_slot = C.NO_SLOT
    if desc.workgroup_info:
        d.workgroup_info_slot = slot
        slot += 1
    if desc.private_segment_wave_offset and desc.target.flat_scratch != "architected":
        d.wave_offset_slot = slot
    d.architected_ids = desc.target.architected_ids
    return sources


def _split(value):
    return [value & 0xFFFFFFFF, (value >> 32) & 0xFFFFFFFF]


def _fault(name, native, code, pc, workgroup, wave, lane, address, detail, watchdog, time_limit):
    """The KernelFault of a runner fault: `pc` relative to the translation's code base, lane
    -1 for none, `detail` the translation's reason index."""
    pc = native.program.base + pc
    inst = native.program.instructions.get(pc)
    report = dict(kernel=name, pc=pc, instruction=format_instruction(inst) if inst is not None else None,
                  workgroup=tuple(int(x) for x in workgroup), wave=int(wave))
    lane = None if lane < 0 else int(lane)
    if code == C.SG_FAULT_MEMORY:
        return memory_fault("access outside every live allocation", lane=lane,
                            address=int(address), **report)
    if code == C.SG_FAULT_MISALIGNED_ATOMIC:
        return memory_fault("misaligned atomic", lane=lane, address=int(address), **report)
    if code == C.SG_FAULT_WATCHDOG:
        return illegal_instruction(f"watchdog: a wave ran more than {watchdog} instructions", **report)
    if code == C.SG_FAULT_TIME_LIMIT:
        return time_limit_fault(time_limit, report)
    if code == C.SG_FAULT_NO_THREAD:
        return KernelFault(f"no thread with the {C.THREAD_STACK_KIB} KiB stack its "
                           f"{native.frame_kib} KiB frame needs could start",
                           Status.ERROR_OUT_OF_RESOURCES, **report)
    reason = native.reasons[detail]
    if code == C.SG_FAULT_TRAP:
        return KernelFault(reason, Status.ERROR_EXCEPTION, **report)
    return illegal_instruction(reason, lane=lane, **report)


@ffi.def_extern()
def sg_long_dispatch(name, elapsed, pcs, count):
    """The runner's report of a dispatch that has run long (runner.c: check_clock)."""
    where = {}
    for k in range(count):
        where[int(pcs[k])] = where.get(int(pcs[k]), 0) + 1
    long_dispatch(ffi.string(name).decode(errors="replace"), elapsed / 1e9, where)
