"""Transcendental ops: the ISA guide's special-value examples, accuracy against numpy, the f32
denormal flushing of the hardware unit, and sin/cos taking revolutions."""
import numpy as np
import pytest

from core.isa import alu
from tests.isa.alu_support import as_f16, as_f32, as_f64, f16, f32, f64, one, same_bits_or_both_nan, u32

pytestmark = pytest.mark.usefixtures("alu_impl")

NAN = np.nan
# (op, input, expected) from the ISA guide's functional examples.
GUIDE_F32 = [
    ("v_exp_f32", -np.inf, 0.0), ("v_exp_f32", -0.0, 1.0), ("v_exp_f32", np.inf, np.inf),
    ("v_log_f32", -np.inf, NAN), ("v_log_f32", -1.0, NAN), ("v_log_f32", -0.0, -np.inf),
    ("v_log_f32", 0.0, -np.inf), ("v_log_f32", 1.0, 0.0), ("v_log_f32", np.inf, np.inf),
    ("v_rcp_f32", -np.inf, -0.0), ("v_rcp_f32", -2.0, -0.5), ("v_rcp_f32", -0.0, -np.inf),
    ("v_rcp_f32", 0.0, np.inf), ("v_rcp_f32", np.inf, 0.0),
    ("v_rsq_f32", -np.inf, NAN), ("v_rsq_f32", -0.0, -np.inf), ("v_rsq_f32", 0.0, np.inf),
    ("v_rsq_f32", 4.0, 0.5), ("v_rsq_f32", np.inf, 0.0),
    ("v_sqrt_f32", -np.inf, NAN), ("v_sqrt_f32", -0.0, -0.0), ("v_sqrt_f32", 0.0, 0.0),
    ("v_sqrt_f32", 4.0, 2.0), ("v_sqrt_f32", np.inf, np.inf),
    ("v_sin_f32", -np.inf, NAN), ("v_sin_f32", -0.0, -0.0), ("v_sin_f32", 0.25, 1.0),
    ("v_sin_f32", np.inf, NAN), ("v_cos_f32", -0.0, 1.0), ("v_cos_f32", 0.25, 0.0),
    ("v_cos_f32", np.inf, NAN),
]


@pytest.mark.parametrize("name,x,want", GUIDE_F32)
def test_f32_special_values_follow_the_isa_guide(name, x, want):
    assert same_bits_or_both_nan(as_f32(one(name, f32(x))), np.array([want], np.float32)).all()


@pytest.mark.parametrize("name,x,want", [(n.replace("f32", "f16"), x, w) for n, x, w in GUIDE_F32])
def test_f16_special_values_follow_the_isa_guide(name, x, want):
    assert same_bits_or_both_nan(as_f16(one(name, f16(x))), np.array([want], np.float16)).all()


def _random_normal_f32(n, seed):
    rng = np.random.default_rng(seed)
    return np.ldexp(rng.uniform(1, 2, n), rng.integers(-120, 120, n)).astype(np.float32)


def test_f32_rcp_and_sqrt_are_correctly_rounded():
    x = _random_normal_f32(50000, 1)
    assert (as_f32(one("v_rcp_f32", x.view(np.uint32))) == np.float32(1) / x).all()
    assert (as_f32(one("v_rcp_iflag_f32", x.view(np.uint32))) == np.float32(1) / x).all()
    ax = np.abs(x)
    assert (as_f32(one("v_sqrt_f32", ax.view(np.uint32))) == np.sqrt(ax)).all()


def _ulps(got, want):
    return np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)


def test_f32_exp_log_rsq_are_within_one_ulp():
    x = _random_normal_f32(50000, 2)
    ax = np.abs(x)
    assert (_ulps(as_f32(one("v_log_f32", ax.view(np.uint32))), np.log2(ax.astype(np.float64))) <= 1).all()
    e = np.linspace(-125, 127, 50000).astype(np.float32)
    assert (_ulps(as_f32(one("v_exp_f32", e.view(np.uint32))), np.exp2(e.astype(np.float64))) <= 1).all()
    assert (_ulps(as_f32(one("v_rsq_f32", ax.view(np.uint32))), 1 / np.sqrt(ax.astype(np.float64))) <= 1).all()


