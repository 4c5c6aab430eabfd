"""The engine's MFMA, WMMA and SWMMAC register layouts against AMD's matrix instruction
calculator (tests/isa/matrix_layouts.json, made from AMD's tool by ci/gen/matrix_layouts.py):
for every instruction of CDNA2 (gfx90a), CDNA3 (gfx942, dense), RDNA3 (gfx1100) and RDNA4
(gfx12), in each wave size, every element of A, B and D (and of a sparse A's index matrix)
sits in the register, bits and lanes AMD's tool names. The gfx12 forms whose layouts this
alone confirms (16-bit results, iu4 of K 32, wave64, SWMMAC) also run end to end on both
tiers, with data placed by AMD's layout (clang-21 builds; skipped without the ROCm 6.4 root on
a developer's machine, failed in CI)."""
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
        if which == "index":
            lane, bit = M.mfma_sparse_indices(m, k)
            return [(0, int(bit[r, c // 4]), [int(lane[r, c // 4])]) for r in range(m) for c in range(k)]
        if which == "a" and entry["sparse"]:    # each dense element: its chunk's first stored value
            lane, slot = M.mfma_input_layout(m, k // 2, 1, m * k // 2 // 64)
            return [packed(slot[0, r, c // 4 * 2]) + ([int(lane[0, r, c // 4 * 2])],)
                    for r in range(m) for c in range(k)]
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
    if which == "index":    # each element names its chunk's index
        lane, bit = M.sparse_indices(k, bits, wave)
        return [(0, int(bit[r, c // 4]), [int(lane[r, c // 4])]) for r in range(16) for c in range(k)]
    if which == "a" and entry["sparse"]:
        # AMD names, for each element of the dense A, the chunk's first stored value
        lane, slot = M.wmma_gfx12_input_layout(k // 2, bits, wave)
        return [packed(slot[r, c // 4 * 2]) + ([int(lane[r, c // 4 * 2])],) for r in range(16) for c in range(k)]
    lane, slot = M.wmma_gfx12_input_layout(k, bits, wave)
    return [packed(slot[r, c]) + ([int(lane[r, c])],) for r in range(16) for c in range(k)]


def _digest(places):
    text = "\n".join(f"{reg}:{bit}:{','.join(map(str, lanes))}" for reg, bit, lanes in places)
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("key", sorted(LAYOUTS))
def test_every_element_sits_where_amds_calculator_puts_it(key):
    arch, name, wave = key.split()
    assert name in M.MNEMONICS + M.SPARSE_MNEMONICS, f"{name} ({arch}) has no semantics in the engine"
    entry = LAYOUTS[key]
    for which in ("a", "b", "d") + (("index",) if entry["sparse"] else ()):
        ours = _engine_places(arch, entry, int(wave[4:]), which)
        assert _digest(ours) == entry[which], f"{key}: matrix {which.upper()} is laid out otherwise"


def test_the_facts_cover_each_architecture_and_wave_size():
    seen = {tuple(key.split()[::2]) for key in LAYOUTS}
    assert seen == {("cdna2", "wave64"), ("cdna3", "wave64"), ("rdna3", "wave32"), ("rdna3", "wave64"),
                    ("rdna4", "wave32"), ("rdna4", "wave64")}


# ---- gfx12 end to end ---------------------------------------------------------------------
# The vector types the kernels below pass their operands in.
VECTORS = r"""
typedef float f4 __attribute__((ext_vector_type(4)));
typedef float f8 __attribute__((ext_vector_type(8)));
typedef half h4 __attribute__((ext_vector_type(4)));
typedef half h8 __attribute__((ext_vector_type(8)));
typedef half h16 __attribute__((ext_vector_type(16)));
typedef int i2 __attribute__((ext_vector_type(2)));
typedef int i4 __attribute__((ext_vector_type(4)));
typedef int i8 __attribute__((ext_vector_type(8)));
"""
WMMA = VECTORS + r"""
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
    """AMD's places of matrix `which`'s elements, in the facts' order."""
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


SPARSE = VECTORS + r"""
#if __AMDGCN_WAVEFRONT_SIZE == 32
kernel void f16(global const h8 *a, global const h16 *b, global f8 *c, global const short *index) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(a[l], b[l], c[l], index[l]);
}
kernel void f16_key(global const h8 *a, global const h16 *b, global f8 *c, global const int *index) {
  size_t l = get_global_id(0);      /* the second index set: the register's high half */
  f8 d = c[l];
  __asm__ volatile("v_swmmac_f32_16x16x32_f16 %0, %1, %2, %3 index_key:1"
                   : "+v"(d) : "v"(a[l]), "v"(b[l]), "v"(index[l]));
  c[l] = d;
}
kernel void iu8(global const i2 *a, global const i4 *b, global i8 *c, global const short *index) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_swmmac_i32_16x16x32_iu8_w32(true, a[l], true, b[l], c[l], index[l], false);
}
#else
kernel void f16(global const h4 *a, global const h8 *b, global f4 *c, global const short *index) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w64(a[l], b[l], c[l], index[l]);
}
#endif
"""
SPARSE_CASES = [("f16", "v_swmmac_f32_16x16x32_f16", 32), ("iu8", "v_swmmac_i32_16x16x32_iu8", 32),
                ("f16", "v_swmmac_f32_16x16x32_f16", 64), ("f16_key", "v_swmmac_f32_16x16x32_f16", 32)]


@pytest.fixture(scope="module")
def sparse_builds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("swmmac")
    return {32: rocm64.opencl_builds(folder, "sparse32", SPARSE, ["gfx1201"])["gfx1201"],
            64: rocm64.opencl_builds(folder, "sparse64", SPARSE, ["gfx1201"], "-O2",
                                     "-mcode-object-version=5", "-mwavefrontsize64")["gfx1201"]}


def _sparse_operands(entry, integer, wave, index_shift, rng):
    """Register words of a 4:2 sparse A (in every chunk of four k two values, at places its
    index names in either order; equal places add), B, C and the index register, placed by
    AMD's layout, and the dense A, B and C they stand for."""
    m, n, k, bits = entry["m"], entry["n"], entry["k"], entry["in_bits"]
    places = rng.integers(0, 4, (m, k // 4, 2))
    if integer:
        stored, b = rng.integers(-128, 128, (m, k // 4, 2)), rng.integers(-128, 128, (k, n))
        stored_bits, b_bits = stored & 0xFF, b.T & 0xFF
        c = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
    else:
        stored, b = rng.integers(-4, 5, (m, k // 4, 2)) / 2, rng.integers(-4, 5, (k, n)) / 2
        stored_bits, b_bits = stored.astype(np.float16).view(np.uint16), b.T.astype(np.float16).view(np.uint16)
        c = rng.integers(-8, 9, (m, n)).astype(np.float32)
    dense = np.zeros((m, k))
    for t in (0, 1):
        for i in range(m):
            np.add.at(dense[i], 4 * np.arange(k // 4) + places[i, :, t], stored[i, :, t])
    # AMD names, for each dense element, its chunk's first stored value; the second follows it.
    a_words, index_words = np.zeros((wave, 8), np.uint64), np.zeros(wave, np.uint64)
    elements = [(i, kk) for i in range(m) for kk in range(k)]
    for (reg, bit, (lane,)), (i, kk) in zip(_places(entry, "a"), elements):
        if kk % 4 == 0:
            for t in (0, 1):
                a_words[lane, reg] |= int(stored_bits[i, kk // 4, t]) << (bit + t * bits)
    for (_, bit, (lane,)), (i, kk) in zip(_places(entry, "index"), elements):
        if kk % 4 == 0:
            index_words[lane] |= int(places[i, kk // 4, 0] | places[i, kk // 4, 1] << 2) << (bit + index_shift)
    a_words = a_words[:, :m * k // 2 * bits // 32 // wave].astype(np.uint32)
    b_words = _to_registers(b_bits.ravel(), _places(entry, "b"), bits, wave)
    c_words = _to_registers(c.view(np.uint32).ravel(), _places(entry, "d"), 32, wave)
    return (a_words, b_words, c_words, index_words), (dense, b, c)


def _sparse_result(entry, d_words, wave, dense, b, c):
    got = _from_registers(d_words.reshape(wave, -1), _places(entry, "d"), 32)
    want = (dense @ b + c).astype(c.dtype).view(np.uint32).ravel()
    np.testing.assert_array_equal(got, want.astype(np.uint64))


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("kernel, name, wave", SPARSE_CASES, ids=[f"{c[1]}-wave{c[2]}" for c in SPARSE_CASES])
def test_gfx12_swmmac_multiplies_the_sparse_a_its_indices_describe(session, sparse_builds, kernel, name,
                                                                   wave, tier):
    entry = LAYOUTS[f"rdna4 {name} wave{wave}"]
    rng = np.random.default_rng(6)
    key = kernel == "f16_key"               # the second index set: the high half, garbage below
    (a, b, c, index), reference = _sparse_operands(entry, kernel == "iu8", wave, 16 if key else 0, rng)
    index = (index | rng.integers(0, 1 << 16, wave).astype(np.uint64)).astype(np.uint32) if key \
        else index.astype(np.uint16)
    with engine(tier):
        _, _, d, _ = launch(session, sparse_builds[wave], kernel, [a.ravel(), b.ravel(), c.ravel(), index],
                            wave, wave)
    _sparse_result(entry, d, wave, *reference)


SMFMAC = VECTORS + r"""
kernel void f16(global const h4 *a, global const h8 *b, global f4 *c, global const int *index) {
  size_t l = get_global_id(0);
  c[l] = __builtin_amdgcn_smfmac_f32_16x16x32_f16(a[l], b[l], c[l], index[l], 0, 0);
}
kernel void f16_set2(global const h4 *a, global const h8 *b, global f4 *c, global const int *index) {
  size_t l = get_global_id(0);      /* abid 2: the index set in bits 16-23 */
  c[l] = __builtin_amdgcn_smfmac_f32_16x16x32_f16(a[l], b[l], c[l], index[l], 0, 2);
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("kernel, shift", [("f16", 0), ("f16_set2", 16)])
def test_gfx942_smfmac_multiplies_the_sparse_a_its_abid_index_set_describes(session, tmp_path, kernel,
                                                                             shift, tier):
    co = rocm64.opencl_builds(tmp_path, "smfmac", SMFMAC, ["gfx942"])["gfx942"]
    entry = LAYOUTS["cdna3 v_smfmac_f32_16x16x32_f16 wave64"]
    rng = np.random.default_rng(8)
    (a, b, c, index), reference = _sparse_operands(entry, False, 64, shift, rng)
    index = index.astype(np.uint32) | np.uint32(0x5A5A if shift else 0x5A5A0000)   # other sets' bits
    with engine(tier):
        _, _, d, _ = launch(session, co, kernel, [a.ravel(), b.ravel(), c.ravel(), index], 64, 64)
    _sparse_result(entry, d, 64, *reference)


# SWMMAC's index_key (op_sel bits that pick an index set), as llvm-mc-21 encodes it.
SWMMAC_FORMS = ["v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20",
                "v_swmmac_f32_16x16x32_f16 v[0:7], v[8:11], v[12:19], v20 index_key:1 neg_lo:[1,0,0] neg_hi:[1,1,0]",
                "v_swmmac_i32_16x16x32_iu8 v[0:7], v[8:9], v[12:15], v20 index_key:1 neg_lo:[1,1,0] clamp",
                "v_swmmac_f32_16x16x32_fp8_fp8 v[0:7], v[8:9], v[12:15], v20 index_key:1"]


def test_decoder_reads_swmmac_index_key_as_llvm_mc_21_encodes_it():
    import re
    from core.isa.decoder import decode_all
    from core.isa.disasm import format_instruction
    done = rocm64.encodings("gfx1201", SWMMAC_FORMS)
    printed = re.findall(r"^\s*(\S.*?)\s*; encoding: \[([^\]]*)\]", done.stdout, re.M)
    assert [p for p, _ in printed] == SWMMAC_FORMS, done.stdout + done.stderr
    for text, encoding in printed:
        inst = decode_all(bytes(int(b, 16) for b in encoding.split(",")), 0, False, "gfx1201")[0]
        assert format_instruction(inst) == text
        assert inst.mods.get("index_key", 0) == (1 if "index_key:1" in text else 0)
