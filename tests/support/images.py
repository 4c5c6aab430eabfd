"""The tests' image and sampler arguments: core.harness.images' (shipped with the launch harness)."""
from core.harness.images import (DataInfo, Dim3, Image, ImageDescriptor, Objects, Region,  # noqa: F401
                                 Sampler)
