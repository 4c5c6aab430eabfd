"""The export list, read from exports.h (the single list of prototypes), and the Python entries.

The data objects ROCr exports (DATA_EXPORTS) are C definitions.
An export returning hsa_status_t is implemented in Python, except the C_STATUS_EXPORTS;
every other export (signal values and waits, queue indices) is a C fast path.
INTERNAL_ENTRIES are Python functions that only the C side calls: they are no exports.
"""
import os
import re

EXPORTS_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exports.h")
_PROTOTYPE = re.compile(r"^(.+?)\b(hsa_\w+)\(.*\);$")

# hsa_init and hsa_shut_down count nested calls in C (fastpath_exports.c): ROCr's own test
# nests 2^31 of each, and a trip through Python per call would take over an hour. Only the
# first hsa_init and the last hsa_shut_down enter Python, through the internal entries.
# hsa_agent_get_info answers what it answered before from C (answers.c): HIP asks it
# hundreds of times while it starts; the rest goes to its Python implementation.
C_STATUS_EXPORTS = ("hsa_init", "hsa_shut_down", "hsa_agent_get_info")
INTERNAL_ENTRIES = (("sg_session_open", "hsa_status_t sg_session_open(int *started);"),
                    ("sg_session_close", "hsa_status_t sg_session_close(void);"),
                    ("sg_agent_get_info",
                     "hsa_status_t sg_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void *value);"))
# The export each internal entry serves: traces and error messages name the call the user made.
_SERVES = {"sg_session_open": "hsa_init", "sg_session_close": "hsa_shut_down",
           "sg_agent_get_info": "hsa_agent_get_info"}


def prototypes():
    """(name, prototype, returns_status) for every export, in exports.h order."""
    with open(EXPORTS_H) as f:
        for line in f:
            match = _PROTOTYPE.match(line.strip())
            if match:
                yield match.group(2), match.group(0), match.group(1).strip() == "hsa_status_t"


# Exported data objects, defined in C (debugger_rendezvous.c): ROCr's debugger rendezvous.
DATA_EXPORTS = ("_amdgpu_r_debug",)


def python_entries():
    """(name, prototype) of every function implemented in Python: exports and internal entries."""
    exports = [(name, proto) for name, proto, status in prototypes()
               if status and name not in C_STATUS_EXPORTS]
    return exports + list(INTERNAL_ENTRIES)


def python_exports():
    return [name for name, _ in python_entries()]


def all_exports():
    """Every exported name: the functions of exports.h, then the data objects."""
    return [name for name, _, _ in prototypes()] + list(DATA_EXPORTS)


def reported_name(entry):
    """The export name under which calls of a Python entry are traced."""
    return _SERVES.get(entry, entry)
