"""The HSA runtime's ABI numbers under the edge's name, for programs and tests that know it.

core.hsa_abi holds them, below the engine and the loader, which read statuses and layouts
too; every name here is that module's own object (one Status class, whichever name is used).
"""
from core import hsa_abi as _abi


def __getattr__(name):
    return getattr(_abi, name)


def __dir__():
    return dir(_abi)
