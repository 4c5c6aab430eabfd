"""The ALU contract the executor relies on: lookup, operand types and shapes, modifiers."""
import zlib

import numpy as np
import pytest

from core.isa import alu
from core.isa.alu import table
from tests.isa.alu_support import as_f16, as_f32, f16, f32, lookup, one, run, u32

_MAKERS = {
    **{t: (np.uint32, 2**32) for t in ("b32", "u32", "i32", "f32", "b16", "u16", "i16", "f16", "pk16", "lane")},
    **{t: (np.uint64, 2**64) for t in ("b64", "u64", "i64", "f64")},
}
_OUT_DTYPES = {**{t: np.uint32 for t in ("b32", "u32", "i32", "f32", "b16", "u16", "i16", "f16", "pk16")},
               **{t: np.uint64 for t in ("b64", "u64", "i64", "f64")},
               "mask": np.bool_, "scc": np.bool_}


def _source(t, shape, rng):
    if t in ("mask", "scc"):
        return rng.random(shape) < 0.5
    if t == "lane":
        return np.broadcast_to(np.arange(shape[-1], dtype=np.uint32), shape)
    dtype, top = _MAKERS[t]
    return rng.integers(0, top, shape, dtype=np.uint64).astype(dtype)


@pytest.mark.usefixtures("alu_impl")
@pytest.mark.parametrize("name", sorted(alu.coverage()))
def test_every_op_maps_wave_arrays_to_typed_results_without_touching_inputs(name):
    op = lookup(name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    # One vector source [waves, lanes] and the rest scalar-shaped [waves, 1] must broadcast.
    srcs = [_source(t, (3, 32) if i == 0 else (3, 1), rng) for i, t in enumerate(op.src_types)]
    before = [s.copy() for s in srcs]
    results = op(*srcs)
    assert len(results) == len(op.dst_types)
    for r, t in zip(results, op.dst_types):
        assert np.shape(r) == (3, 32), (name, t)
        assert np.asarray(r).dtype == _OUT_DTYPES[t], (name, t, np.asarray(r).dtype)
    for s, b in zip(srcs, before):
        assert np.array_equal(s, b)


def test_unknown_mnemonic_is_a_key_error():
    with pytest.raises(KeyError):
        alu.lookup("v_not_an_instruction")


def test_registering_a_mnemonic_twice_is_refused():
    with pytest.raises(ValueError):
        table.register("v_add_f32", lambda a, b: a, "f32 f32 -> f32")
    assert alu.lookup("v_add_f32").fn is not None


def test_wrong_source_count_is_a_type_error():
    with pytest.raises(TypeError):
        alu.lookup("v_add_f32")(f32(1.0))


def test_coverage_lists_every_family():
    names = alu.coverage()
    for name in ("v_add_co_u32", "v_fma_f64", "v_cmp_nlt_f16", "v_cmpx_class_f32", "s_addc_u32",
                 "s_cmp_lg_u64", "v_pk_fma_f16", "v_cvt_pkrtz_f16_f32", "v_sin_f32", "v_div_scale_f64"):
        assert name in names
    assert len(names) > 500


def test_flags_describe_implicit_operands():
    assert alu.lookup("s_addc_u32").reads_scc and alu.lookup("s_addc_u32").writes_scc
    assert not alu.lookup("s_mul_i32").writes_scc
    assert alu.lookup("v_div_fmas_f32").reads_mask
    assert alu.lookup("v_div_scale_f32").writes_mask
    assert alu.lookup("v_cmpx_lt_f32").writes_exec and not alu.lookup("v_cmp_lt_f32").writes_exec
    assert alu.lookup("s_and_saveexec_b64").writes_exec
    assert alu.lookup("v_fmac_f32").reads_dst and not alu.lookup("v_fma_f32").reads_dst
    assert alu.lookup("v_add_nc_u32").int_clamp and not alu.lookup("v_add_f32").int_clamp


@pytest.mark.usefixtures("alu_impl")
def test_neg_and_abs_modifiers_apply_to_float_sources_abs_first():
    assert as_f32(one("v_add_f32", f32(-2.0), f32(3.0), abs=0b01))[0] == 5.0
    assert as_f32(one("v_add_f32", f32(-2.0), f32(3.0), abs=0b01, neg=0b01))[0] == 1.0
    assert as_f32(one("v_mul_f32", f32(2.0), f32(3.0), neg=0b10))[0] == -6.0


# Graphics-shader MODE: IEEE off, f32 output denormals flushed (the only MODE omod works in).
SHADER_MODE = alu.DEFAULT_MODE & ~table.MODE_IEEE & ~(2 << table.MODE_DENORM_F32_SHIFT)


@pytest.mark.usefixtures("alu_impl")
def test_omod_then_clamp_on_float_results():
    assert as_f32(one("v_mul_f32", f32(1.5), f32(1.0), omod=1, mode=SHADER_MODE))[0] == 3.0
    assert as_f32(one("v_mul_f32", f32(1.5), f32(1.0), omod=3, mode=SHADER_MODE))[0] == 0.75
    assert as_f32(one("v_mul_f32", f32(1.5), f32(1.0), omod=1, clamp=True, mode=SHADER_MODE))[0] == 1.0
    assert as_f32(one("v_add_f32", f32(-3.0), f32(1.0), clamp=True))[0] == 0.0
    # DX10_CLAMP: NaN clamps to 0.
    assert as_f32(one("v_mul_f32", f32(np.inf), f32(0.0), clamp=True))[0] == 0.0


@pytest.mark.usefixtures("alu_impl")
def test_integer_clamp_saturates_instead_of_clamping_to_one():
    assert one("v_add_nc_u32", u32(0xFFFFFFF0), u32(0x20), clamp=True)[0] == 0xFFFFFFFF
    assert one("v_add_nc_u32", u32(0xFFFFFFF0), u32(0x20))[0] == 0x10


@pytest.mark.usefixtures("alu_impl")
def test_op_sel_picks_high_halves_of_16_bit_sources():
    a = f16(1.0) | (f16(4.0) << 16)
    b = f16(2.0)
    assert as_f16(one("v_add_f16", a, b))[0] == 3.0
    assert as_f16(one("v_add_f16", a, b, op_sel=0b01))[0] == 6.0
    assert one("v_add_f16", a, b)[0] >> 16 == 0   # results come back in the low half


def test_merge16_keeps_the_other_half():
    old = u32(0xAAAABBBB)
    assert table.merge16(old, u32(0x1234), hi=False)[0] == 0xAAAA1234
    assert table.merge16(old, u32(0x1234), hi=True)[0] == 0x1234BBBB


@pytest.mark.usefixtures("alu_impl")
def test_denormals_flush_only_when_mode_says_so():
    tiny = f32(1e-40)  # an f32 denormal
    keep = alu.DEFAULT_MODE
    flush_all = keep & ~(0xF << 4)
    assert as_f32(one("v_add_f32", tiny, f32(0.0), mode=keep))[0] == np.float32(1e-40)
    assert as_f32(one("v_add_f32", tiny, f32(0.0), mode=flush_all))[0] == 0.0
    # f32 flushing leaves f64 alone: the modes are separate fields.
    flush_f32 = keep & ~(0x3 << 4)
    assert one("v_add_f64", np.array([1e-310]).view(np.uint64), np.array([0.0]).view(np.uint64),
               mode=flush_f32).view(np.float64)[0] == 1e-310
    # Output flushing: a normal * normal product that is denormal becomes 0.
    assert as_f32(one("v_mul_f32", f32(1e-20), f32(1e-20), mode=flush_all))[0] == 0.0


@pytest.mark.usefixtures("alu_impl")
def test_results_tuple_for_ops_with_two_destinations():
    d, carry = run("v_add_co_u32", u32(0xFFFFFFFF, 1), u32(1, 1))
    assert list(d) == [0, 2] and list(carry) == [True, False]
