"""The narrow floats MFMA reads: the 8-bit floats (gfx942's FNUZ formats, gfx950's OCP ones) by
the facts their definitions fix (largest finite value, smallest subnormal, which bytes are NaN,
infinity or zero), and gfx942's xf32 inputs; the matrix products over them run in
tests/isa/test_cdna_clang21.py and tests/isa/test_triton.py."""
import numpy as np
import pytest

from core.isa import targets
from core.isa.alu.fp8 import fp8_values

# (flavour, kind): largest finite, smallest positive subnormal, NaN bytes, infinity bytes.
FACTS = {
    ("fnuz", "fp8"): (240.0, 2.0 ** -10, {0x80}, set()),
    ("fnuz", "bf8"): (57344.0, 2.0 ** -17, {0x80}, set()),
    ("ocp", "fp8"): (448.0, 2.0 ** -9, {0x7F, 0xFF}, set()),
    ("ocp", "bf8"): (57344.0, 2.0 ** -16, {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}, {0x7C, 0xFC}),
}


@pytest.mark.parametrize("flavour,kind", sorted(FACTS))
def test_each_format_has_its_range_nans_and_infinities(flavour, kind):
    largest, tiny, nans, infinities = FACTS[flavour, kind]
    values = fp8_values(flavour, kind)
    assert set(np.flatnonzero(np.isnan(values))) == nans
    assert set(np.flatnonzero(np.isinf(values))) == infinities
    finite = values[np.isfinite(values)]
    assert finite.max() == largest and finite.min() == -largest
    assert finite[finite > 0].min() == tiny
    assert values[0x01] == tiny and values[0x81] == -tiny        # subnormals carry their sign
    # FNUZ has one zero (0x80 is its NaN); OCP has +0 and -0.
    zeros = set(np.flatnonzero(values == 0))
    assert zeros == ({0x00} if flavour == "fnuz" else {0x00, 0x80})


def test_one_is_the_exponent_bias():
    assert [fp8_values(f, k)[(b << m)] for (f, k), (m, b) in
            {("fnuz", "fp8"): (3, 8), ("fnuz", "bf8"): (2, 16), ("ocp", "fp8"): (3, 7),
             ("ocp", "bf8"): (2, 15)}.items()] == [1.0] * 4


def test_gfx942_reads_fnuz_and_gfx950_ocp():
    assert (targets.get("gfx942").fp8, targets.get("gfx950").fp8) == ("fnuz", "ocp")
    assert targets.get("gfx90a").fp8 == ""


def test_xf32_inputs_keep_ten_mantissa_bits_rounded_to_nearest_even():
    from core.isa.interp.matrix import _elements
    values = np.array([1 + 2.0**-11, 1 + 3 * 2.0**-11, 1 + 2.0**-10 + 2.0**-12, np.inf, -2.5],
                      np.float32)
    got = _elements(values.view(np.uint32)[None, None, :], "xf32")[0, 0]
    assert got.tolist() == [1.0, 1 + 2.0**-9, 1 + 2.0**-10, np.inf, -2.5]
