"""The flat address apertures of the software GPU, shared by every engine tier and the runtime.

Holds this invariant: a flat address whose high 32 bits equal SHARED_APERTURE_HI reaches the
workgroup's LDS, PRIVATE_APERTURE_HI the work-item's scratch (ROCr's gfx9+ layout); the
aperture registers (src_shared_base, ...) and the v5 hidden arguments read these values.
"""
SHARED_APERTURE_HI = 0x10000     # flat addresses 0x1_0000_xxxx_xxxx reach LDS
PRIVATE_APERTURE_HI = 0x20000    # flat addresses 0x2_0000_xxxx_xxxx reach scratch
