"""A translation as one file of the disk cache: its shared object, then its notes (JSON), then a
seal.

Holds these invariants:
- the code and its notes are one file, written whole under a temporary name and renamed into
  place (compiler.py), so concurrent writers of one entry leave one complete file and a
  reader never sees code with another build's notes;
- an entry is used only when its seal holds: magic, lengths that add up to the file's, and a
  SHA-256 over its key, code and notes. A truncated file, garbage, or another kernel's entry
  copied under this key's name is a miss (recompiled and replaced), never loaded: dlopen runs
  an object's initialisers, so nothing unverified reaches it;
- what is verified is what is loaded: the descriptor that was read is the one dlopen maps
  (core/isa/native/shared_object.py), so a rename between the check and the load cannot
  swap the file.
The dynamic loader maps a shared object by its program headers and ignores bytes after its
sections, so the appended notes and seal leave it loadable.
"""
import hashlib
import json
import os
import struct

SUFFIX = ".so"
_MAGIC = b"SGCODE01"
_SEAL = struct.Struct("<QQ32s8s")       # code bytes, notes bytes, SHA-256, magic


def seal(code, key, notes):
    """The entry's bytes: `code` (a shared object), `notes` (JSON-able) and the seal."""
    text = json.dumps(notes).encode()
    return code + text + _SEAL.pack(len(code), len(text), _digest(key, code, text), _MAGIC)


def open_entry(path, key):
    """(an open descriptor of the entry at `path`, its notes) when its seal holds for `key`;
    else None, the descriptor closed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        notes = _unseal(_read_all(fd), key)
    except (OSError, ValueError):       # unreadable, torn, foreign; JSONDecodeError too
        notes = None
    if notes is None:
        os.close(fd)
        return None
    return fd, notes


def in_memory(data):
    """An anonymous file holding `data` (a translation loaded without the disk cache: just
    compiled, or the cache cannot be written)."""
    fd = os.memfd_create("softgpu-translation", os.MFD_CLOEXEC)
    with open(fd, "wb", closefd=False) as f:
        f.write(data)
    return fd


def _unseal(data, key):
    if len(data) < _SEAL.size:
        return None
    code_size, text_size, digest, magic = _SEAL.unpack_from(data, len(data) - _SEAL.size)
    if magic != _MAGIC or code_size + text_size + _SEAL.size != len(data):
        return None
    code, text = data[:code_size], data[code_size:code_size + text_size]
    if digest != _digest(key, code, text):
        return None
    return json.loads(text)


def _digest(key, code, text):
    digest = hashlib.sha256(key.encode() + b"\0")
    digest.update(len(code).to_bytes(8, "little") + code)
    digest.update(text)
    return digest.digest()


def _read_all(fd):
    size = os.fstat(fd).st_size
    data = os.pread(fd, size, 0)
    if len(data) != size:
        raise OSError("short read")
    return data
