"""gfx11 true16 on gfx1100: kernels clang-21 builds (it keeps 16-bit values in either half of a
VGPR: `v_mov_b16_e32 v1.h, v2.l`, `v_add_f16_e64 v0.h, v1.l, v2.h`) run on both tiers with the
numpy reference's bits, and the decoder reads every half llvm-objdump-21 prints.

The builds come from the ROCm 6.4 root's clang-21 (ci/rocm64_root.sh); without the root these
tests skip on a developer's machine and fail in CI, as tests/test_rocm64_root.py's do.
"""
import os
import re

import numpy as np
import pytest
from elftools.elf.elffile import ELFFile

from core.isa.decoder import decode_all
from core.isa.disasm import format_instruction
from tests.support import rocm64
from tests.support.differential import run_on
from tests.support.kernels import KERNELS

N = 256
# A VGPR operand llvm-21 prints as a half, with its position among the printed operands.
HALF = re.compile(r"^-?\|?v(\d+)\.([lh])\|?$")


@pytest.fixture(scope="module")
def root():
    return rocm64.require_tools()


def build(source, opt):
    return rocm64.clang21(os.path.join(KERNELS, source), "gfx1100", opt,
                          "-mcode-object-version=5")


def objdump(path):
    """{address: (mnemonic, operands)} as llvm-objdump-21 prints the object's code."""
    inside = "/" + os.path.relpath(path, rocm64.ROOT_DIR)
    out = rocm64.run("llvm-objdump-21", "-d", "--mcpu=gfx1100", inside, timeout=120).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"^\t(\S+)\s*(.*?)\s*// ([0-9A-F]+):", line)
        if m:
            operands = [o.strip() for o in m.group(2).split(",")] if m.group(2) else []
            found[int(m.group(3), 16)] = (m.group(1), operands)
    return found


def _halves_case():
    rng = np.random.default_rng(16)
    h = rng.uniform(-8, 8, 2 * N).astype(np.float16)
    h[h == 0] = np.float16(1)
    s = rng.integers(-32768, 32768, 2 * N).astype(np.int16)
    return h, s


def _reference(h, s):
    a, b = h.reshape(N, 2), s.reshape(N, 2).astype(np.int32)
    x, y = a[:, 0], a[:, 1]
    with np.errstate(all="ignore"):
        first = (x.astype(np.float64) * y + y).astype(np.float16)     # contracted: one fma
        picked = np.where(y > x, (y - x).astype(np.float16), -x)
        second = (np.minimum(picked, np.float16(4)) / y).astype(np.float16)
    ho = np.stack([first, second], axis=1).reshape(-1)
    c = ((~b[:, 0] ^ b[:, 1]) + (b[:, 1] >> 3)).astype(np.int16)
    so = np.where(b[:, 0] < b[:, 1], c, ((b[:, 0] & b[:, 1]) | 5).astype(np.int16))
    io = (b[:, 1] * (b[:, 0] | 1).astype(np.int16)).astype(np.int32)
    return ho, so.astype(np.int16), io


class _Case:
    """What tests.support.differential.run_on needs of a suite case."""
    kernel, grid, workgroup, group_segment, global_offset = "true16_halves", (N,), (64,), 0, ()

    def inputs(self, wave):
        h, s = _halves_case()
        return [h, s, np.zeros(2 * N, np.float16), np.zeros(N, np.int16),
                np.zeros(N, np.int32)], None


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_clang21_build_keeps_values_in_register_halves(root, opt):
    """What the kernel is for: clang-21 names high halves (`.h`) in e32 and VOP3 forms."""
    printed = objdump(build("true16.cl", opt))
    halves = [(m, o) for m, ops in printed.values() for o in ops if HALF.match(o)]
    assert any(m.endswith("_e32") and o.rstrip("|").endswith(".h") for m, o in halves), halves
    assert any(m.startswith("v_mov_b16") for m, _ in halves)


@pytest.mark.parametrize("tier", ["interp", "native"])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_true16_kernel_matches_reference_on_both_tiers(root, session, opt, tier):
    path = build("true16.cl", opt)
    outputs, _, fallback = run_on(session, _Case(), path, 32, tier)
    assert fallback is None, fallback
    ho, so, io = _reference(*_halves_case())
    assert np.array_equal(outputs[2].view(np.uint16), ho.view(np.uint16))
    assert np.array_equal(outputs[3], so)
    assert np.array_equal(outputs[4], io)


@pytest.mark.parametrize("source,opt", [("true16.cl", "-O0"), ("true16.cl", "-O2"),
                                        ("half_math.cl", "-O2"), ("int_math.cl", "-O2")])
