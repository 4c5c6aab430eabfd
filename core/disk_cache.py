"""The disk cache's folder, and its files: written whole, read back only under their seal.

Holds these invariants:
- one flat folder, $XDG_CACHE_HOME/softgpu (default ~/.cache/softgpu), holds every kind of
  entry (the native tier's translations, what parsing a code object found), each file named by
  its key, so `softgpu cache` lists, prunes and clears them alike;
- a file is written whole or not at all: under a temporary name in the same folder, then
  renamed over the old one, so concurrent writers of one entry leave one complete file and a
  reader sees the old entry or the new one; a cache that cannot be written is skipped, never
  an error;
- a sealed entry (payload, JSON notes, seal) is used only when its seal holds: magic, lengths
  that add up to the file's, and a SHA-256 over its key, payload and notes. A truncated file,
  garbage, or another key's entry copied under this key's name unseals to nothing, never to
  data.
"""
import contextlib
import hashlib
import os
import struct
import tempfile

_MAGIC = b"SGCODE01"
_SEAL = struct.Struct("<QQ32s8s")       # payload bytes, notes bytes, SHA-256, magic


def cache_dir():
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "softgpu")


def write_whole(path, data):
    """`data` as the file `path`, complete or not at all: written under a temporary name in the
    same directory and renamed over it (a reader sees the old entry or the new one)."""
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def seal(payload, key, notes):
    """A sealed entry's bytes: `payload` (bytes), `notes` (JSON-able) and the seal."""
    import json     # here, not with the module: the loader's exports import it before they
                    # check for a session, and answer NOT_INITIALIZED without json
    text = json.dumps(notes).encode()
    return payload + text + _SEAL.pack(len(payload), len(text), _digest(key, payload, text), _MAGIC)


def unseal(data, key):
    """(payload, notes) of the sealed entry `data` when its seal holds for `key`, else None."""
    if len(data) < _SEAL.size:
        return None
    payload_size, text_size, digest, magic = _SEAL.unpack_from(data, len(data) - _SEAL.size)
    if magic != _MAGIC or payload_size + text_size + _SEAL.size != len(data):
        return None
    payload, text = data[:payload_size], data[payload_size:payload_size + text_size]
    if digest != _digest(key, payload, text):
        return None
    import json
    try:
        return payload, json.loads(text)
    except ValueError:
        return None


def read_all(fd):
    """Every byte of the open file `fd`; OSError when it changed size while read."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, size, 0)
    if len(data) != size:
        raise OSError("short read")
    return data


def _digest(key, payload, text):
    digest = hashlib.sha256(key.encode() + b"\0")
    digest.update(len(payload).to_bytes(8, "little") + payload)
    digest.update(text)
    return digest.digest()
