"""The newest ROCr's exports besides virtual memory and dma-buf (copy engines, queue info,
wait-all, v2 samplers, scratch limits, logging, the debugger rendezvous, SPM and PC
sampling), answered as ROCr answers them, from a C program built against the newest headers
(softgpu_shim/include, the ones the library is built against)."""
import os

import pytest

from tests.support import cprog
from tests.support.paths import ROOT

NEWEST_HEADERS = ("-I", os.path.join(ROOT, "softgpu_shim", "include"), "-ldl")

# Per profile, the engine masks ROCr's GpuAgent::DmaCopyStatus gives for host-to-device and
# device-to-host copies (every engine idle), and the board's SDMA and xGMI engine counts.
# gfx90a (mi210): SDMA0 serves host-to-device only; its 3 xGMI engines are bits 2-4.
# generic: no SDMA engine, yet SDMA0 idle in ROCr's mask (the blit slot is never used).
ENGINES = {
    "gfx1030": (0x3, 0x3, 2, 0, 0),
    "rx7900xtx": (0x3, 0x3, 2, 0, 0),
    "mi210": (0x1F, 0x1E, 2, 3, 1),
    "generic": (0x1, 0x1, 0, 0, 0),
}


@pytest.mark.parametrize("profile", sorted(ENGINES))
def test_newest_rocr_exports_answer_as_rocr(profile):
    cprog.check("rocr_newest_api.c", *ENGINES[profile], extra_flags=NEWEST_HEADERS, SOFTGPU_PROFILE=profile)
