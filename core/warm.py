"""Warming the disk cache: every kernel of some code objects translated as its first dispatch
would translate it, so that dispatch loads the translation instead of making it.

Holds these invariants:
- a kernel is translated by the dispatch's own path (core.isa.native.dispatch.native_for on
  the kernel's launch layout) after the loader's own load (Executable.load) for a GPU agent of
  the profile, so key, IR and object are the ones a dispatch makes. The key digests the
  kernel's reachable instructions, entry and helper functions at offsets from the start of the
  code object's allocation, and descriptor facts, never the load address; a dispatch that
  loads the code object elsewhere finds the entry;
- only code objects the profile's GPUs load (core.target's compatibility, as the loader
  checks it) are translated; the others are counted, not loaded;
- each kernel is translated in a worker process (building LLVM IR holds the GIL), one kernel
  at a time per process, so a kernel that raises or kills its process is reported alone and
  the others go on (a dead process is replaced);
- whether a translation was made or found comes from the dispatch path's own `native_compile`
  event (read back from the flight recorder, core.trace.recent).
"""
import concurrent.futures
import hashlib
import multiprocessing
import os
import time
from dataclasses import dataclass, field

from core.loader.containers import Embedded, Unreadable, code_objects


@dataclass(frozen=True)
class Task:
    source: Embedded
    agent_index: int            # which of the session's GPU agents loads it
    kernel: str                 # the kernel's metadata name


@dataclass(frozen=True)
class Outcome:
    task: Task
    kind: str                   # "translated", "cached", "untranslatable" or "failed"
    detail: str = ""            # why untranslatable or failed
    seconds: float = 0.0


@dataclass
class Survey:
    """What the paths hold, sorted out before anything is translated."""
    tasks: list = field(default_factory=list)
    code_objects: int = 0                          # for the profile's GPUs, each once
    duplicates: int = 0                            # the same bytes found again
    other_targets: list = field(default_factory=list)   # (Embedded, ISA name)
    unreadable: list = field(default_factory=list)      # Unreadable
    empty: list = field(default_factory=list)           # paths given that hold no code object
    errors: list = field(default_factory=list)          # (path, OSError text)


def survey(paths, gpu_targets):
    """Sort the code objects of `paths` (files, or directories walked recursively) by whether
    one of `gpu_targets` (the agents' core.target Targets, in agent order) loads them."""
    found = Survey()
    seen = set()
    for path in paths:
        holdings = []
        for file in _files(path, found):
            try:
                holdings += code_objects(file)
            except OSError as error:
                found.errors.append((file, error.strerror))
        if not holdings and not any(p == path for p, _ in found.errors):
            found.empty.append(path)
        for held in holdings:
            if isinstance(held, Unreadable):
                found.unreadable.append(held)
            else:
                _sort(held, gpu_targets, found, seen)
    return found


def _files(path, found):
    if not os.path.isdir(path):
        return [path]
    files = []
    for root, dirs, names in os.walk(path, onerror=lambda e: found.errors.append((e.filename, e.strerror))):
        dirs.sort()
        files += [os.path.join(root, n) for n in sorted(names)
                  if os.path.isfile(os.path.join(root, n))]
    return files


def _sort(source, gpu_targets, found, seen):
    from core import target
    from core.errors import HsaError
    from core.loader.elf import CodeObject
    data = source.read()
    try:
        code = CodeObject(data)
    except HsaError as error:
        found.unreadable.append(Unreadable(source.path, source.offset,
                                           f"not a loadable code object: {error}"))
        return
    digest = hashlib.sha256(data).digest()
    if digest in seen:
        found.duplicates += 1
        return
    seen.add(digest)
    agent = next((i for i, t in enumerate(gpu_targets) if target.registered(code.target) is not None
                  and target.compatible(code.target, t, code.generic_version)), None)
    if agent is None:
        found.other_targets.append((source, code.target.isa_name))
        return
    found.code_objects += 1
    found.tasks += [Task(source, agent, meta[".name"]) for _sym, meta in code.kernel_symbols()]


# ---- the workers ----------------------------------------------------------------------------
_worker = {}        # in a worker process: "session", and "loaded": (Embedded, executable)


def _start_worker():
    from core import runtime
    runtime.open_session()
    _worker["session"] = runtime.require()


def _loaded_kernel(task):
    """The task's kernel, its code object loaded by the loader. A worker keeps one code
    object loaded: tasks come in code object order, and loading again costs milliseconds
    where a translation costs tenths of seconds."""
    from core.loader.loader import CodeObjectReader
    session = _worker["session"]
    loaded = _worker.get("loaded")
    if loaded is None or loaded[0] != task.source:
        if loaded is not None:
            session.loader.destroy_executable(loaded[1])
            del _worker["loaded"]
        executable = session.loader.create_executable()
        reader = CodeObjectReader(task.source.read(), f"file://{task.source.path}"
                                  f"#offset={task.source.offset}&size={task.source.size}")
        try:
            executable.load(reader, session.agents.gpus[task.agent_index])
        except BaseException:
            session.loader.destroy_executable(executable)
            raise
        loaded = _worker["loaded"] = (task.source, executable)
    return loaded[1].loaded[0].kernels[task.kernel]


def translate(task):
    """Run in a worker: translate one kernel into the disk cache; its Outcome."""
    from core import trace
    from core.isa.layout import layout
    from core.isa.native.dispatch import Fallback, native_for
    from core.isa.plan import kernel_name
    from core.errors import HsaError
    start = time.perf_counter()
    try:
        kernel = _loaded_kernel(task)
    except HsaError as error:
        # Such as a variable the application defines before loading (loader_extern.cl).
        return Outcome(task, "untranslatable", f"the loader refuses it alone: {error}",
                       time.perf_counter() - start)
    try:
        translation = native_for(_worker["session"], kernel, layout(kernel))
    except Exception as error:  # noqa: BLE001  (a kernel that breaks the translator must not stop the others)
        return Outcome(task, "failed", f"{type(error).__name__}: {error}", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if isinstance(translation, Fallback):
        return Outcome(task, "untranslatable", translation.error.reason, seconds)
    name = kernel_name(kernel)
    compiled = [e for e in trace.recent() if e["event"] == "native_compile" and e.get("kernel") == name]
    cached = bool(compiled) and compiled[-1].get("cached")
    return Outcome(task, "cached" if cached else "translated", "", seconds)


def run(tasks, processes, on_outcome):
    """Translate every task on `processes` worker processes; on_outcome(Outcome) as each ends
    (in the calling thread). Returns the Outcomes in the order they ended."""
    context = multiprocessing.get_context("spawn")      # no inherited threads, locks or LLVM state

    def lane():
        return concurrent.futures.ProcessPoolExecutor(1, mp_context=context, initializer=_start_worker)

    pending = list(reversed(tasks))
    lanes = [lane() for _ in range(max(1, min(processes, len(tasks))))]
    running = {}                # future -> (lane index, task)
    outcomes = []
    try:
        while pending or running:
            for index, executor in enumerate(lanes):
                if pending and index not in {i for i, _ in running.values()}:
                    task = pending.pop()
                    running[executor.submit(translate, task)] = (index, task)
            done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                index, task = running.pop(future)
                try:
                    outcome = future.result()
                except concurrent.futures.process.BrokenProcessPool:
                    outcome = Outcome(task, "failed", "its translating process died")
                    lanes[index].shutdown(wait=False)
                    lanes[index] = lane()
                outcomes.append(outcome)
                on_outcome(outcome)
    finally:
        for executor in lanes:
            executor.shutdown(wait=True, cancel_futures=True)
    return outcomes
