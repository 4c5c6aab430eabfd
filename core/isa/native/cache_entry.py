"""A translation as one file of the disk cache: its shared object, then its notes (JSON), then a
seal.

Holds these invariants:
- the code and its notes are one file, written whole under a temporary name and renamed into
  place (compiler.py), so concurrent writers of one entry leave one complete file and a
  reader never sees code with another build's notes;
- an entry is used only when its seal holds (core/disk_cache.py: magic, lengths, a SHA-256
  over its key, code and notes). A truncated file, garbage, or another kernel's entry copied
  under this key's name is a miss (recompiled and replaced), never loaded: dlopen runs an
  object's initialisers, so nothing unverified reaches it;
- what is verified is what is loaded: the descriptor that was read is the one dlopen maps
  (core/isa/native/shared_object.py), so a rename between the check and the load cannot
  swap the file.
The dynamic loader maps a shared object by its program headers and ignores bytes after its
sections, so the appended notes and seal leave it loadable.
"""
import os

from core.disk_cache import read_all, seal, unseal  # noqa: F401  (seal: compiler.py's, by this name)

SUFFIX = ".so"


def open_entry(path, key):
    """(an open descriptor of the entry at `path`, its notes) when its seal holds for `key`;
    else None, the descriptor closed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        found = unseal(read_all(fd), key)
    except OSError:                     # unreadable, torn
        found = None
    if found is None:
        os.close(fd)
        return None
    return fd, found[1]


def in_memory(data):
    """An anonymous file holding `data` (a translation loaded without the disk cache: just
    compiled, or the cache cannot be written)."""
    fd = os.memfd_create("softgpu-translation", os.MFD_CLOEXEC)
    with open(fd, "wb", closefd=False) as f:
        f.write(data)
    return fd
