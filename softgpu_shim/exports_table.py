"""The export list, read from exports.h (the single list of prototypes).

An export returning hsa_status_t is implemented in Python; every other export
(signal values and waits, queue indices) is a C fast path.
"""
import os
import re

EXPORTS_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exports.h")
_PROTOTYPE = re.compile(r"^(.+?)\b(hsa_\w+)\(.*\);$")


def prototypes():
    """(name, prototype, returns_status) for every export, in exports.h order."""
    with open(EXPORTS_H) as f:
        for line in f:
            match = _PROTOTYPE.match(line.strip())
            if match:
                yield match.group(2), match.group(0), match.group(1).strip() == "hsa_status_t"


def python_exports():
    return [name for name, _, status in prototypes() if status]


def all_exports():
    return [name for name, _, _ in prototypes()]
