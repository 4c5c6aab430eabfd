"""What a cached translation depends on besides its kernel, read without LLVM.

Holds these invariants:
- the identity digests the ISA engine's sources (with the runner's layouts and the helpers'
  signatures, core/isa/native/runner.h), the LLVM build that compiled it and the CPU it was
  compiled for, so an object built from other sources, by another LLVM or for another CPU
  never matches (SoftGPU's package version adds nothing to the sources' stamps, which a
  reinstall renews, and cost 40 ms to read: importing importlib.metadata);
- it is computed without importing llvmlite (a process whose translations are all cached never
  loads LLVM: initialising it cost ~60 ms of a cached kernel's first dispatch);
- it depends on what the files hold, not where they are or when they were written, so a cache
  carried to another checkout of the same sources (a CI job restoring its saved cache into a
  fresh clone) still matches; reading and hashing the engine's ~2 MB of sources costs 3-8 ms, so
  the digest is remembered under the files' stamps (path, size, modification time) in the
  cache's `identity/` folder and a later process pays only ~120 stat calls (well under 1 ms);
- it is computed once per process.
"""
import hashlib
import importlib.util
import os
from functools import lru_cache

_ENGINE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # core/isa
_SOURCES = (".py", ".h", ".c")
# Fields of /proc/cpuinfo that change while the machine runs or differ between its cores, not
# between CPU models: the clock, its BogoMIPS and the core's numbering.
_VOLATILE_CPU_FIELDS = {"processor", "cpu mhz", "bogomips", "core id", "apicid", "initial apicid",
                        "physical id", "siblings", "cpu cores"}


@lru_cache(maxsize=None)
def identity(cache):
    """The identity, remembering the sources' digest under `cache` (the cache's folder)."""
    digest = hashlib.sha256()
    for part in (_engine_sources(os.path.join(cache, "identity")), _llvm_build(), _cpu()):
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()


def _stamp(path):
    """A file as its path, size and modification time: an edit or a rebuild changes the size or
    the time."""
    st = os.stat(path)
    return f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode()


def _engine_sources(memo_dir):
    """The whole engine, not the translator alone: translations are built from the decoder's
    tables and the semantics records both tiers share (core/isa/semantics/), and the runner's
    layouts (core/isa/native/runner.h). The digest of their paths within the engine and their
    contents, remembered under their stamps."""
    paths = list(_source_files(_ENGINE))
    memo = os.path.join(memo_dir, hashlib.sha256(b"".join(map(_stamp, paths))).hexdigest())
    try:
        with open(memo, "rb") as f:
            known = f.read()
        if len(known) == 64:
            return known
    except OSError:
        pass
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        name = os.path.relpath(path, _ENGINE).encode()
        digest.update(len(name).to_bytes(8, "little") + name + len(data).to_bytes(8, "little") + data)
    known = digest.hexdigest().encode()
    try:    # written whole or not at all: processes starting at once may race here
        os.makedirs(memo_dir, exist_ok=True)
        partial = f"{memo}.{os.getpid()}"
        with open(partial, "wb") as f:
            f.write(known)
        os.replace(partial, memo)
    except OSError:
        pass    # a read-only cache: the next process hashes again
    return known


def _source_files(top):
    with os.scandir(top) as entries:
        entries = sorted(entries, key=lambda entry: entry.name)
    for entry in entries:
        if entry.is_dir():
            if entry.name != "__pycache__":
                yield from _source_files(entry.path)
        elif entry.name.endswith(_SOURCES):
            yield entry.path


def _llvm_build():
    """llvmlite's LLVM library, located without importing llvmlite: llvmlite's version file and
    the library's name and size (hashing its ~180 MB would cost far more than a translation
    saves; a reinstall of the same wheel gives the same library, with a new time)."""
    spec = importlib.util.find_spec("llvmlite")
    if spec is None or not spec.submodule_search_locations:
        return b"no llvmlite"
    package = spec.submodule_search_locations[0]
    parts = []
    try:
        with open(os.path.join(package, "_version.py"), "rb") as f:
            parts.append(f.read())
    except OSError:
        parts.append(b"no version file")
    binding = os.path.join(package, "binding")
    for name in sorted(name for name in os.listdir(binding) if name.startswith("libllvmlite")):
        parts.append(f"{name}\0{os.path.getsize(os.path.join(binding, name))}\n".encode())
    return b"".join(parts)


def _cpu():
    """The CPU as the kernel describes it (model and feature flags) from the first processor's
    entry of /proc/cpuinfo: LLVM's host CPU name and features are a function of the same
    CPUID bits, so equal entries get equal code. Without /proc, LLVM's own answer."""
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read(1 << 16)
    except OSError:
        import llvmlite.binding as llvm
        return (llvm.get_host_cpu_name() + llvm.get_host_cpu_features().flatten()).encode()
    first = text.split("\n\n", 1)[0]
    fields = []
    for line in first.splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() not in _VOLATILE_CPU_FIELDS:
            fields.append(f"{name.strip()}:{value.strip()}")
    return "\n".join(fields).encode()
