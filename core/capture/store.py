"""The capture directory: one folder per dispatch.

    <DIR>/<pid>-<n>-<kernel>/manifest.json        what ran, where, and what came of it
    <DIR>/<pid>-<n>-<kernel>/code_object.elf      the code object the kernel came from
    <DIR>/<pid>-<n>-<kernel>/memory/<phase>-<start>.gz   one gzip file per memory range,
                                                  phase "before" or "after", start in hex:
                                                  its size, its non-zero 64 KiB blocks

Holds these invariants:
- a range is stored whole and at its device address: an arena allocation as allocated
  (page-aligned), a host range (registered or locked memory) as reachable by the agent;
- FORMAT changes whenever a reader of an older capture would misread a newer one.
"""
import gzip
import json
import os

import numpy as np

FORMAT = 1
MANIFEST = "manifest.json"
CODE_OBJECT = "code_object.elf"


BLOCK = 64 << 10     # ranges are stored as their non-zero 64 KiB blocks


def range_path(folder, phase, start):
    return os.path.join(folder, "memory", f"{phase}-{start:016x}.gz")


def write_range(folder, phase, start, data):
    """Store `data` (a uint8 array): the indices of its non-zero blocks, then those blocks.
    Device memory is mostly zero pages (a 512 MiB signal table holds a few live signals), so
    only what holds data is read back and compressed."""
    os.makedirs(os.path.join(folder, "memory"), exist_ok=True)
    whole = data.size // BLOCK * BLOCK
    blocks = data[:whole].reshape(-1, BLOCK)
    used = np.flatnonzero(blocks.any(axis=1)).astype("<u4")
    tail = data[whole:]
    with gzip.open(range_path(folder, phase, start), "wb", compresslevel=1) as f:
        f.write(np.array([data.size, used.size], "<u8").tobytes())
        f.write(used.tobytes())
        for index in used:
            f.write(blocks[index].tobytes())
        f.write(tail.tobytes())


def read_range(folder, phase, start):
    """The bytes write_range stored, as a uint8 array."""
    with gzip.open(range_path(folder, phase, start), "rb") as f:
        size, count = np.frombuffer(f.read(16), "<u8")
        used = np.frombuffer(f.read(4 * int(count)), "<u4")
        data = np.zeros(int(size), np.uint8)
        whole = data.size // BLOCK * BLOCK
        blocks = data[:whole].reshape(-1, BLOCK)
        for index in used:
            blocks[index] = np.frombuffer(f.read(BLOCK), np.uint8)
        data[whole:] = np.frombuffer(f.read(), np.uint8)
    return data


def write_manifest(folder, manifest):
    with open(os.path.join(folder, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1)


def read_manifest(folder):
    path = os.path.join(folder, MANIFEST)
    with open(path) as f:
        manifest = json.load(f)
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{path}: capture format {manifest.get('format')}, this SoftGPU reads {FORMAT}")
    return manifest


def captures(directory):
    """The capture folders under `directory` (or `directory` itself), in capture order."""
    if os.path.exists(os.path.join(directory, MANIFEST)):
        return [directory]
    found = [os.path.join(directory, name) for name in os.listdir(directory)
             if os.path.exists(os.path.join(directory, name, MANIFEST))]
    return sorted(found, key=lambda p: (os.path.getmtime(os.path.join(p, MANIFEST)), p))
