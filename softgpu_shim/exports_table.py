"""The export list, read from exports.h (the single list of prototypes).

An export returning hsa_status_t is implemented in Python; every other export
(signal values and waits, queue indices) is a C fast path. A C-fronted export
(C_FRONTED) has both: a C function (answers.c) that answers what it remembers and calls
the Python implementation, as `sg_py_<export>`, for everything else.
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


C_FRONTED = ("hsa_agent_get_info",)


def python_exports():
    """Exports that go straight to their Python implementation."""
    return [name for name, _, status in prototypes() if status and name not in C_FRONTED]


def slow_path(name):
    """The Python entry point a C-fronted export calls."""
    return "sg_py_" + name


def slow_path_prototypes():
    """C prototypes of the Python entry points of the C-fronted exports."""
    return [proto.replace(f" {name}(", f" {slow_path(name)}(", 1) for name, proto, _ in prototypes()
            if name in C_FRONTED]


def python_entries():
    """(C name, export name) of every function defined in Python: the exports that go
    straight to Python, then the slow paths of the C-fronted ones."""
    return [(name, name) for name in python_exports()] + [(slow_path(name), name) for name in C_FRONTED]


def all_exports():
    return [name for name, _, _ in prototypes()]
