"""gfx950's f8f6f4 MFMA in all five formats, scaled (MX block scales), on both engine tiers:
built by the ROCm 6.4 root's clang-21 from the builtins CK and Triton lower to, decoded as
llvm-objdump-21 reads the pair of words, and checked against numpy with ml_dtypes'
definitions of fp8, bf8, fp6, bf6, fp4 and E8M0.

The data is placed as Triton's MX GEMMs place it (tests/isa/test_triton.py runs them): lane
% M the row of A (column of B); a lane of 6- or 4-bit elements holds the 32 consecutive k of
run lane // M, packed little-endian in bits (two fp4 to a byte, low nibble first); a lane of
8-bit ones holds runs of 16 k dealt to the lane groups in turn. The scale of a row's block b
of 32 k is in lane row + M * b, in the byte op_sel/op_sel_hi name. Skipped without the root
on a developer's machine, failed in CI."""
import re

import ml_dtypes
import numpy as np
import pytest

from core.cli.disasm import listing
from core.loader.elf import CodeObject
from tests.support import rocm64
from tests.support.differential import engine, launch

# Format code (CBSZ for A, BLGP for B) -> (ml_dtypes type, bits).
FORMATS = {0: (ml_dtypes.float8_e4m3fn, 8), 1: (ml_dtypes.float8_e5m2, 8),
           2: (ml_dtypes.float6_e2m3fn, 6), 3: (ml_dtypes.float6_e3m2fn, 6),
           4: (ml_dtypes.float4_e2m1fn, 4)}
# (A format, B format, A's scale byte, B's scale byte): every format on each side, every byte
# on each side, 8-bit with 4- and 6-bit ones.
CASES = ((0, 4, 0, 1), (1, 3, 1, 2), (2, 2, 2, 3), (3, 1, 3, 0), (4, 0, 1, 3), (2, 1, 0, 2))
SHAPES = {"16x16x128": (16, 16, 128, 4), "32x32x64": (32, 32, 64, 16)}
LANES = 64

SOURCE = r"""
typedef int v8i __attribute__((ext_vector_type(8)));
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v16f __attribute__((ext_vector_type(16)));
#define CASE(SHAPE, OUT, CA, CB, OA, OB) \
kernel void mm_##SHAPE##_##CA##_##CB(global const v8i *a, global const v8i *b, global const uint *sa, \
                                     global const uint *sb, global OUT *d) { \
  uint l = __builtin_amdgcn_workitem_id_x(); \
  d[l] = __builtin_amdgcn_mfma_scale_f32_##SHAPE##_f8f6f4(a[l], b[l], d[l], CA, CB, OA, sa[l], OB, sb[l]); \
}
""" + "".join(f"CASE({shape}, {'v4f' if shape == '16x16x128' else 'v16f'}, {ca}, {cb}, {oa}, {ob})\n"
              for shape in SHAPES for ca, cb, oa, ob in CASES) + r"""
// A scale the kernel has in an SGPR: the hardware reads its bits 30:23 (llvm PR 158117).
kernel void uniform(global const v8i *a, global const v8i *b, uint scale, global v4f *d) {
  uint l = __builtin_amdgcn_workitem_id_x();
  d[l] = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a[l], b[l], d[l], 4, 4, 0, scale, 0, scale);
}
"""


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return rocm64.opencl_builds(tmp_path_factory.mktemp("mfma_scale"), "mfma_scale", SOURCE, ("gfx950",))["gfx950"]


def packed(codes, bits):
    """codes [lanes, 32] of `bits` each -> 8 registers per lane (uint32), little-endian bits."""
    stream = ((codes[..., None] >> np.arange(bits)) & 1).astype(np.uint8).reshape(codes.shape[0], -1)
    words = np.packbits(stream, axis=-1, bitorder="little").view(np.uint32)
    return np.pad(words, ((0, 0), (0, 8 - words.shape[1])))