def test_sin_cos_take_revolutions():
    x = np.array([0.125, 0.5, 0.75, -0.25, 1e6 + 0.25, 3.0], np.float32)
    s = as_f32(one("v_sin_f32", x.view(np.uint32)))
    c = as_f32(one("v_cos_f32", x.view(np.uint32)))
    assert np.allclose(s, [np.sqrt(0.5), 0.0, -1.0, -1.0, 1.0, 0.0], atol=1e-7)
    assert np.allclose(c, [np.sqrt(0.5), -1.0, 0.0, 0.0, 0.0, 1.0], atol=1e-7)


def test_f32_unit_flushes_denormals_whatever_the_mode():
    tiny = f32(1e-40)
    assert as_f32(one("v_rcp_f32", tiny))[0] == np.inf
    assert as_f32(one("v_log_f32", tiny))[0] == -np.inf
    assert as_f32(one("v_sqrt_f32", tiny))[0] == 0.0
    assert as_f32(one("v_rcp_f32", f32(2.0**127)))[0] == 0.0          # denormal result flushed
    assert as_f32(one("v_exp_f32", f32(-130.0)))[0] == 0.0
    # sin keeps denormals (sin(x) ~ 2*pi*x).
    assert as_f32(one("v_sin_f32", f32(1e-40)))[0] > 0


def test_f16_and_f64_keep_denormals():
    assert as_f16(one("v_rcp_f16", f16(2.0**15)))[0] == np.float16(2.0**-15)
    assert as_f64(one("v_rcp_f64", f64(2.0**1023)))[0] == 2.0**-1023
    assert as_f64(one("v_sqrt_f64", f64(4e-320)))[0] == np.sqrt(4e-320)


def test_f64_rcp_sqrt_correctly_rounded_and_rsq_close():
    rng = np.random.default_rng(3)
    x = np.ldexp(rng.uniform(1, 2, 20000), rng.integers(-1000, 1000, 20000))
    assert (as_f64(one("v_rcp_f64", x.view(np.uint64))) == 1 / x).all()
    assert (as_f64(one("v_sqrt_f64", x.view(np.uint64))) == np.sqrt(x)).all()
    rsq = as_f64(one("v_rsq_f64", x.view(np.uint64)))
    assert (np.abs(rsq - 1 / np.sqrt(x)) <= np.spacing(1 / np.sqrt(x))).all()


def test_transcendentals_take_input_modifiers():
    assert as_f32(one("v_sqrt_f32", f32(-4.0), abs=1))[0] == 2.0
    assert as_f32(one("v_rcp_f32", f32(4.0), neg=1))[0] == -0.25
    shader_mode = alu.DEFAULT_MODE & ~(1 << 9) & ~(2 << 4)     # omod needs IEEE off, f32 output flushing
    assert as_f32(one("v_exp_f32", f32(3.0), omod=1, mode=shader_mode))[0] == 16.0
    assert one("v_log_f32", f32(8.0))[0] == f32(3.0)[0]
    assert one("v_rcp_f32", u32(0x7FC00000))[0] & 0x7FC00000 == 0x7FC00000


def test_trig_preop_returns_consecutive_truncated_segments_of_two_over_pi():
    from fractions import Fraction
    # 2/pi = 0.A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163... (hex)
    known = Fraction(0xA2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163, 2**216)
    segments = [as_f64(one("v_trig_preop_f64", f64(1.0), u32(k)))[0] for k in range(4)]
    total = sum(Fraction(s) for s in segments[:3])
    assert 0 <= known - total < Fraction(1, 2**159) + Fraction(1, 2**216)
    assert all(Fraction(s).denominator <= 2**(53 * (k + 1)) for k, s in enumerate(segments))
    # A large input starts further in, so x * segment keeps its bits below x's integer part.
    big = as_f64(one("v_trig_preop_f64", f64(2.0**100), u32(0)))[0]
    assert big < segments[0] * 2.0**-40


def test_invalid_results_are_the_default_nan_bit_pattern():
    # The guide's examples print 0xffc00000 (f32) / 0xfe00 (f16) for invalid operations.
    for name, x in (("v_log_f32", -1.0), ("v_rsq_f32", -np.inf), ("v_sqrt_f32", -np.inf),
                    ("v_sin_f32", np.inf), ("v_cos_f32", -np.inf)):
        assert one(name, f32(x))[0] == 0xFFC00000, name
    for name, x in (("v_sqrt_f16", -np.inf), ("v_log_f16", -1.0), ("v_sin_f16", np.inf)):
        assert one(name, f16(x))[0] == 0xFE00, name
    assert one("v_div_fixup_f32", f32(1.0), f32(0.0), f32(0.0))[0] == 0xFFC00000
