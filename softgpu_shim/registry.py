"""Registry of Python implementations of exports (filled by softgpu_shim.api)."""
IMPLEMENTATIONS = {}
NEEDS_RUNTIME = {}


def export(name, needs_runtime=True):
    """Register the decorated function as the implementation of export `name`.

    With needs_runtime, the glue answers HSA_STATUS_ERROR_NOT_INITIALIZED before
    hsa_init (or after the last hsa_shut_down) without calling the function.
    """
    def register(impl):
        if name in IMPLEMENTATIONS:
            raise RuntimeError(f"{name} is implemented twice")
        IMPLEMENTATIONS[name] = impl
        NEEDS_RUNTIME[name] = needs_runtime
        return impl
    return register