def random_codes(rng, code, shape):
    """Codes of format `code` naming finite values (OCP fp8's NaN and bf8's NaN/inf left out)."""
    dtype, bits = FORMATS[code]
    codes = rng.integers(0, 1 << bits, shape)
    values = codes.astype(np.uint8).view(dtype).astype(np.float64)
    return np.where(np.isfinite(values), codes, 0)


def decoded(code, codes):
    return codes.astype(np.uint8).view(FORMATS[code][0]).astype(np.float64)


def lanes_of(matrix_rows, bits):
    """[rows, K] -> [64 lanes, 32]: lane l holds row l % rows, of 6- or 4-bit elements the k of
    run l // rows; of 8-bit ones the runs of 16 k g, g + groups, ... (g = l // rows)."""
    rows, k = matrix_rows.shape
    groups = LANES // rows
    if bits != 8:
        return matrix_rows.reshape(rows, groups, 32).transpose(1, 0, 2).reshape(LANES, 32)
    runs = matrix_rows.reshape(rows, k // 16 // groups, groups, 16)      # [row, turn, group, 16]
    return runs.transpose(2, 0, 1, 3).reshape(LANES, 32)


def scale_lanes(scales):
    """[rows, blocks] E8M0 codes -> [64]: block b of a row in lane row + rows * b."""
    return scales.T.reshape(LANES)


def d_position(m, i, j):
    """(lane, register) of D[i][j]: 4-row strips, m lanes wide (AMD's calculator)."""
    if m == 16:
        return j + 16 * (i // 4), i % 4
    return j + 32 * (i // 4 % 2), 4 * (i // 8) + i % 4


def d_registers(d, m):
    out = np.zeros((LANES, m * m // LANES), np.float32)
    for i in range(m):
        for j in range(m):
            out[d_position(m, i, j)] = d[i, j]
    return out


def scale_words(rng, codes, byte):
    """Each lane's scale register: `codes` in byte `byte`, random bytes around it."""
    words = rng.integers(0, 1 << 32, LANES, dtype=np.uint64).astype(np.uint32)
    mask = np.uint32(0xFF << (8 * byte))
    return (words & ~mask) | (codes.astype(np.uint32) << np.uint32(8 * byte))


def test_the_scaled_pair_decodes_as_llvm_objdump_21_reads_it(build):
    """One instruction of 16 bytes, its A and B as wide as their formats, its scales and bytes."""
    with open(build, "rb") as f:
        data = f.read()
    ours = [re.match(r"^  0x[0-9a-f]+  (.*?)\s*//", line).group(1)
            for line in listing(CodeObject(data), data) if line.startswith("  0x")]
    theirs = re.findall(r"^\t(.*?)\s*// [0-9A-F]{12}:", rocm64.objdump(build, "gfx950"), re.M)
    assert ours == theirs
    scaled = [text for text in ours if text.startswith("v_mfma_scale_f32_")]
    assert len(scaled) >= len(CASES) * len(SHAPES)
    widths = {int(b) - int(a) + 1 for t in scaled for a, b in re.findall(r"v\[(\d+):(\d+)\]", t.split(",")[1])}
    assert widths == {4, 6, 8}


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"A{c[0]}B{c[1]}bytes{c[2]}{c[3]}")
def test_every_format_and_scale_byte_multiplies_as_mx_defines_it(session, build, tier, shape, case):
    m, n, k, out_words = SHAPES[shape]
    code_a, code_b, byte_a, byte_b = case
    rng = np.random.default_rng(sum(case) * 7 + m)
    a_codes = random_codes(rng, code_a, (m, k))
    b_codes = random_codes(rng, code_b, (n, k))             # B by column: [n, k]
    a_scales = rng.integers(118, 137, (m, k // 32))        # E8M0 codes around 1.0 (127)
    b_scales = rng.integers(118, 137, (n, k // 32))
    c = rng.standard_normal((m, n)).astype(np.float32)
    a_lanes, b_lanes = lanes_of(a_codes, FORMATS[code_a][1]), lanes_of(b_codes, FORMATS[code_b][1])
    sa = scale_words(rng, scale_lanes(a_scales), byte_a)
    sb = scale_words(rng, scale_lanes(b_scales), byte_b)
    args = [packed(a_lanes, FORMATS[code_a][1]), packed(b_lanes, FORMATS[code_b][1]), sa, sb,
            d_registers(c, m)]
    with engine(tier):
        *_, d = launch(session, build, f"mm_{shape}_{code_a}_{code_b}", args, LANES, LANES)
    scale = ml_dtypes.float8_e8m0fnu
    a = decoded(code_a, a_codes) * np.repeat(a_scales.astype(np.uint8).view(scale).astype(np.float64), 32, axis=1)
    b = decoded(code_b, b_codes) * np.repeat(b_scales.astype(np.uint8).view(scale).astype(np.float64), 32, axis=1)
    want = (a @ b.T + c).astype(np.float32)
    np.testing.assert_allclose(d.reshape(LANES, out_words), d_registers(want, m), rtol=1e-6)


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_a_scale_in_an_sgpr_is_read_from_its_bits_30_to_23(session, build, tier):
    """1.0's bits (0x3F800000) scale by 2^0; the integer 127 has 0 there: 2^-127 on each side."""
    rng = np.random.default_rng(5)
    a_codes, b_codes = random_codes(rng, 4, (16, 128)), random_codes(rng, 4, (16, 128))
    product = decoded(4, a_codes) @ decoded(4, b_codes).T
    args = [packed(lanes_of(a_codes, 4), 4), packed(lanes_of(b_codes, 4), 4)]
    for word, factor in ((0x3F800000, 1.0), (127, 2.0 ** -254), (0x40000000, 4.0)):
        with engine(tier):
            d, = launch(session, build, "uniform", args[:2] + [word, np.zeros((LANES, 4), np.float32)],
                        LANES, LANES)[2:]
        want = (product * factor).astype(np.float32)
        np.testing.assert_allclose(d, d_registers(want, 16), rtol=1e-6, err_msg=hex(word))



def _encoded(line):
    """The bytes llvm-mc-21 encodes `line` to for gfx950."""
    listing = rocm64.encodings("gfx950", [line]).stdout
    return bytes(int(b, 16) for b in re.search(r"encoding: \[([^\]]*)\]", listing).group(1).split(","))


def test_a_run_of_scale_prefixes_decodes_flat_and_the_last_joins_its_mfma():
    """Each v_mfma_ld_scale_b32 before another prefix stands alone (no recursion through the
    run, however long); the last one and its MFMA are one instruction."""
    from core.isa.decoder import decode
    prefix = _encoded("v_mfma_ld_scale_b32 v13, v14 op_sel:[1,0] op_sel_hi:[0,1]")
    pair = _encoded("v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[6:9], v[0:5], a[0:3], v13, v14 "
                    "op_sel:[1,0,0] op_sel_hi:[0,1,0] cbsz:4 blgp:2")
    run = 3000
    blob = prefix * run + pair
    first = decode(blob, 0, 0, True, "gfx950")
    assert (first.mnemonic, first.size) == ("v_mfma_ld_scale_b32", 8)
    joined = decode(blob, 8 * run, 0, True, "gfx950")
    assert (joined.mnemonic, joined.size) == ("v_mfma_scale_f32_16x16x128_f8f6f4", 16)
    assert [op.text for op in joined.src] == ["v[6:9]", "v[0:5]", "a[0:3]", "v13", "v14"]
    # The pair's first word alone at the end of the code: a prefix, not a fault.
    assert decode(pair[:8], 0, 0, True, "gfx950").mnemonic == "v_mfma_ld_scale_b32"
