"""The HSAIL finalizer exports (hsa_ext_program_*): ROCr without its finalizer library.

ROCr exports these as stubs into an extension table that only the separate finalizer
library fills; without it every entry answers HSA_STATUS_ERROR_NOT_INITIALIZED, with
no argument checks, before and after hsa_init. SoftGPU has no finalizer (HSAIL is not
supported), and answers the same. HSA_EXTENSION_FINALIZER is accordingly absent from
the system's extension mask.
"""
from core.errors import NotInitialized
from softgpu_shim.registry import export


def _no_finalizer(name):
    def stub(*args):
        raise NotInitialized(f"{name}: no HSAIL finalizer library is loaded (as ROCr without it)")
    return stub


for _name in ("hsa_ext_program_create", "hsa_ext_program_destroy", "hsa_ext_program_add_module",
              "hsa_ext_program_iterate_modules", "hsa_ext_program_get_info", "hsa_ext_program_finalize"):
    export(_name, needs_runtime=False)(_no_finalizer(_name))
