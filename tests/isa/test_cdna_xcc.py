"""The MI300X (gfx942) and MI355X (gfx950) are eight XCCs each: the command processor deals a
grid's workgroups to them in turn, in dispatch order, and a wave reads which XCC runs it in
HW_REG_XCC_ID (what HIP's __smid() reads there), on both engine tiers. Built by the ROCm 6.4
root's clang-21 (skipped without it on a developer's machine, failed in CI)."""
import numpy as np
import pytest

from tests.support import rocm64
from tests.support.differential import engine, launch

# s_getreg_b32 hwreg(HW_REG_XCC_ID, 0, 4): id 20, offset 0, size 4 (the simm16 (size-1)<<11 |
# offset<<6 | id).
XCC = r"""
kernel void xcc(global uint *out) {
  uint id = __builtin_amdgcn_s_getreg((3 << 11) | (0 << 6) | 20);
  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = id;
}
"""


@pytest.fixture(scope="module")
def root():
    return rocm64.require_tools()


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_workgroups_are_dealt_to_the_xccs_in_turn(root, session, tmp_path, target, tier):
    path = tmp_path / "xcc.cl"
    path.write_text(XCC)
    co = rocm64.clang21(str(path), target, "-O2", "-mcode-object-version=5")
    grid, group = (64 * 5, 3), (64, 1)                 # 5 x 3 workgroups, x fastest
    with engine(tier):
        (out,) = launch(session, co, "xcc", [np.zeros(64 * 5 * 3, np.uint32)], grid, group)
    x, y = np.meshgrid(np.arange(64 * 5) // 64, np.arange(3))
    np.testing.assert_array_equal(out.reshape(3, 64 * 5), (x + 5 * y) % 8)
