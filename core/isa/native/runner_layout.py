"""The runner's C layouts (core/isa/native/runner.h) as the translator and Python see them.

Holds this invariant: every offset and constant comes from the compiled header through cffi
(offsetof, the #defines), so the translated code and the C runner never disagree.
"""
from functools import lru_cache

from core.native import ffi, lib

# What the translated wave function returns (runner.h).
SG_END, SG_BARRIER, SG_YIELD = lib.SG_END, lib.SG_BARRIER, lib.SG_YIELD
SG_FAULT, SG_CALLOUT, SG_TURN = lib.SG_FAULT, lib.SG_CALLOUT, lib.SG_TURN
SG_FAULT_MEMORY = lib.SG_FAULT_MEMORY
SG_FAULT_MISALIGNED_ATOMIC = lib.SG_FAULT_MISALIGNED_ATOMIC
SG_FAULT_WATCHDOG = lib.SG_FAULT_WATCHDOG
SG_FAULT_TRAP = lib.SG_FAULT_TRAP
SG_FAULT_ILLEGAL = lib.SG_FAULT_ILLEGAL
SG_FAULT_CALLOUT = lib.SG_FAULT_CALLOUT
SG_FAULT_TIME_LIMIT = lib.SG_FAULT_TIME_LIMIT
SG_FAULT_NO_THREAD = lib.SG_FAULT_NO_THREAD
THREAD_STACK_KIB, STACK_MARGIN_KIB = lib.SG_THREAD_STACK_KIB, lib.SG_STACK_MARGIN_KIB
CALLER_FRAME_KIB = lib.SG_CALLER_FRAME_KIB
VGPRS_OFFSET = lib.SG_WAVE_VGPRS
USER_SGPRS = lib.SG_USER_SGPRS
NO_SLOT = lib.SG_NO_SLOT

ENV = {name: ffi.offsetof("sg_env", name)
       for name in ("code_base", "ranges", "range_count", "lds_bytes", "clock_mhz")}
# C functions translated code calls: through the table HELPER_TABLE of its shared object, in
# this order, which the loader fills with these addresses (core/isa/native/shared_object.py).
EXTERNALS = ("sg_native_find_range", "sg_native_access", "sg_native_move", "sg_native_buffer",
             "sg_now_ns", "sg_signal_interrupt")
HELPER_TABLE = "sg_helpers"
ACCESS_CHECK, ACCESS_LOAD, ACCESS_STORE, ACCESS_RUN = (lib.SG_ACCESS_CHECK, lib.SG_ACCESS_LOAD,
                                                       lib.SG_ACCESS_STORE, lib.SG_ACCESS_RUN)


def external_addresses():
    return {name: int(ffi.cast("uintptr_t", ffi.addressof(lib, name))) for name in EXTERNALS}
GROUP_LDS = ffi.offsetof("sg_group", "lds")
GROUP_SITES = ffi.offsetof("sg_group", "sites")
RANGE_BYTES = ffi.sizeof("sg_range")


@lru_cache(maxsize=None)
def wave_offset(name):
    """Byte offset of a field of sg_wave ('vgprs': where VGPRs start)."""
    if name == "vgprs":
        return VGPRS_OFFSET
    return ffi.offsetof("sg_wave", name)
