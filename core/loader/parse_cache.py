"""Code objects seen before: what parsing one found, kept in the disk cache by its content, so
loading it again needs no pyelftools (importing it cost ~47 ms of the first dispatch of a
kernel whose translation was cached, which then ran in 45 ms; parsing a small object costs
~10 ms more).

Holds these invariants:
- an entry is the records a successful parse of exactly these bytes produced (core/loader/elf.py
  says which), as msgpack, sealed (core/disk_cache.py) under a key that digests the bytes and
  the parser: the loader's parsing sources (elf.py, metadata.py, relocations.py, core/target.py,
  by content), pyelftools' version file and msgpack's version. Other bytes, another parser, or
  an entry damaged, truncated or copied under another key's name never match: that is a miss,
  the object is parsed again and the entry replaced;
- only what passed every check is kept: an object refused (InvalidCodeObject, OutOfResources)
  is parsed, and refused, every time;
- recalling imports nothing of pyelftools; the parser's identity is read from files, once per
  process;
- entries are written whole (core/disk_cache.py), so processes loading one object at once
  leave one complete entry; a cache that cannot be read or written only costs the parse.
"""
import hashlib
import importlib.util
import os
from functools import lru_cache

import msgpack

from core import disk_cache

SUFFIX = ".codeobject"
_CORE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PARSER_SOURCES = ("loader/elf.py", "loader/metadata.py", "loader/relocations.py", "target.py")


def key(data):
    """The key of the code object `data` (bytes): its bytes and the parser's identity."""
    digest = hashlib.sha256(_parser())
    digest.update(data)
    return digest.hexdigest()


def recall(key):
    """The records kept under `key`, or None."""
    try:
        with open(_path(key), "rb") as f:
            entry = f.read()
    except OSError:
        return None
    found = disk_cache.unseal(entry, key)
    if found is None:
        return None
    try:
        return msgpack.unpackb(found[0], raw=False, strict_map_key=False)
    except (ValueError, msgpack.UnpackException, TypeError):
        return None


def remember(key, records):
    """Keep `records` (msgpack-able) under `key` (no error when the cache cannot be written)."""
    payload = msgpack.packb(records, use_bin_type=True)
    disk_cache.write_whole(_path(key), disk_cache.seal(payload, key, None))


def _path(key):
    return os.path.join(disk_cache.cache_dir(), key + SUFFIX)


@lru_cache(maxsize=None)
def _parser():
    """The parser's identity: its sources by content, pyelftools' version file (found, not
    imported), msgpack's version."""
    digest = hashlib.sha256(b"code object records 1\0")
    for name in _PARSER_SOURCES:
        with open(os.path.join(_CORE, name), "rb") as f:
            part = f.read()
        digest.update(len(part).to_bytes(8, "little") + part)
    spec = importlib.util.find_spec("elftools")
    with open(spec.origin, "rb") as f:         # elftools/__init__.py: its __version__
        part = f.read()
    digest.update(len(part).to_bytes(8, "little") + part)
    digest.update(repr(msgpack.version).encode())
    return digest.digest()