def test_decoder_reads_the_halves_llvm_objdump_21_prints(root, source, opt):
    """Every instruction llvm-objdump-21 prints decodes to the same mnemonic and size, and
    each operand it prints as `vN.l` / `vN.h` is VGPR N, its high half chosen exactly where
    llvm printed `.h` (op_sel bit 3 for the destination, bit i for source i)."""
    path = build(source, opt)
    with open(path, "rb") as f:
        text = ELFFile(f).get_section_by_name(".text")
        code, base = text.data(), text["sh_addr"]
    printed = objdump(path)
    checked = 0
    for inst in decode_all(code, base, False, "gfx1100"):
        mnemonic, operands = printed[inst.address]
        assert format_instruction(inst).split(" ")[0] == mnemonic, (hex(inst.address), format_instruction(inst), mnemonic)
        records = list(inst.dst) + list(inst.src)
        if not any(HALF.match(o) for o in operands) or inst.encoding == "VOPD":
            continue
        op_sel = int(inst.mods.get("op_sel", 0))
        for position, token in enumerate(operands):
            m = HALF.match(token)
            if not m:
                continue
            record = records[position]
            assert (record.kind, record.index) == ("vgpr", int(m.group(1))), (format_instruction(inst), token)
            bit = 3 if position < len(inst.dst) else position - len(inst.dst)
            assert (op_sel >> bit & 1) == (m.group(2) == "h"), (hex(inst.address), format_instruction(inst), token)
            checked += 1
    assert checked


# Register codes at the edge of what an e32 field's 7 bits name: v127's low half, v0's high
# half (code 128), v127's high half; VOPC's src1 and VOP2's vdst/src1 as well.
EDGES = ["v_mov_b16_e32 v127.l, v127.l", "v_mov_b16_e32 v0.h, v0.h", "v_mov_b16_e32 v127.h, v1.l",
         "v_add_f16_e32 v5.l, v127.h, v0.h", "v_cmp_lt_f16_e32 vcc_lo, v127.l, v0.h",
         "v_fmac_f16_e32 v2.h, v3.l, v4.h"]


def test_decoder_reads_half_codes_at_the_edges_as_llvm_mc_21_encodes_them(root):
    done = rocm64.encodings("gfx1100", EDGES)
    encodings = re.findall(r"; encoding: \[([^\]]*)\]", done.stdout)
    assert len(encodings) == len(EDGES), done.stdout + done.stderr
    for text, encoding in zip(EDGES, encodings):
        inst = decode_all(bytes(int(b, 16) for b in encoding.split(",")), 0, False, "gfx1100")[0]
        operands = [o.strip() for o in text.split(" ", 1)[1].split(",")]
        records = list(inst.dst) + list(inst.src)
        op_sel = int(inst.mods.get("op_sel", 0))
        for position, token in enumerate(operands):
            m = HALF.match(token)
            if m:
                bit = 3 if position < len(inst.dst) else position - len(inst.dst)
                assert records[position].index == int(m.group(1)), (text, format_instruction(inst))
                assert (op_sel >> bit & 1) == (m.group(2) == "h"), (text, format_instruction(inst))


# v_swap_b16 through inline assembly: odd lanes trade a's low half for b's high half, even
# lanes swap the halves of one register (both halves are read before either is written).
SWAP16 = r"""
kernel void swap16(global uint *a, global uint *b) {
  size_t i = get_global_id(0);
  uint x = a[i], y = b[i];
  if (i & 1)
    __asm__ volatile("v_mov_b32 v1, %2\n v_mov_b32 v2, %3\n v_swap_b16 v1.l, v2.h\n"
                     "v_mov_b32 %0, v1\n v_mov_b32 %1, v2"
                     : "=&v"(x), "=&v"(y) : "v"(x), "v"(y) : "v1", "v2");
  else
    __asm__ volatile("v_mov_b32 v1, %1\n v_swap_b16 v1.h, v1.l\n v_mov_b32 %0, v1"
                     : "=&v"(x) : "v"(x) : "v1");
  a[i] = x;
  b[i] = y;
}
"""


@pytest.mark.parametrize("tier", ["interp", "native"])
def test_v_swap_b16_trades_the_halves_it_names(root, session, tmp_path, tier):
    from tests.support.differential import engine, launch
    path = tmp_path / "swap16.cl"
    path.write_text(SWAP16)
    co = rocm64.clang21(str(path), "gfx1100", "-O2", "-mcode-object-version=5")
    rng = np.random.default_rng(3)
    a, b = (rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    with engine(tier):
        got_a, got_b = launch(session, co, "swap16", [a.copy(), b.copy()], 64, 32)
    odd = np.arange(64) % 2 == 1
    lo, hi = a & np.uint32(0xFFFF), a >> np.uint32(16)
    np.testing.assert_array_equal(got_a[odd], (a[odd] & np.uint32(0xFFFF0000)) | (b[odd] >> np.uint32(16)))
    np.testing.assert_array_equal(got_b[odd], (b[odd] & np.uint32(0xFFFF)) | (lo[odd] << np.uint32(16)))
    np.testing.assert_array_equal(got_a[~odd], (lo[~odd] << np.uint32(16)) | hi[~odd])
    np.testing.assert_array_equal(got_b[~odd], b[~odd])
