"""What the executor reads from gfx90a and gfx1100 records: AGPR operands, MFMA modifiers,
gfx9's flat_scratch, gfx11's VOPD halves and swapped m0/null codes — for encodings
llvm-mc-15 assembles from text for that target."""
import re
import subprocess

import pytest

from core.isa.decoder import DecodeError, decode
from core.isa.disasm import format_instruction
from core.isa.instruction import Operand

S_NOP = b"\x00\x00\x80\xbf"


def decoded(text, target):
    done = subprocess.run(["llvm-mc-15", "-arch=amdgcn", f"-mcpu={target}", "--show-encoding"],
                          input=text + "\n", capture_output=True, text=True, check=True)
    assert "error" not in done.stderr, done.stderr
    code = b"".join(bytes(int(b, 16) for b in c.split(","))
                    for c in re.findall(r"; encoding: \[([^\]]*)\]", done.stdout))
    inst = decode(code + S_NOP * 2, 0, 0, target == "gfx90a", target)
    assert (inst.size, format_instruction(inst), inst.target) == (len(code), text, target)
    return inst


def vgpr(i, n=1):
    return Operand("vgpr", i, n)


def agpr(i, n=1):
    return Operand("agpr", i, n)


def test_accvgpr_moves_name_agprs():
    write = decoded("v_accvgpr_write_b32 a1, v2", "gfx90a")
    read = decoded("v_accvgpr_read_b32 v1, a2", "gfx90a")
    assert (write.dst, write.src) == ((agpr(1),), (vgpr(2),))
    assert (read.dst, read.src) == ((vgpr(1),), (agpr(2),))


def test_mfma_takes_agpr_accumulators_and_its_broadcast_modifiers():
    inst = decoded("v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3] cbsz:4 abid:3 blgp:1", "gfx90a")
    assert inst.dst == (agpr(0, 4),)
    assert inst.src == (vgpr(0), vgpr(1), agpr(0, 4))
    assert (inst.mods["cbsz"], inst.mods["abid"], inst.mods["blgp"]) == (4, 3, 1)
    on_vgprs = decoded("v_mfma_f32_32x32x8f16 v[0:15], v[16:17], v[18:19], v[0:15]", "gfx90a")
    assert on_vgprs.dst == (vgpr(0, 16),) and on_vgprs.src[2] == vgpr(0, 16)


def test_memory_instructions_load_into_agprs_with_the_acc_bit():
    inst = decoded("global_load_dwordx2 a[2:3], v[0:1], off", "gfx90a")
    assert inst.dst == (agpr(2, 2),) and inst.src == (vgpr(0, 2),)


def test_gfx9_flat_scratch_is_the_sgpr_pair_after_the_sgprs():
    inst = decoded("s_mov_b64 flat_scratch, s[0:1]", "gfx90a")
    assert inst.dst == (Operand("special", 102, 2),)


def test_packed_f32_operands_are_register_pairs():
    inst = decoded("v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]", "gfx90a")
    assert inst.dst == (vgpr(0, 2),) and inst.src == (vgpr(2, 2), vgpr(4, 2), vgpr(6, 2))


def test_vopd_is_one_record_with_two_halves():
    inst = decoded("v_dual_mul_f32 v0, v1, v2 :: v_dual_mov_b32 v3, v4", "gfx1100")
    assert inst.encoding == "VOPD" and inst.size == 8
    x, y = inst.halves
    assert (x.mnemonic, x.dst, x.src) == ("v_dual_mul_f32", (vgpr(0),), (vgpr(1), vgpr(2)))
    assert (y.mnemonic, y.dst, y.src) == ("v_dual_mov_b32", (vgpr(3),), (vgpr(4),))
    assert inst.dst == x.dst + y.dst and inst.src == x.src + y.src


def test_gfx11_m0_and_null_decode_to_the_canonical_operands():
    """gfx11 swapped the codes of m0 (125) and null (124); records keep gfx10's (m0 = 124)
    so the engine reads one convention."""
    assert decoded("s_mov_b32 m0, s0", "gfx1100").dst == (Operand("special", 124, 1),)
    assert decoded("s_mov_b32 null, s0", "gfx1100").dst[0].kind == "null"
    assert decoded("s_mov_b32 m0, s0", "gfx1100").dst == decoded("s_mov_b32 m0, s0", "gfx1030").dst


def test_wmma_operands_are_register_tuples():
    inst = decoded("v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7]", "gfx1100")
    assert inst.dst == (vgpr(0, 8),) and inst.src == (vgpr(8, 8), vgpr(16, 8), vgpr(0, 8))


def test_s_delay_alu_keeps_its_immediate():
    inst = decoded("s_delay_alu instid0(VALU_DEP_1) | instskip(NEXT) | instid1(SALU_CYCLE_1)",
                   "gfx1100")
    assert inst.mods["simm16"] == 1 | 1 << 4 | 9 << 7


@pytest.mark.parametrize("target,word", [
    ("gfx90a", 0xC8000000),         # gfx11's VOPD prefix: no gfx9 encoding
    ("gfx1100", 0xC4000000),        # no gfx11 encoding either (llvm-objdump prints .long)
])
def test_words_outside_a_targets_encodings_raise(target, word):
    with pytest.raises(DecodeError):
        decode(word.to_bytes(4, "little") + bytes(12), 0, 0, target == "gfx90a", target)


def test_an_unknown_target_is_refused_by_name():
    with pytest.raises(ValueError, match="gfx906"):
        decode(S_NOP * 2, 0, 0, True, "gfx906")
