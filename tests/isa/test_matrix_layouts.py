"""The engine's MFMA and WMMA register layouts against AMD's matrix instruction calculator
(tests/isa/matrix_layouts.json, made from AMD's tool by ci/gen/matrix_layouts.py): for every
dense instruction of CDNA2 (gfx90a), CDNA3 (gfx942), RDNA3 (gfx1100) and RDNA4 (gfx12), in
each wave size, every element of A, B and D sits in the register, bits and lanes AMD's tool
names. The gfx12 forms whose layouts this alone confirms (16-bit results, iu4 of K 32, wave64)
also run end to end on both tiers, with data placed by AMD's layout (clang-21 builds; skipped
without the ROCm 6.4 root on a developer's machine, failed in CI)."""
import hashlib
import json
import os

import numpy as np
import pytest

from core.isa.interp import matrix as M
from tests.support import rocm64
from tests.support.differential import engine, launch

FACTS = json.load(open(os.path.join(os.path.dirname(__file__), "matrix_layouts.json")))
LAYOUTS = FACTS["layouts"]


def _engine_places(arch, entry, wave, which):
    """(register, low bit, lanes) of each element of matrix `which`, by the engine's layout
    functions, in the order the facts list them (block, row, column)."""
    m, n, k, blocks = entry["m"], entry["n"], entry["k"], entry["blocks"]
    bits = entry["out_bits"] if which == "d" else entry["in_bits"]

    def packed(slot):
        return int(slot) * bits // 32, int(slot) * bits % 32

    places = []
    if arch.startswith("cdna"):
        if which == "d":
            lane, reg = M.mfma_output_layout(m, n, blocks, bits == 64)
            return [(int(reg[b, i, j]) * (2 if bits == 64 else 1), 0, [int(lane[b, i, j])])
                    for b in range(blocks) for i in range(m) for j in range(n)]
        rows = m if which == "a" else n
        lane, slot = M.mfma_input_layout(rows, k, blocks, m * k * blocks // 64)
        return [packed(slot[b, r, c]) + ([int(lane[b, r, c])],)
                for b in range(blocks) for r in range(rows) for c in range(k)]
    if arch == "rdna3":
        if which == "d":
            lane, reg = M.wmma_gfx11_output_layout(wave)
            return [(int(reg[i, j]), 0, [int(lane[i, j])]) for i in range(16) for j in range(16)]
        return [packed(c) + ([r + 16 * g for g in range(wave // 16)],) for r in range(16) for c in range(k)]
    if which == "d":
        lane, slot = M.wmma_gfx12_output_layout(wave)
        return [packed(slot[i, j]) + ([int(lane[i, j])],) for i in range(16) for j in range(16)]
    lane, slot = M.wmma_gfx12_input_layout(k, bits, wave)
    return [packed(slot[r, c]) + ([int(lane[r, c])],) for r in range(16) for c in range(k)]


def _digest(places):
    text = "\n".join(f"{reg}:{bit}:{','.join(map(str, lanes))}" for reg, bit, lanes in places)
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("key", sorted(LAYOUTS))
def test_every_element_sits_where_amds_calculator_puts_it(key):
    arch, name, wave = key.split()
    assert name in M.MNEMONICS, f"{name} ({arch}) has no semantics in the engine"
    entry = LAYOUTS[key]
    for which in ("a", "b", "d"):
        ours = _engine_places(arch, entry, int(wave[4:]), which)
        assert _digest(ours) == entry[which], f"{key}: matrix {which.upper()} is laid out otherwise"


def test_the_facts_cover_each_architecture_and_wave_size():
    seen = {tuple(key.split()[::2]) for key in LAYOUTS}
    assert seen == {("cdna2", "wave64"), ("cdna3", "wave64"), ("rdna3", "wave32"), ("rdna3", "wave64"),
                    ("rdna4", "wave32"), ("rdna4", "wave64")}


# ---- gfx12 end to end ---------------------------------------------------------------------
WMMA = r"""
typedef half h8 __attribute__((ext_vector_type(8)));
typedef half h4 __attribute__((ext_vector_type(4)));
typedef float f8 __attribute__((ext_vector_type(8)));
typedef float f4 __attribute__((ext_vector_type(4)));
typedef int i8 __attribute__((ext_vector_type(8)));
typedef int i4 __attribute__((ext_vector_type(4)));
typedef int i2 __attribute__((ext_vector_type(2)));
#if __AMDGCN_WAVEFRONT_SIZE == 32
kernel void f16_out(global const h8 *a, global const h8 *b, global h8 *c) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32_gfx12(a[l], b[l], c[l]);
}
kernel void iu4_k32(global const i2 *a, global const i2 *b, global i8 *c) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_wmma_i32_16x16x32_iu4_w32_gfx12(true, a[l], true, b[l], c[l], false);
}
#else
kernel void f16_out(global const h4 *a, global const h4 *b, global h4 *c) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_wmma_f16_16x16x16_f16_w64_gfx12(a[l], b[l], c[l]);
}
kernel void f32_out(global const h4 *a, global const h4 *b, global f4 *c) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64_gfx12(a[l], b[l], c[l]);
}
kernel void iu4_k32(global const int *a, global const int *b, global i4 *c) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_wmma_i32_16x16x32_iu4_w64_gfx12(true, a[l], true, b[l], c[l], false);
}
#endif
"""
# (kernel, instruction whose placements the facts hold, input and output element types)
CASES = [("f16_out", "v_wmma_f16_16x16x16_f16", np.float16, np.float16, 32),
         ("iu4_k32", "v_wmma_i32_16x16x32_iu4", "i4", np.int32, 32),
         ("f16_out", "v_wmma_f16_16x16x16_f16", np.float16, np.float16, 64),
         ("f32_out", "v_wmma_f32_16x16x16_f16", np.float16, np.float32, 64),
         ("iu4_k32", "v_wmma_i32_16x16x32_iu4", "i4", np.int32, 64)]


def _places(entry, which):
    return [(int(reg), int(bit), [int(x) for x in lanes.split(",")])
            for reg, bit, lanes in (line.split(":") for line in entry[which + "_places"])]


def _to_registers(values, places, bits, lanes):
    """Per-lane register words [lanes, words] holding `values` (raw bit patterns, one per
    element in the facts' order) where AMD's layout puts them."""
    words = np.zeros((lanes, max(reg for reg, _, _ in places) * 32 // 32 + 1), np.uint64)
    mask = (1 << bits) - 1
    for value, (reg, bit, where) in zip(values, places):
        for lane in where:
            words[lane, reg] |= (int(value) & mask) << bit
    return words.astype(np.uint32)


def _from_registers(words, places, bits):
    mask = (1 << bits) - 1
    return np.array([(int(words[where[0], reg]) >> bit) & mask for reg, bit, where in places], np.uint64)


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wmma")
    wave32 = rocm64.opencl_builds(folder, "wmma32", WMMA, ["gfx1201"])["gfx1201"]
    wave64 = rocm64.opencl_builds(folder, "wmma64", WMMA, ["gfx1201"], "-O2", "-mcode-object-version=5",
                                  "-mwavefrontsize64")["gfx1201"]
    return {32: wave32, 64: wave64}


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("kernel, name, in_type, out_type, wave", CASES,
                         ids=[f"{c[1]}-wave{c[4]}" for c in CASES])
def test_gfx12_wmma_computes_on_amds_layout(session, builds, kernel, name, in_type, out_type, wave, tier):
    entry = LAYOUTS[f"rdna4 {name} wave{wave}"]
    k = entry["k"]
    rng = np.random.default_rng(4)
    if in_type == "i4":
        a, b = rng.integers(-8, 8, (16, k)), rng.integers(-8, 8, (k, 16))
        a_bits, b_bits = a.ravel() & 0xF, b.T.ravel() & 0xF          # B by column j, then k
    else:
        a, b = (rng.integers(-4, 5, shape) / 2 for shape in ((16, k), (k, 16)))
        a_bits = a.astype(in_type).view(np.uint16).ravel()
        b_bits = b.T.astype(in_type).view(np.uint16).ravel()
    c = rng.integers(-8, 9, (16, 16)).astype(out_type)
    c_bits = c.view(np.uint16 if out_type == np.float16 else np.uint32).ravel()
    in_bits, out_bits = entry["in_bits"], entry["out_bits"]
    a_words = _to_registers(a_bits, _places(entry, "a"), in_bits, wave)
    b_words = _to_registers(b_bits, _places(entry, "b"), in_bits, wave)
    c_words = _to_registers(c_bits, _places(entry, "d"), out_bits, wave)
    with engine(tier):
        _, _, d_words = launch(session, builds[wave], kernel,
                               [a_words.ravel(), b_words.ravel(), c_words.ravel()], wave, wave)
    got = _from_registers(d_words.reshape(wave, -1), _places(entry, "d"), out_bits)
    want = (a @ b + c.astype(np.float64)).astype(out_type)
    want_bits = want.view(np.uint16 if out_type == np.float16 else np.uint32).ravel()
    np.testing.assert_array_equal(got, want_bits.astype(np.uint64))
